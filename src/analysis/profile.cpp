#include "perfmon/profile.hpp"

#include <cinttypes>
#include <cstdio>

#include "kernel/records.hpp"

namespace perfmon {

namespace {

std::string hex_address(std::uint64_t address) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016" PRIx64, address);
  return text;
}

std::size_t mix(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x7f4a7c159e3779b9ULL + (a << 6) + (a >> 2));
  h ^= h >> 29;
  return static_cast<std::size_t>(h * 0xbf58476d1ce4e5b9ULL);
}

}  // namespace

std::string dso_short_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos || path.starts_with('[') ? path : path.substr(slash + 1);
}

std::size_t Profile::PlaceHash::operator()(const Place& place) const noexcept {
  return mix(place.address, static_cast<std::uint64_t>(place.pid) << 1 | place.kernel);
}

std::size_t Profile::EntryKeyHash::operator()(const EntryKey& key) const noexcept {
  return mix(static_cast<std::uint64_t>(key.command) << 32 | key.dso,
             static_cast<std::uint64_t>(key.symbol) << 1 | key.kernel);
}

Profile::Profile(const std::vector<std::string>& event_names) : states_(event_names.size()) {
  intern("");  // NameId 0: the root, and nothing
  for (const std::string& name : event_names) {
    EventProfile event;
    event.name = name;
    event.stacks.emplace_back();
    events_.push_back(std::move(event));
  }
}

NameId Profile::intern(const std::string& text) {
  auto [found, added] = name_ids_.try_emplace(text, static_cast<NameId>(names_.size()));
  if (added) names_.push_back(text);
  return found->second;
}

void Profile::record(const perf_event_header& header) {
  using namespace kernel;
  switch (header.type) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
    case PERF_RECORD_COMM:
    case PERF_RECORD_FORK:
      // Each of these begins with the pid whose addresses it changes.
      if (const auto* task = record_as<CommRecord>(&header)) {
        ++generation_[task->pid];
        if (header.type == PERF_RECORD_MMAP && (header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
          ++kernel_generation_;
      }
      break;
    case PERF_RECORD_LOST:
      if (const auto* lost = record_as<LostRecord>(&header)) lost_ += lost->lost;
      break;
    case PERF_RECORD_LOST_SAMPLES:
      if (const auto* lost = record_as<LostSamplesRecord>(&header)) lost_ += lost->lost;
      break;
    default:
      break;
  }
  spaces_.record(header);
}

Profile::Frame Profile::resolve(std::uint32_t pid, std::uint64_t address, bool kernel) {
  const PlacedAddress where = spaces_.place(pid, address);
  Frame frame;
  frame.kernel = kernel || where.file == "[kernel.kallsyms]";
  frame.dso = intern(where.file);
  std::uint64_t into = 0;
  const std::string* function = where.file == "[kernel.kallsyms]" ? symbols_.function_in_kernel(address, into)
                                : where.file.front() == '/' ? symbols_.function_in_file(where.file, where.offset, into)
                                                            : nullptr;
  if (function != nullptr) {
    frame.symbol = frame.label = intern(*function);
  } else {
    frame.symbol = intern(hex_address(where.offset));
    const std::string file = dso_short_name(where.file);
    frame.label = intern(file.starts_with('[') ? file : "[" + file + "]");
  }
  return frame;
}

const Profile::Frame& Profile::frame(std::uint32_t pid, std::uint64_t address, bool kernel) {
  const std::uint64_t generation = generation_[pid] + kernel_generation_;  // both only grow
  auto [cached, added] = frames_.try_emplace(Place{pid, address, kernel});
  if (added || cached->second.generation != generation) cached->second = {generation, resolve(pid, address, kernel)};
  return cached->second.frame;
}

std::uint32_t Profile::child(std::size_t event, std::uint32_t parent, NameId name, bool kernel) {
  std::vector<StackNode>& stacks = events_[event].stacks;
  auto [found, added] = states_[event].child_of.try_emplace(static_cast<std::uint64_t>(parent) << 32 | name,
                                                            static_cast<std::uint32_t>(stacks.size()));
  if (added) {
    StackNode node;
    node.name = name;
    node.parent = parent;
    node.kernel = kernel;
    stacks.push_back(node);
  }
  return found->second;
}

void Profile::sample(std::size_t event, const Sample& sample) {
  if (event >= events_.size()) return;
  const std::uint64_t period = sample.period != 0 ? sample.period : 1;
  const bool kernel_leaf =
      sample.record != nullptr && (sample.record->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

  // The frames, leaf first: the callchain where there is one (its PERF_CONTEXT_* words say whose
  // addresses follow), else the sampled address alone. A caller's address is a return address:
  // one byte back lies inside the call, so a call that ends its function is not charged to the next.
  stack_.clear();
  if (sample.callchain.empty()) {
    stack_.push_back(frame(sample.pid, sample.ip, kernel_leaf));
  } else {
    bool kernel = kernel_leaf;
    for (std::uint64_t address : sample.callchain) {
      if (address >= PERF_CONTEXT_MAX) {
        kernel = address == PERF_CONTEXT_KERNEL || address == PERF_CONTEXT_HV;
        continue;
      }
      stack_.push_back(frame(sample.pid, stack_.empty() ? address : address - 1, kernel));
    }
    if (stack_.empty()) stack_.push_back(frame(sample.pid, sample.ip, kernel_leaf));
  }

  EventProfile& profile = events_[event];
  profile.samples += 1;
  profile.period += period;
  const Frame& leaf = stack_.front();
  const NameId command =
      intern(spaces_.command(sample.tid).empty() ? ":" + std::to_string(sample.tid) : spaces_.command(sample.tid));
  const EntryKey key{command, leaf.dso, leaf.symbol, leaf.kernel};
  auto [found, added] = states_[event].entry_of.try_emplace(key, static_cast<std::uint32_t>(profile.entries.size()));
  if (added) profile.entries.push_back({command, leaf.dso, leaf.symbol, leaf.kernel, 0, 0});
  ProfileEntry& entry = profile.entries[found->second];
  entry.samples += 1;
  entry.period += period;

  std::uint32_t node = child(event, 0, command, false);
  auto charge = [&](std::uint32_t at) {
    profile.stacks[at].samples += 1;
    profile.stacks[at].period += period;
  };
  charge(0);
  charge(node);
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
    node = child(event, node, it->label, it->kernel);
    charge(node);
  }
  profile.stacks[node].self_samples += 1;
  profile.stacks[node].self_period += period;
  profile.stacks[node].entry = found->second;
}

}  // namespace perfmon
