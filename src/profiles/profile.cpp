// SPDX-License-Identifier: Apache-2.0
#include "perfmon/profile.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "kernel/records.hpp"
#include "perfmon/symbolizer.hpp"
#include "profiles/chunked_vector.hpp"
#include "profiles/entry_key.hpp"
#include "profiles/flat_index.hpp"
#include "profiles/name_table.hpp"
#include "profiles/recorded_processes.hpp"

namespace perfmon {

namespace {

using analysis::EntryKey;
using analysis::EntryKeyHash;
using analysis::FlatIndex;
using analysis::mix_words;
using analysis::NameTable;
using analysis::WordHash;

constexpr std::uint32_t kNone = 0xffffffff;

std::string hex_address(std::uint64_t address) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016" PRIx64, address);
  return text;
}

}  // namespace

struct Profile::State {
  // One per distinct address of a profile (hundreds of thousands): laid out to take 32 bytes.
  struct Frame {
    NameId dso = 0, symbol = 0, label = 0, source = 0;
    std::uint32_t inlined_at = 0;  // labels in inlined_labels, innermost first
    std::uint16_t inlined_count = 0;
    bool kernel = false;
    // An unnamed address's symbol ("0x…", its offset in the file) is made when the frame first
    // ends a stack: most unnamed addresses of a stripped program are only ever callers.
    std::uint64_t offset = 0;
  };
  static_assert(sizeof(Frame) == 32);
  static constexpr NameId kSymbolDue = 0xffffffff;
  struct CachedFrame {
    Frame frame;
    // Of RecordedProcesses::generation_of, whose low half tells generations apart: the mappings of
    // a process change fewer than 2^32 times in any file.
    std::uint32_t generation = 0;
  };
  // A frame as a callchain gives it: where, and whether in the kernel.
  struct RawFrame {
    std::uint64_t address;
    bool kernel;
    bool operator==(const RawFrame&) const = default;
  };
  // The last stack placed, by event: the next one of its process and command that shares its root
  // side (a thread sampled again is mostly where it was) takes those nodes, resolving only the
  // frames that differ.
  struct LastStack {
    std::uint32_t pid = 0;
    NameId command = kNone;
    std::uint64_t generation = 0;
    std::vector<RawFrame> frames;      // leaf first
    std::vector<std::uint32_t> nodes;  // root first: [d] is the node after the outermost d frames
  };
  struct EventTables {
    FlatIndex<EntryKey, EntryKeyHash> entry_of;
    FlatIndex<std::uint64_t, WordHash> child_of;  // (parent << 32 | name) -> node
    FlatIndex<std::uint64_t, WordHash> end_of;    // (node << 32 | entry) -> its StackEnd
  };
  State(const std::vector<std::string>& event_names, const ProfileOptions& profile_options,
        std::shared_ptr<SymbolTables> symbols)
      : options(profile_options),
        tables(event_names.size()),
        symbolizer(symbols ? std::move(symbols) : std::make_shared<SymbolTables>(options.debug_root)) {
    names.intern("");  // NameId 0: the root, and nothing
    last_stacks.resize(event_names.size());
    for (const std::string& name : event_names) {
      EventProfile event;
      event.name = name;
      event.stacks.emplace_back();
      events.push_back(std::move(event));
    }
  }

  void place(const perf_event_header& record);
  Frame resolve(std::uint32_t pid, std::uint64_t address, bool kernel);
  // The frame's index in `frames`.
  std::uint32_t frame(std::uint32_t pid, std::uint64_t address, bool kernel, std::uint64_t generation);
  std::uint32_t entry_at(std::size_t event, NameId command, std::uint32_t leaf_frame);
  std::uint32_t child(std::size_t event, std::uint32_t parent, NameId name, bool kernel, NameId dso,
                      bool inlined = false);
  std::uint32_t entry_of(std::size_t event, const EntryKey& key);
  std::uint32_t end_of(std::size_t event, std::uint32_t node, std::uint32_t entry);
  // Resolves a sample's frames into the tree: where its stack ends.
  std::uint32_t place_stack(std::size_t event, const Sample& sample, std::span<const std::uint64_t> callchain,
                            NameId command, bool kernel_leaf, std::uint64_t generation);
  // Without stacks: the sample's entry, from its leaf alone.
  std::uint32_t leaf_entry(std::size_t event, const Sample& sample, NameId command, bool kernel_leaf,
                           std::uint64_t generation);
  void add_totals();
  // Lets go of what only placing more samples looks up: each address's frame and the names of the
  // symbol tables' places. A sample after it resolves its addresses again.
  void forget_addresses() {
    frame_of = {};
    frames = {};
    inlined_labels = std::vector<NameId>();
    kept_names = {};
    file_labels = {};
  }
  // "command-tid", made once per thread and command.
  NameId thread_root(std::uint32_t tid, NameId command) {
    auto [found, added] = thread_names.try_emplace(std::uint64_t{tid} << 32 | command, 0);
    if (added) *found = names.intern(label.assign(names[command]).append("-").append(std::to_string(tid)));
    return *found;
  }

