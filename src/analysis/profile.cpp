#include "perfmon/profile.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <tuple>

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

std::size_t Profile::PlaceHash::operator()(const Place& place) const noexcept {
  return mix(place.address, static_cast<std::uint64_t>(place.pid) << 1 | place.kernel);
}

std::size_t Profile::EntryKeyHash::operator()(const EntryKey& key) const noexcept {
  return mix(static_cast<std::uint64_t>(key.command) << 32 | key.dso,
             (static_cast<std::uint64_t>(key.symbol) << 32 | key.source) << 1 | key.kernel);
}

Profile::Profile(const std::vector<std::string>& event_names, ProfileOptions options)
    : options_(options), states_(event_names.size()), symbolizer_(options_.debug_root) {
  intern("");  // NameId 0: the root, and nothing
  for (const std::string& name : event_names) {
    EventProfile event;
    event.name = name;
    event.stacks.emplace_back();
    events_.push_back(std::move(event));
  }
}

Profile::~Profile() = default;

bool Profile::unwind_user_stacks(std::size_t event, std::uint64_t sample_regs_user) {
  return event < events_.size() && symbolizer_.unwind_user_stacks(event, sample_regs_user);
}

NameId Profile::intern(std::string_view text) {
  if (auto found = name_ids_.find(text); found != name_ids_.end()) return found->second;
  const NameId id = static_cast<NameId>(names_.size());
  name_ids_.emplace(names_.emplace_back(text), id);
  return id;
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
        // COMM's and FORK's thread may be named anew (FORK's tid field follows where COMM's does not).
        command_ids_.erase(task->tid);
        if (const auto* fork = record_as<TaskRecord>(&header); fork && header.type == PERF_RECORD_FORK)
          command_ids_.erase(fork->tid);
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
  symbolizer_.record(header);
}

Profile::Frame Profile::resolve(std::uint32_t pid, std::uint64_t address, bool kernel) {
  const NamedAddress named = symbolizer_.name(pid, address, kernel);
  Frame frame;
  frame.kernel = named.kernel;
  frame.dso = intern(named.place.file);
  if (named.function != nullptr) {
    frame.symbol = frame.label = intern(*named.function);
  } else {
    frame.symbol = intern(hex_address(named.place.offset));
    const std::string file = dso_short_name(named.place.file);
    frame.label = intern(file.starts_with('[') ? file : "[" + file + "]");
  }
  if (!options_.inlined_frames && !options_.source_lines) return frame;
  const bool described = symbolizer_.source(named, source_);
  if (options_.source_lines) frame.source = intern(source_line_text(named, described ? &source_ : nullptr));
  if (options_.inlined_frames && described) {
    frame.inlined_at = static_cast<std::uint32_t>(inlined_labels_.size());
    frame.inlined_count = static_cast<std::uint32_t>(source_.inlined.size());
    for (const std::string& inlined : source_.inlined) inlined_labels_.push_back(intern(inlined + " (inlined)"));
  }
  return frame;
}

const Profile::Frame& Profile::frame(std::uint32_t pid, std::uint64_t address, bool kernel, std::uint64_t generation) {
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

NameId Profile::command_of(std::uint32_t tid) {
  auto [cached, added] = command_ids_.try_emplace(tid, 0);
  if (added) {
    const std::string& name = symbolizer_.spaces().command(tid);
    cached->second = intern(name.empty() ? ":" + std::to_string(tid) : name);
  }
  return cached->second;
}

std::pair<std::uint32_t, std::uint32_t> Profile::place_stack(std::size_t event, const Sample& sample,
                                                             std::span<const std::uint64_t> callchain, NameId command,
                                                             bool kernel_leaf, std::uint64_t generation) {
  // The frames, leaf first: the callchain where there is one (its PERF_CONTEXT_* words say whose
  // addresses follow), else the sampled address alone. A caller's address is a return address:
  // one byte back lies inside the call, so a call that ends its function is not charged to the next.
  stack_.clear();
  Symbolizer::for_each_frame(callchain, kernel_leaf, [&](std::uint64_t address, bool kernel) {
    stack_.push_back(frame(sample.pid, stack_.empty() ? address : address - 1, kernel, generation));
  });
  if (stack_.empty()) stack_.push_back(frame(sample.pid, sample.ip, kernel_leaf, generation));

  EventProfile& profile = events_[event];
  const std::uint32_t entry = entry_of(event, command, stack_.front());
  // Root first: each function, then what is inlined in it from the outermost in.
  std::uint32_t node = child(event, 0, command, false);
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
    node = child(event, node, it->label, it->kernel);
    for (std::uint32_t k = it->inlined_count; k-- > 0;)
      node = child(event, node, inlined_labels_[it->inlined_at + k], it->kernel);
  }
  profile.stacks[node].entry = entry;
  return {node, entry};
}

