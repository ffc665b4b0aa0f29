// perfmon: a recording summed up as perf report sums it. Each sample's period is charged to its
// command, file (dso) and function, per event; its call stack (or its address alone, without one)
// is merged into a tree rooted at the command. Memory grows with the distinct addresses and stacks,
// not with the samples: a file of millions of samples costs what its few thousand places cost.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "perfmon/sampler.hpp"
#include "perfmon/symbolizer.hpp"

namespace perfmon {

// Names are kept once and referred to by index (Profile::name).
using NameId = std::uint32_t;

// Where samples landed: a command, a file and a function, with what they weigh.
struct ProfileEntry {
  NameId command = 0, dso = 0, symbol = 0;  // symbol: the function, or its address as perf prints it
  NameId source = 0;                        // "file.c:12" (perf's srcline), with ProfileOptions::source_lines
  bool kernel = false;                      // perf's [k] (else [.])
  std::uint64_t samples = 0, period = 0;
};

// One frame of the merged call stacks. Node 0 is the root; its children are commands, theirs the
// outermost frames, down to the leaves.
struct StackNode {
  NameId name = 0;  // the function, "f (inlined)" for one inlined there, or "[file]" where it has no name
  std::uint32_t parent = 0;
  bool kernel = false;
  std::uint64_t samples = 0, period = 0;            // of the stacks through this frame
  std::uint64_t self_samples = 0, self_period = 0;  // of the stacks that end here
  std::uint32_t entry = 0;                          // with self_period: the entry those samples were charged to
};

struct EventProfile {
  std::string name;
  std::uint64_t samples = 0, period = 0;
  std::vector<ProfileEntry> entries;  // in the order first seen
  std::vector<StackNode> stacks;      // [0] is the root; a parent comes before its children
};

// What a profile looks up beyond the functions of the symbol tables, in each file's DWARF (libdw):
// both cost the time to read the debug information of the files that samples touch.
struct ProfileOptions {
  // Merge the call stacks into EventProfile::stacks. Without, only the entries are summed (what
  // perf report's table shows without -g): each sample costs its leaf's look-up, no stack is
  // resolved or unwound, and `stacks` holds the root alone.
  bool stacks = true;
  bool inlined_frames = false;                // the functions inlined at each frame join the stacks, as "f (inlined)"
  bool source_lines = false;                  // each entry is split by the source line of its sampled address
  std::string debug_root = "/usr/lib/debug";  // where separate debug files are looked for
};

class Profile : public SampleHandler {
 public:
  explicit Profile(const std::vector<std::string>& event_names, ProfileOptions options = {});
  ~Profile() override;
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  // Samples of `event` carry user registers and a copy of the user stack (perf record
  // --call-graph dwarf; `sample_regs_user` is the event's attr field): their user frames are
  // unwound from them by the files' CFI, with libdw. Returns false where this build cannot unwind
  // (built without libdw, or another architecture): those samples then show their kernel frames
  // and sampled address only.
  bool unwind_user_stacks(std::size_t event, std::uint64_t sample_regs_user);

  // A sample's period is sample.period (a reader fills it in from the attr when the sample has no
  // PERF_SAMPLE_PERIOD), or 1 where that is 0.
  void sample(std::size_t event, const Sample& sample) override;
  // COMM, MMAP, MMAP2, FORK place later samples; LOST and LOST_SAMPLES are counted.
  void record(const perf_event_header& record) override;

  const std::vector<EventProfile>& events() const noexcept { return events_; }
  const std::string& name(NameId id) const noexcept { return names_[id]; }
  // Samples the kernel dropped (PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES), all events.
  std::uint64_t lost_samples() const noexcept { return lost_; }

 private:
  struct Frame {
    NameId dso = 0, symbol = 0, label = 0, source = 0;
    bool kernel = false;
    std::uint32_t inlined_at = 0, inlined_count = 0;  // labels in inlined_labels_, innermost first
  };
  struct Place {
    std::uint32_t pid;
    std::uint64_t address;
    bool kernel;
    bool operator==(const Place&) const = default;
  };
  struct PlaceHash {
    std::size_t operator()(const Place& place) const noexcept;
  };
  struct CachedFrame {
    std::uint64_t generation;
    Frame frame;
  };
  struct EntryKey {
    NameId command, dso, symbol, source;
    bool kernel;
    bool operator==(const EntryKey&) const = default;
  };
  struct EntryKeyHash {
    std::size_t operator()(const EntryKey& key) const noexcept;
  };
  struct EventState {
    std::unordered_map<EntryKey, std::uint32_t, EntryKeyHash> entry_of;
    std::unordered_map<std::uint64_t, std::uint32_t> child_of;  // (parent << 32 | name) -> node
  };

  // A stack seen before: where it ends (valid while `generation` is its process's).
  struct SeenStack {
    std::size_t event;
    std::uint32_t pid;
    NameId command;
    bool kernel_leaf;
    std::size_t words_at, words_count;  // in seen_words_
    std::uint64_t generation;
    std::uint32_t leaf, entry;
    std::uint32_t next;  // the next stack of the same hash, or kNone
  };
  static constexpr std::uint32_t kNone = 0xffffffff;

  NameId intern(std::string_view text);
  NameId command_of(std::uint32_t tid);
  // Resolves a sample's frames into the tree: its leaf node and its entry.
  std::pair<std::uint32_t, std::uint32_t> place_stack(std::size_t event, const Sample& sample,
                                                      std::span<const std::uint64_t> callchain, NameId command,
                                                      bool kernel_leaf, std::uint64_t generation);
  const Frame& frame(std::uint32_t pid, std::uint64_t address, bool kernel, std::uint64_t generation);
  Frame resolve(std::uint32_t pid, std::uint64_t address, bool kernel);
  std::uint32_t child(std::size_t event, std::uint32_t parent, NameId name, bool kernel);
  // Without stacks: the sample's entry, from its leaf alone.
  std::uint32_t leaf_entry(std::size_t event, const Sample& sample, NameId command, bool kernel_leaf,
                           std::uint64_t generation);
  std::uint32_t entry_of(std::size_t event, NameId command, const Frame& leaf);

  ProfileOptions options_;
  std::vector<EventProfile> events_;
  std::vector<EventState> states_;
  // Each name once: kept where it stays (a deque does not move its elements), and looked up by a
  // view of it.
  std::deque<std::string> names_;
  std::unordered_map<std::string_view, NameId> name_ids_;
  Symbolizer symbolizer_;
  std::vector<NameId> inlined_labels_;  // of the frames resolved so far
  // Resolved addresses, valid while their process's mappings (and the kernel's) stay as they were.
  std::unordered_map<Place, CachedFrame, PlaceHash> frames_;
  std::unordered_map<std::uint32_t, std::uint64_t> generation_;  // by pid; bumped by its MMAP, exec, FORK
  std::uint64_t kernel_generation_ = 0;
  std::unordered_map<std::uint32_t, NameId> command_ids_;  // by tid, until a COMM or FORK names it anew
  std::vector<SeenStack> seen_;
  std::vector<std::uint64_t> seen_words_;
  std::unordered_map<std::uint64_t, std::uint32_t> first_seen_;  // a hash of a stack's words -> seen_
  std::uint64_t lost_ = 0;
  std::vector<Frame> stack_;  // the sample at hand's frames, leaf first
  SourcePlace source_;        // scratch of resolve()
};

}  // namespace perfmon
