// SPDX-License-Identifier: Apache-2.0
#include "kernel/cpu_list.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "kernel/text_file.hpp"

namespace perfmon::kernel {

namespace {
bool parse_cpu(std::string_view text, long& cpu) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), cpu);
  return ec == std::errc() && end == text.data() + text.size() && cpu >= 0;
}
bool only_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}  // namespace

CpuListError parse_cpu_list(std::string_view text, int limit, std::vector<int>& cpus) {
  cpus.clear();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty()) return CpuListError::Malformed;
  while (true) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    std::size_t dash = item.find('-');
    std::string_view first_text = item.substr(0, dash);
    std::string_view last_text = dash == std::string_view::npos ? first_text : item.substr(dash + 1);
    if (!only_digits(first_text) || !only_digits(last_text)) return CpuListError::Malformed;
    long first = 0, last = 0;
    // A number too long for a long is as much too large as any above the limit.
    if (!parse_cpu(first_text, first) || !parse_cpu(last_text, last)) return CpuListError::TooLarge;
    if (last < first) return CpuListError::Backwards;
    if (last >= limit) return CpuListError::TooLarge;
    for (long cpu = first; cpu <= last; ++cpu) cpus.push_back(static_cast<int>(cpu));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return CpuListError::None;
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

int possible_cpu_count() {
  static const int count = [] {
    std::vector<int> cpus;
    if (parse_cpu_list(read_first_line("/sys/devices/system/cpu/possible"), kMaxKernelCpus, cpus) ==
            CpuListError::None &&
        !cpus.empty())
      return cpus.back() + 1;
    return static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_CONF)));
  }();
  return count;
}

std::vector<int> online_cpus() {
  std::vector<int> cpus;
  if (parse_cpu_list(read_first_line("/sys/devices/system/cpu/online"), possible_cpu_count(), cpus) ==
          CpuListError::None &&
      !cpus.empty())
    return cpus;
  cpus.clear();
  for (int cpu = 0; cpu < ::sysconf(_SC_NPROCESSORS_ONLN); ++cpu) cpus.push_back(cpu);
  return cpus;
}

}  // namespace perfmon::kernel