  ProfileOptions options;
  std::vector<EventProfile> events;
  std::vector<EventTables> tables;
  NameTable names;
  Symbolizer symbolizer;
  std::vector<NameId> inlined_labels;  // of the frames resolved so far
  // Names the symbol and DWARF tables keep, by their place there: a function's -> its id, an
  // inlined function's -> its label's ("f (inlined)").
  FlatIndex<std::uintptr_t, WordHash> kept_names;
  FlatIndex<std::uint64_t, WordHash> file_labels;   // a file's name id -> its "[file]"
  FlatIndex<std::uint64_t, WordHash> thread_names;  // (tid << 32 | command) -> "command-tid"
  struct {
    std::string text;  // "" is NameId 0
    NameId id = 0;
  } last_file;  // of resolve()
  FlatIndex<analysis::ProcessAddress, analysis::ProcessAddressHash> frame_of;
  analysis::ChunkedVector<CachedFrame> frames;
  analysis::RecordedProcesses processes;
  RecordLoss lost;
  // Nodes' samples and period through them are summed from their self figures when asked for:
  // once per node, not once per sample and frame.
  bool totals_due = false;
  std::vector<LastStack> last_stacks;  // by event
  std::vector<RawFrame> stack;         // the sample at hand's frames, leaf first
  std::string label;                   // scratch of resolve()
};

Profile::Profile(const std::vector<std::string>& event_names, ProfileOptions options)
    : Profile(event_names, std::move(options), nullptr) {}

Profile::Profile(const std::vector<std::string>& event_names, ProfileOptions options,
                 std::shared_ptr<SymbolTables> symbols)
    : state_(std::make_unique<State>(event_names, options, std::move(symbols))) {}

Profile::~Profile() = default;

bool Profile::unwind_user_stacks(std::size_t event, std::uint64_t sample_regs_user) {
  return event < state_->events.size() && state_->symbolizer.unwind_user_stacks(event, sample_regs_user);
}

std::string_view Profile::name(NameId id) const noexcept {
  return state_->names[id];
}

const RecordLoss& Profile::lost() const noexcept {
  return state_->lost;
}

const std::vector<EventProfile>& Profile::events() const {
  if (state_->totals_due) state_->add_totals();
  return state_->events;
}

void Profile::State::add_totals() {
  for (EventProfile& event : events) {
    for (StackNode& node : event.stacks) {
      node.samples = node.self_samples;
      node.period = node.self_period;
    }
    // A parent comes before its children: from the last node back, each has all of its own by the
    // time it is added to its parent's.
    for (std::size_t n = event.stacks.size(); n-- > 1;) {
      StackNode& parent = event.stacks[event.stacks[n].parent];
      parent.samples += event.stacks[n].samples;
      parent.period += event.stacks[n].period;
    }
  }
  totals_due = false;
}

void Profile::State::place(const perf_event_header& header) {
  processes.record(header);
  symbolizer.record(header);
}

void Profile::record(const perf_event_header& header) {
  state_->lost.add(header);
  state_->place(header);
}

void Profile::context(const perf_event_header& header) {
  state_->place(header);
}

Profile::State::Frame Profile::State::resolve(std::uint32_t pid, std::uint64_t address, bool kernel) {
  const NamedAddress named = symbolizer.name(pid, address, kernel);
  Frame frame;
  frame.kernel = named.kernel;
  // Most addresses resolved one after another lie in the file of the one before.
  if (named.place.file != last_file.text) {
    last_file.text = named.place.file;
    last_file.id = names.intern(named.place.file);
  }
  frame.dso = last_file.id;
  if (named.function != nullptr) {
    // A function's name is kept by the symbol tables as long as this profile: known by its place.
    auto [known, added] = kept_names.try_emplace(reinterpret_cast<std::uintptr_t>(named.function), 0);
    if (added) *known = names.intern(*named.function);
    frame.symbol = frame.label = *known;
  } else {
    frame.symbol = kSymbolDue;
    frame.offset = named.place.offset;
    // "[file]", the label of a file's unnamed frames: made once per file.
    auto [label_of_file, added] = file_labels.try_emplace(frame.dso, 0);
    if (added) {
      const std::string file = dso_short_name(named.place.file);
      *label_of_file = names.intern(file.starts_with('[') ? file : "[" + file + "]");
    }
    frame.label = *label_of_file;
  }
  if (!options.inlined_frames && !options.source_lines) return frame;
  const SourcePlace* described = symbolizer.source(named);
  if (options.source_lines) frame.source = names.intern(source_line_text(named, described));
  if (options.inlined_frames && described != nullptr) {
    frame.inlined_at = static_cast<std::uint32_t>(inlined_labels.size());
    frame.inlined_count = static_cast<std::uint16_t>(std::min<std::size_t>(described->inlined.size(), 0xffff));
    // The tables keep what DWARF said: each inlined function's label is made once per name kept.
    for (const std::string& inlined : described->inlined) {
      auto [known, added] = kept_names.try_emplace(reinterpret_cast<std::uintptr_t>(&inlined), 0);
      if (added) *known = names.intern(label.assign(inlined).append(" (inlined)"));
      inlined_labels.push_back(*known);
    }
  }
  return frame;
}

