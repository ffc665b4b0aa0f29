// SPDX-License-Identifier: Apache-2.0
#include "recording_header.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <utility>
#include <vector>

#include "perfmon/printable.hpp"

namespace perfmon::cli {

namespace {

// Names of the bits of a mask, "IP|TID|TIME", in perf's spelling; bits without one in hex.
template <std::size_t N>
std::string bit_names(std::uint64_t mask, const std::array<std::pair<std::uint64_t, const char*>, N>& names) {
  std::string text;
  for (const auto& [bit, name] : names)
    if (mask & bit) {
      text += (text.empty() ? "" : "|") + std::string(name);
      mask &= ~bit;
    }
  if (mask != 0) {
    char rest[32];
    std::snprintf(rest, sizeof rest, "%#llx", static_cast<unsigned long long>(mask));
    text += (text.empty() ? "" : "|") + std::string(rest);
  }
  return text;
}

constexpr std::array<std::pair<std::uint64_t, const char*>, 25> kSampleTypes = {{
    {PERF_SAMPLE_IP, "IP"},
    {PERF_SAMPLE_TID, "TID"},
    {PERF_SAMPLE_TIME, "TIME"},
    {PERF_SAMPLE_ADDR, "ADDR"},
    {PERF_SAMPLE_READ, "READ"},
    {PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
    {PERF_SAMPLE_ID, "ID"},
    {PERF_SAMPLE_CPU, "CPU"},
    {PERF_SAMPLE_PERIOD, "PERIOD"},
    {PERF_SAMPLE_STREAM_ID, "STREAM_ID"},
    {PERF_SAMPLE_RAW, "RAW"},
    {PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
    {PERF_SAMPLE_REGS_USER, "REGS_USER"},
    {PERF_SAMPLE_STACK_USER, "STACK_USER"},
    {PERF_SAMPLE_WEIGHT, "WEIGHT"},
    {PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
    {PERF_SAMPLE_IDENTIFIER, "IDENTIFIER"},
    {PERF_SAMPLE_TRANSACTION, "TRANSACTION"},
    {PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
    {PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
    {PERF_SAMPLE_AUX, "AUX"},
    {PERF_SAMPLE_CGROUP, "CGROUP"},
    {PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
    {PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
    {PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
}};
constexpr std::array<std::pair<std::uint64_t, const char*>, 5> kReadFormats = {{
    {PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
    {PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
    {PERF_FORMAT_ID, "ID"},
    {PERF_FORMAT_GROUP, "GROUP"},
    {PERF_FORMAT_LOST, "LOST"},
}};

// perf's perf_event_attr__fprintf: the fields that are not 0, in the struct's order.
std::string attr_fields(const perf_event_attr& attr) {
  std::string text;
  auto field = [&](const char* name, std::uint64_t value, bool in_hex = false) {
    if (value == 0) return;
    char number[32];
    std::snprintf(number, sizeof number, in_hex ? "%#llx" : "%llu", static_cast<unsigned long long>(value));
    text += ", " + std::string(name) + " = " + number;
  };
  field("type", attr.type);
  field("size", attr.size);
  field("config", attr.config, true);
  field("{ sample_period, sample_freq }", attr.sample_period);
  if (attr.sample_type != 0) text += ", sample_type = " + bit_names(attr.sample_type, kSampleTypes);
  if (attr.read_format != 0) text += ", read_format = " + bit_names(attr.read_format, kReadFormats);
  const std::pair<const char*, std::uint64_t> flags[] = {
      {"disabled", attr.disabled},
      {"inherit", attr.inherit},
      {"pinned", attr.pinned},
      {"exclusive", attr.exclusive},
      {"exclude_user", attr.exclude_user},
      {"exclude_kernel", attr.exclude_kernel},
      {"exclude_hv", attr.exclude_hv},
      {"exclude_idle", attr.exclude_idle},
      {"mmap", attr.mmap},
      {"comm", attr.comm},
      {"freq", attr.freq},
      {"inherit_stat", attr.inherit_stat},
      {"enable_on_exec", attr.enable_on_exec},
      {"task", attr.task},
      {"watermark", attr.watermark},
      {"precise_ip", attr.precise_ip},
      {"mmap_data", attr.mmap_data},
      {"sample_id_all", attr.sample_id_all},
      {"exclude_host", attr.exclude_host},
      {"exclude_guest", attr.exclude_guest},
      {"exclude_callchain_kernel", attr.exclude_callchain_kernel},
      {"exclude_callchain_user", attr.exclude_callchain_user},
      {"mmap2", attr.mmap2},
      {"comm_exec", attr.comm_exec},
      {"use_clockid", attr.use_clockid},
      {"context_switch", attr.context_switch},
      {"write_backward", attr.write_backward},
      {"namespaces", attr.namespaces},
      {"ksymbol", attr.ksymbol},
      {"bpf_event", attr.bpf_event},
      {"aux_output", attr.aux_output},
      {"cgroup", attr.cgroup},
      {"text_poke", attr.text_poke},
      {"build_id", attr.build_id},
      {"inherit_thread", attr.inherit_thread},
      {"remove_on_exec", attr.remove_on_exec},
      {"sigtrap", attr.sigtrap},
      {"wakeup_events", attr.wakeup_events},
      {"bp_type", attr.bp_type},
      {"config1", attr.config1},
      {"config2", attr.config2},
      {"branch_sample_type", attr.branch_sample_type},
      {"sample_regs_user", attr.sample_regs_user},
      {"sample_stack_user", attr.sample_stack_user},
      {"clockid", static_cast<std::uint64_t>(attr.clockid)},
      {"sample_regs_intr", attr.sample_regs_intr},
      {"aux_watermark", attr.aux_watermark},
      {"sample_max_stack", attr.sample_max_stack},
  };
  for (const auto& [name, value] : flags) {
    const bool in_hex =
        std::string_view(name).starts_with("config") || std::string_view(name).starts_with("sample_regs");
    field(name, value, in_hex);
  }
  return text;
}

// perf's names of record types (tools/perf/util/event.c: perf_event__names).
const char* record_type_name(std::uint32_t type) {
  static constexpr const char* kKernel[] = {nullptr,        "MMAP",
                                            "LOST",         "COMM",
                                            "EXIT",         "THROTTLE",
                                            "UNTHROTTLE",   "FORK",
                                            "READ",         "SAMPLE",
                                            "MMAP2",        "AUX",
                                            "ITRACE_START", "LOST_SAMPLES",
                                            "SWITCH",       "SWITCH_CPU_WIDE",
                                            "NAMESPACES",   "KSYMBOL",
                                            "BPF_EVENT",    "CGROUP",
                                            "TEXT_POKE",    "AUX_OUTPUT_HW_ID"};
  static constexpr const char* kPerfs[] = {
      "ATTR",         "EVENT_TYPE",     "TRACING_DATA", "BUILD_ID",   "FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO",
      "AUXTRACE",     "AUXTRACE_ERROR", "THREAD_MAP",   "CPU_MAP",    "STAT_CONFIG",    "STAT",     "STAT_ROUND",
      "EVENT_UPDATE", "TIME_CONV",      "FEATURE",      "COMPRESSED", "FINISHED_INIT"};
  if (type < std::size(kKernel)) return kKernel[type];
  if (type >= 64 && type - 64 < std::size(kPerfs)) return kPerfs[type - 64];
  return nullptr;
}

}  // namespace

std::string format_recording_header(const PerfDataReader& file, const std::string& path) {
  const PerfDataHost& host = file.host();
  std::string out = "# ========\n";
  char line[256];
  struct stat status {};
  if (path != "-" && ::stat(path.c_str(), &status) == 0) {
    char when[64];
    const std::time_t captured = status.st_mtime;
    std::tm local{};
    localtime_r(&captured, &local);
    std::strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &local);
    out += "# captured on    : " + std::string(when) + "\n";
    out += "# header version : 1\n";
    std::snprintf(line, sizeof line, "# data offset    : %llu\n# data size      : %llu\n# feat offset    : %llu\n",
                  static_cast<unsigned long long>(file.data_offset()),
                  static_cast<unsigned long long>(file.data_bytes()),
                  static_cast<unsigned long long>(file.data_offset() + file.data_bytes()));
    out += line;
  }
  auto text = [&](const char* name, const std::string& value) {
    if (!value.empty()) out += "# " + std::string(name) + " : " + printable(value) + "\n";
  };
  text("hostname", host.hostname);
  text("os release", host.os_release);
  text("perf version", host.perf_version);
  text("arch", host.arch);
  if (host.cpus_online != 0) {
    out += "# nrcpus online : " + std::to_string(host.cpus_online) + "\n";
    out += "# nrcpus avail : " + std::to_string(host.cpus_available) + "\n";
  }
  text("cpudesc", host.cpu_description);
  text("cpuid", host.cpuid);
  if (host.total_memory_kib != 0) out += "# total memory : " + std::to_string(host.total_memory_kib) + " kB\n";
  if (!host.command_line.empty()) {
    std::string words;
    for (const std::string& word : host.command_line) words += word + " ";
    out += "# cmdline : " + printable(words) + "\n";
  }
  for (const PerfDataEvent& event : file.events()) {
    std::string ids;
    for (std::uint64_t id : event.ids) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    out += "# event : name = " + printable(event.name) + (ids.empty() ? "" : ", id = { " + ids + " }") +
           attr_fields(event.attr) + "\n";
  }
  out += "# ========\n#\n";
  return out;
}

std::string format_record_stats(const PerfDataReader& file) {
  const std::map<std::uint32_t, std::uint64_t> counts = file.record_counts();
  std::uint64_t total = 0;
  for (const auto& [type, count] : counts) total += count;
  std::string out = "\nAggregated stats:\n";
  char line[128];
  std::snprintf(line, sizeof line, "%16s events: %10llu\n", "TOTAL", static_cast<unsigned long long>(total));
  out += line;
  for (const auto& [type, count] : counts) {
    const char* name = record_type_name(type);
    const std::string unnamed = "type " + std::to_string(type);
    std::snprintf(line, sizeof line, "%16s events: %10llu  (%4.1f%%)\n", name != nullptr ? name : unnamed.c_str(),
                  static_cast<unsigned long long>(count),
                  100.0 * static_cast<double>(count) / static_cast<double>(total));
    out += line;
  }
  // Then each event's samples, as perf's "<event> stats:".
  struct SamplesCounted final : SampleHandler {
    std::vector<std::uint64_t> of_event;
    void sample(std::size_t event, const Sample&) override { ++of_event[event]; }
  } counted;
  counted.of_event.resize(file.events().size());
  file.read(counted);
  for (std::size_t e = 0; e < counted.of_event.size(); ++e) {
    if (counted.of_event[e] == 0) continue;
    std::snprintf(line, sizeof line, "%16s events: %10llu\n", "SAMPLE",
                  static_cast<unsigned long long>(counted.of_event[e]));
    out += printable(file.events()[e].name) + " stats:\n" + line;
  }
  return out;
}

std::string format_thread_counts(const PerfDataReader& file) {
  const std::vector<PerfDataEvent>& events = file.events();
  std::map<std::uint64_t, std::size_t> event_of_id;
  for (std::size_t e = 0; e < events.size(); ++e)
    for (std::uint64_t id : events[e].ids) event_of_id[id] = e;
  // A READ record: pid and tid, then the event's read_format (its value first, its id after the
  // times where it has one); a group's reading is not a thread's count of one event.
  struct ThreadCounts final : SampleHandler {
    const std::vector<PerfDataEvent>* events = nullptr;
    const std::map<std::uint64_t, std::size_t>* event_of_id = nullptr;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> threads;        // (pid, tid), in the order met
    std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> value;  // (thread, event)
    void sample(std::size_t, const Sample&) override {}
    void record(const perf_event_header& record) override {
      if (record.type != PERF_RECORD_READ || record.size < sizeof record + 16) return;
      const std::uint64_t format = events->front().attr.read_format;
      if (format & PERF_FORMAT_GROUP) return;
      const auto* words = reinterpret_cast<const std::uint32_t*>(&record + 1);
      const std::uint32_t pid = words[0], tid = words[1];
      std::uint64_t fields[4] = {};  // value, [enabled], [running], [id]
      const std::size_t count = 1 + ((format & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0) +
                                ((format & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0) + ((format & PERF_FORMAT_ID) != 0);
      if (record.size < sizeof record + 8 + 8 * count) return;
      std::memcpy(fields, words + 2, 8 * count);
      std::size_t event = 0;
      if (format & PERF_FORMAT_ID) {
        const auto found = event_of_id->find(fields[count - 1]);
        if (found == event_of_id->end()) return;
        event = found->second;
      } else if (events->size() != 1) {
        return;  // no id says whose count it is
      }
      const auto place = std::find(threads.begin(), threads.end(), std::make_pair(pid, tid));
      const std::size_t thread = static_cast<std::size_t>(place - threads.begin());
      if (place == threads.end()) threads.emplace_back(pid, tid);
      value[{thread, event}] += fields[0];
    }
  } counted;
  counted.events = &events;
  counted.event_of_id = &event_of_id;
  file.read(counted);
  if (counted.threads.empty()) return "";
  // perf's perf_read_values__display: columns as wide as their widest cell.
  std::size_t pid_width = 3, tid_width = 3;
  for (const auto& [pid, tid] : counted.threads) {
    pid_width = std::max(pid_width, std::to_string(pid).size());
    tid_width = std::max(tid_width, std::to_string(tid).size());
  }
  std::vector<std::size_t> widths;
  for (std::size_t e = 0; e < events.size(); ++e) {
    std::size_t width = printable(events[e].name).size();
    for (std::size_t t = 0; t < counted.threads.size(); ++t) {
      const auto found = counted.value.find({t, e});
      if (found != counted.value.end()) width = std::max(width, std::to_string(found->second).size());
    }
    widths.push_back(width);
  }
  auto cell = [](const std::string& text, std::size_t width) {
    return "  " + std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
  };
  std::string out = "#" + cell("PID", pid_width).substr(1) + cell("TID", tid_width);
  for (std::size_t e = 0; e < events.size(); ++e) out += cell(printable(events[e].name), widths[e]);
  out += "\n";
  for (std::size_t t = 0; t < counted.threads.size(); ++t) {
    out += cell(std::to_string(counted.threads[t].first), pid_width) +
           cell(std::to_string(counted.threads[t].second), tid_width);
    for (std::size_t e = 0; e < events.size(); ++e) {
      const auto found = counted.value.find({t, e});
      out += cell(found == counted.value.end() ? "" : std::to_string(found->second), widths[e]);
    }
    out += "\n";
  }
  return out;
}

}  // namespace perfmon::cli