std::uint32_t Profile::entry_of(std::size_t event, NameId command, const Frame& leaf) {
  std::vector<ProfileEntry>& entries = events_[event].entries;
  const EntryKey key{command, leaf.dso, leaf.symbol, leaf.source, leaf.kernel};
  auto [found, added] = states_[event].entry_of.try_emplace(key, static_cast<std::uint32_t>(entries.size()));
  if (added) entries.push_back({command, leaf.dso, leaf.symbol, leaf.source, leaf.kernel, 0, 0});
  return found->second;
}

std::uint32_t Profile::leaf_entry(std::size_t event, const Sample& sample, NameId command, bool kernel_leaf,
                                  std::uint64_t generation) {
  // The leaf as a stack's first frame: the recorded callchain's first address (nothing needs
  // unwinding: the user part of one starts at the sampled address), else the sampled address.
  std::uint64_t address = sample.ip;
  bool kernel = kernel_leaf;
  Symbolizer::for_each_frame(sample.callchain, kernel_leaf, [&](std::uint64_t at, bool in_kernel) {
    address = at;
    kernel = in_kernel;
    return false;  // the first frame is all
  });
  return entry_of(event, command, frame(sample.pid, address, kernel, generation));
}

void Profile::sample(std::size_t event, const Sample& sample) {
  if (event >= events_.size()) return;
  const std::uint64_t period = sample.period != 0 ? sample.period : 1;
  const bool kernel_leaf =
      sample.record != nullptr && (sample.record->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
  const NameId command = command_of(sample.tid);
  const std::uint64_t generation = generation_[sample.pid] + kernel_generation_;  // both only grow
  EventProfile& profile = events_[event];
  if (!options_.stacks) {
    ProfileEntry& entry = profile.entries[leaf_entry(event, sample, command, kernel_leaf, generation)];
    entry.samples += 1;
    entry.period += period;
    profile.samples += 1;
    profile.period += period;
    return;
  }

  // A stack seen before (the same words, process, command and event) ends at the same node: most
  // samples are found here, with one hash of their words and no frame resolved again.
  const std::span<const std::uint64_t> callchain = symbolizer_.callchain(event, sample);
  const std::span<const std::uint64_t> words =
      callchain.empty() ? std::span<const std::uint64_t>(&sample.ip, 1) : callchain;
  std::uint64_t hash =
      mix(event, static_cast<std::uint64_t>(sample.pid) << 33 | std::uint64_t{command} << 1 | kernel_leaf);
  for (std::uint64_t word : words) hash = mix(hash, word);
  auto [first, added] = first_seen_.try_emplace(hash, kNone);
  std::uint32_t at = first->second;
  for (; at != kNone; at = seen_[at].next) {
    const SeenStack& seen = seen_[at];
    if (seen.event == event && seen.pid == sample.pid && seen.command == command && seen.kernel_leaf == kernel_leaf &&
        seen.words_count == words.size() && std::equal(words.begin(), words.end(), seen_words_.begin() + seen.words_at))
      break;
  }
  if (at == kNone) {
    at = static_cast<std::uint32_t>(seen_.size());
    seen_.push_back({event, sample.pid, command, kernel_leaf, seen_words_.size(), words.size(), generation - 1, 0, 0,
                     first->second});
    seen_words_.insert(seen_words_.end(), words.begin(), words.end());
    first->second = at;
  }
  if (seen_[at].generation != generation) {
    std::tie(seen_[at].leaf, seen_[at].entry) = place_stack(event, sample, callchain, command, kernel_leaf, generation);
    seen_[at].generation = generation;
  }

  profile.samples += 1;
  profile.period += period;
  ProfileEntry& entry = profile.entries[seen_[at].entry];
  entry.samples += 1;
  entry.period += period;
  const std::uint32_t leaf = seen_[at].leaf;
  profile.stacks[leaf].self_samples += 1;
  profile.stacks[leaf].self_period += period;
  for (std::uint32_t node = leaf;; node = profile.stacks[node].parent) {
    profile.stacks[node].samples += 1;
    profile.stacks[node].period += period;
    if (node == 0) break;
  }
}

}  // namespace perfmon