std::uint32_t Profile::State::frame(std::uint32_t pid, std::uint64_t address, bool kernel, std::uint64_t generation) {
  auto [cached, added] =
      frame_of.try_emplace(analysis::ProcessAddress{pid, kernel, address}, static_cast<std::uint32_t>(frames.size()));
  if (added) {
    frames.push_back({resolve(pid, address, kernel), static_cast<std::uint32_t>(generation)});
  } else if (CachedFrame& known = frames[*cached]; known.generation != static_cast<std::uint32_t>(generation)) {
    known = {resolve(pid, address, kernel), static_cast<std::uint32_t>(generation)};
  }
  return *cached;
}

std::uint32_t Profile::State::child(std::size_t event, std::uint32_t parent, NameId name, bool kernel, NameId dso,
                                    bool inlined) {
  std::vector<StackNode>& stacks = events[event].stacks;
  auto [found, added] =
      tables[event].child_of.try_emplace(std::uint64_t{parent} << 32 | name, static_cast<std::uint32_t>(stacks.size()));
  if (added) {
    StackNode node;
    node.name = name;
    node.parent = parent;
    node.kernel = kernel;
    node.dso = dso;
    node.inlined = inlined;
    stacks.push_back(node);
  }
  return *found;
}

std::uint32_t Profile::State::entry_of(std::size_t event, const EntryKey& key) {
  std::vector<ProfileEntry>& entries = events[event].entries;
  auto [found, added] = tables[event].entry_of.try_emplace(key, static_cast<std::uint32_t>(entries.size()));
  if (added) entries.push_back({key.command, key.dso, key.symbol, key.source, key.kernel, 0, 0});
  return *found;
}

std::uint32_t Profile::State::entry_at(std::size_t event, NameId command, std::uint32_t leaf_frame) {
  Frame& leaf = frames[leaf_frame].frame;
  if (leaf.symbol == kSymbolDue) leaf.symbol = names.intern(hex_address(leaf.offset));
  return entry_of(event, {command, leaf.dso, leaf.symbol, leaf.source, leaf.kernel});
}

std::uint32_t Profile::State::place_stack(std::size_t event, const Sample& sample,
                                          std::span<const std::uint64_t> callchain, NameId command, bool kernel_leaf,
                                          std::uint64_t generation) {
  // The frames, leaf first: the callchain where there is one (its PERF_CONTEXT_* words say whose
  // addresses follow), else the sampled address alone. A caller's address is a return address:
  // one byte back lies inside the call, so a call that ends its function is not charged to the next.
  stack.clear();
  Symbolizer::for_each_frame(callchain, kernel_leaf, [&](std::uint64_t address, bool kernel) {
    stack.push_back({stack.empty() ? address : address - 1, kernel});
  });
  if (stack.empty()) stack.push_back({sample.ip, kernel_leaf});

  // The root side this stack shares with the last one placed, if that was of the same process,
  // command and mappings: its frames lead to the same nodes.
  LastStack& last = last_stacks[event];
  std::size_t shared = 0;
  if (last.pid == sample.pid && last.command == command && last.generation == generation) {
    const std::size_t most = std::min(stack.size(), last.frames.size());
    while (shared < most && stack[stack.size() - 1 - shared] == last.frames[last.frames.size() - 1 - shared]) ++shared;
  }
  if (shared == 0) {
    last.nodes.assign(1, child(event, 0, command, false, 0));
  } else {
    last.nodes.resize(shared + 1);
  }
  // Root first: each function, then what is inlined in it from the outermost in.
  std::uint32_t node = last.nodes.back();
  std::uint32_t leaf = kNone;
  for (std::size_t depth = shared; depth < stack.size(); ++depth) {
    const RawFrame& raw = stack[stack.size() - 1 - depth];
    leaf = frame(sample.pid, raw.address, raw.kernel, generation);
    const Frame& resolved = frames[leaf].frame;
    node = child(event, node, resolved.label, resolved.kernel, resolved.dso);
    for (std::uint32_t k = resolved.inlined_count; k-- > 0;)
      node = child(event, node, inlined_labels[resolved.inlined_at + k], resolved.kernel, resolved.dso, true);
    last.nodes.push_back(node);
  }
  if (leaf == kNone) leaf = frame(sample.pid, stack.front().address, stack.front().kernel, generation);
  last.pid = sample.pid;
  last.command = command;
  last.generation = generation;
  last.frames.swap(stack);
  return end_of(event, node, entry_at(event, command, leaf));
}

