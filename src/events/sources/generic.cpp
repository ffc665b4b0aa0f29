// SPDX-License-Identifier: Apache-2.0
#include "events/sources/generic.hpp"

#include <strings.h>
#include <array>

namespace perfmon::events {

namespace {

constexpr std::array kHardware = {
    GenericEvent{"cpu-cycles", "cycles", {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES}, "CPU cycles"},
    GenericEvent{"instructions", "", {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS}, "instructions retired"},
    GenericEvent{"cache-references",
                 "",
                 {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
                 "cache accesses (usually the last-level cache)"},
    GenericEvent{"cache-misses",
                 "",
                 {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
                 "cache misses (usually the last-level cache)"},
    GenericEvent{"branch-instructions",
                 "branches",
                 {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
                 "branch instructions retired"},
    GenericEvent{"branch-misses", "", {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES}, "mispredicted branches"},
    GenericEvent{"bus-cycles", "", {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES}, "bus cycles"},
    GenericEvent{"stalled-cycles-frontend",
                 "idle-cycles-frontend",
                 {PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
                 "cycles stalled in the front end"},
    GenericEvent{"stalled-cycles-backend",
                 "idle-cycles-backend",
                 {PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
                 "cycles stalled in the back end"},
    GenericEvent{"ref-cycles",
                 "",
                 {PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
                 "reference cycles (constant rate, unaffected by frequency scaling)"},
};

constexpr std::array kSoftware = {
    GenericEvent{"cpu-clock", "", {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK}, "per-CPU high-resolution timer (ns)"},
    GenericEvent{"task-clock", "", {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK}, "time the task ran on a CPU (ns)"},
    GenericEvent{"page-faults", "faults", {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS}, "page faults"},
    GenericEvent{"context-switches", "cs", {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES}, "context switches"},
    GenericEvent{"cpu-migrations",
                 "migrations",
                 {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
                 "moves of the task to another CPU"},
    GenericEvent{
        "minor-faults", "", {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN}, "page faults served without I/O"},
    GenericEvent{
        "major-faults", "", {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ}, "page faults that needed I/O"},
    GenericEvent{"alignment-faults",
                 "",
                 {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
                 "unaligned accesses fixed up by the kernel"},
    GenericEvent{"emulation-faults",
                 "",
                 {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
                 "instructions emulated by the kernel"},
    GenericEvent{
        "dummy", "", {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY}, "counts nothing (a carrier for side-band records)"},
    GenericEvent{"bpf-output", "", {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT}, "output of BPF programs"},
    GenericEvent{"cgroup-switches",
                 "",
                 {PERF_TYPE_SOFTWARE, 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, Linux 5.13 */},
                 "switches between tasks of different cgroups"},
};

// perf's hardware-cache vocabulary (tools/perf/util/evsel.c), first spelling canonical.
struct Spellings {
  std::array<std::string_view, 5> names;
};

constexpr std::array<Spellings, PERF_COUNT_HW_CACHE_MAX> kCaches = {{
    {{"L1-dcache", "l1-d", "l1d", "L1-data", ""}},
    {{"L1-icache", "l1-i", "l1i", "L1-instruction", ""}},
    {{"LLC", "L2", "", "", ""}},
    {{"dTLB", "d-tlb", "Data-TLB", "", ""}},
    {{"iTLB", "i-tlb", "Instruction-TLB", "", ""}},
    {{"branch", "branches", "bpu", "btb", "bpc"}},
    {{"node", "", "", "", ""}},
}};

constexpr std::array<Spellings, PERF_COUNT_HW_CACHE_OP_MAX> kOps = {{
    {{"load", "loads", "read", "", ""}},
    {{"store", "stores", "write", "", ""}},
    {{"prefetch", "prefetches", "speculative-read", "speculative-load", ""}},
}};

constexpr std::array<Spellings, PERF_COUNT_HW_CACHE_RESULT_MAX> kResults = {{
    {{"refs", "Reference", "ops", "access", ""}},
    {{"misses", "miss", "", "", ""}},
}};

// Which operations each cache supports, as perf decides what to list and accept.
constexpr std::array<unsigned, PERF_COUNT_HW_CACHE_MAX> kValidOps = {
    0b111,  // L1D: load store prefetch
    0b101,  // L1I: load prefetch
    0b111,  // LLC
    0b111,  // dTLB
    0b001,  // iTLB
    0b001,  // branch
    0b111,  // node
};

bool equal_nocase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

template <std::size_t N>
std::optional<std::size_t> match_prefix(const std::array<Spellings, N>& table, std::string_view text,
                                        std::size_t& consumed) {
  // Longest spelling first so "L1-dcache" wins over a shorter one that is a prefix.
  std::optional<std::size_t> best;
  std::size_t best_len = 0;
  for (std::size_t i = 0; i < N; ++i) {
    for (std::string_view spelling : table[i].names) {
      if (spelling.empty() || spelling.size() > text.size() || spelling.size() <= best_len) continue;
      bool ends_at_boundary = spelling.size() == text.size() || text[spelling.size()] == '-';
      if (ends_at_boundary && equal_nocase(text.substr(0, spelling.size()), spelling)) {
        best = i;
        best_len = spelling.size();
      }
    }
  }
  consumed = best_len;
  return best;
}

struct CacheName {
  std::size_t cache, op, result;
};

// perf's legacy-cache grammar: a cache, then up to two words, each an operation or a result.
std::optional<CacheName> parse_cache_name(std::string_view name) {
  std::size_t used = 0;
  auto cache = match_prefix(kCaches, name, used);
  if (!cache) return std::nullopt;
  name.remove_prefix(used);
  std::optional<std::size_t> op, result;
  for (int word = 0; word < 2 && !name.empty(); ++word) {
    if (name.front() != '-') return std::nullopt;
    name.remove_prefix(1);
    if (!op) {
      if (auto found = match_prefix(kOps, name, used)) {
        op = found;
        name.remove_prefix(used);
        continue;
      }
    }
    if (!result) {
      if (auto found = match_prefix(kResults, name, used)) {
        result = found;
        name.remove_prefix(used);
        continue;
      }
    }
    return std::nullopt;
  }
  if (!name.empty()) return std::nullopt;
  return CacheName{*cache, op.value_or(PERF_COUNT_HW_CACHE_OP_READ),
                   result.value_or(PERF_COUNT_HW_CACHE_RESULT_ACCESS)};
}

bool supported(const CacheName& name) {
  return (kValidOps[name.cache] >> name.op) & 1U;
}

std::optional<EventCode> find_cache_event(std::string_view text) {
  std::optional<CacheName> name = parse_cache_name(text);
  if (!name || !supported(*name)) return std::nullopt;
  return EventCode{PERF_TYPE_HW_CACHE, name->cache | (name->op << 8) | (name->result << 16)};
}

}  // namespace

std::span<const GenericEvent> hardware_events() {
  return kHardware;
}
std::span<const GenericEvent> software_events() {
  return kSoftware;
}

std::optional<EventCode> find_generic_event(std::string_view name) {
  for (auto table : {hardware_events(), software_events()}) {
    for (const GenericEvent& event : table) {
      if (equal_nocase(name, event.name) || (!event.alias.empty() && equal_nocase(name, event.alias)))
        return event.code;
    }
  }
  return find_cache_event(name);
}

std::optional<std::string> unsupported_cache_operation(std::string_view text) {
  std::optional<CacheName> name = parse_cache_name(text);
  if (!name || supported(*name)) return std::nullopt;
  std::string operations;
  for (std::size_t op = 0; op < kOps.size(); ++op) {
    if (!((kValidOps[name->cache] >> op) & 1U)) continue;
    if (!operations.empty()) operations += " and ";
    operations += kOps[op].names[1];
  }
  return std::string(kCaches[name->cache].names[0]) + " has no " + std::string(kOps[name->op].names[0]) +
         " events; its events count " + operations + ".";
}

std::vector<std::string> hardware_cache_event_names() {
  std::vector<std::string> names;
  for (std::size_t cache = 0; cache < kCaches.size(); ++cache) {
    for (std::size_t op = 0; op < kOps.size(); ++op) {
      if (!((kValidOps[cache] >> op) & 1U)) continue;
      std::string cache_name(kCaches[cache].names[0]);
      names.push_back(cache_name + "-" + std::string(kOps[op].names[1]));
      names.push_back(cache_name + "-" + std::string(kOps[op].names[0]) + "-misses");
    }
  }
  return names;
}

}  // namespace perfmon::events
