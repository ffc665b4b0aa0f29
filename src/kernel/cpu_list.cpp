#include "kernel/cpu_list.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>

#include "perfmon/error.hpp"

namespace perfmon::kernel {

namespace {
int parse_cpu(std::string_view text, std::string_view whole) {
  int cpu = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), cpu);
  if (ec != std::errc() || end != text.data() + text.size() || cpu < 0)
    throw Error("invalid CPU list '" + std::string(whole) + "': write CPUs like 0-3,5.");
  return cpu;
}
}  // namespace

std::vector<int> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  std::string_view whole = text;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty()) throw Error("empty CPU list: write CPUs like 0-3,5.");
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    std::size_t dash = item.find('-');
    int first = parse_cpu(item.substr(0, dash), whole);
    int last = dash == std::string_view::npos ? first : parse_cpu(item.substr(dash + 1), whole);
    if (last < first) throw Error("invalid CPU range in '" + std::string(whole) + "': the range runs backwards.");
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> online_cpus() {
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string text;
  if (std::getline(in, text) && !text.empty()) return parse_cpu_list(text);
  long count = ::sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < count; ++cpu) cpus.push_back(cpu);
  return cpus;
}

}  // namespace perfmon::kernel