std::uint32_t Profile::State::end_of(std::size_t event, std::uint32_t node, std::uint32_t entry) {
  std::vector<StackEnd>& ends = events[event].ends;
  auto [found, added] =
      tables[event].end_of.try_emplace(std::uint64_t{node} << 32 | entry, static_cast<std::uint32_t>(ends.size()));
  if (added) ends.push_back({node, entry, 0, 0});
  return *found;
}

std::uint32_t Profile::State::leaf_entry(std::size_t event, const Sample& sample, NameId command, bool kernel_leaf,
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
  return entry_at(event, command, frame(sample.pid, address, kernel, generation));
}

void Profile::sample(std::size_t event, const Sample& sample) {
  State& s = *state_;
  if (event >= s.events.size()) return;
  const std::uint64_t period = sample.period != 0 ? sample.period : 1;
  const bool kernel_leaf =
      sample.record != nullptr && (sample.record->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
  NameId command = s.processes.command_of(sample.tid, s.symbolizer.spaces(), s.names);
  if (s.options.thread_roots) command = s.thread_root(sample.tid, command);
  const std::uint64_t generation = s.processes.generation_of(sample.pid);
  EventProfile& profile = s.events[event];
  profile.samples += 1;
  profile.period += period;
  if (!s.options.stacks) {
    ProfileEntry& entry = profile.entries[s.leaf_entry(event, sample, command, kernel_leaf, generation)];
    entry.samples += 1;
    entry.period += period;
    return;
  }
  StackEnd& end =
      profile
          .ends[s.place_stack(event, sample, s.symbolizer.callchain(event, sample), command, kernel_leaf, generation)];
  end.samples += 1;
  end.period += period;
  profile.entries[end.entry].samples += 1;
  profile.entries[end.entry].period += period;
  profile.stacks[end.node].self_samples += 1;
  profile.stacks[end.node].self_period += period;
  s.totals_due = true;
}

void Profile::merge(Profile&& later) {
  State& s = *state_;
  State& other = *later.state_;
  s.forget_addresses();
  other.forget_addresses();
  // Its names as this profile's: those new here follow in the order it met them, as they would
  // have had this profile read on.
  std::vector<NameId> names(other.names.size());
  for (NameId id = 0; id < names.size(); ++id) names[id] = s.names.intern(other.names[id]);
  for (std::size_t e = 0; e < s.events.size() && e < other.events.size(); ++e) {
    EventProfile& to = s.events[e];
    const EventProfile& from = other.events[e];
    to.samples += from.samples;
    to.period += from.period;
    std::vector<std::uint32_t> entries(from.entries.size());
    for (std::size_t i = 0; i < from.entries.size(); ++i) {
      const ProfileEntry& entry = from.entries[i];
      entries[i] = s.entry_of(
          e, {names[entry.command], names[entry.dso], names[entry.symbol], names[entry.source], entry.kernel});
      to.entries[entries[i]].samples += entry.samples;
      to.entries[entries[i]].period += entry.period;
    }
    // Parents come before children there as here: each node's parent is placed before it.
    std::vector<std::uint32_t> nodes(from.stacks.size(), 0);
    for (std::size_t n = 1; n < from.stacks.size(); ++n) {
      const StackNode& node = from.stacks[n];
      nodes[n] = s.child(e, nodes[node.parent], names[node.name], node.kernel, names[node.dso], node.inlined);
      to.stacks[nodes[n]].self_samples += node.self_samples;
      to.stacks[nodes[n]].self_period += node.self_period;
    }
    for (const StackEnd& end : from.ends) {
      StackEnd& into = to.ends[s.end_of(e, nodes[end.node], entries[end.entry])];
      into.samples += end.samples;
      into.period += end.period;
    }
    s.totals_due = true;
  }
  s.lost += other.lost;
}

}  // namespace perfmon
