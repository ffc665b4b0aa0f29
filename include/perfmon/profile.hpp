// SPDX-License-Identifier: Apache-2.0
// perfmon: a recording summed up as perf report sums it. Each sample's period is charged to its
// command, file (dso) and function, per event; its call stack (or its address alone, without one)
// is merged into a tree rooted at the command. Memory grows with the distinct addresses and stacks,
// not with the samples: a file of millions of samples costs what its few thousand places cost.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "perfmon/name_id.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/symbols.hpp"

namespace perfmon {

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
  bool inlined = false;                             // a function inlined at its parent's frame
  NameId dso = 0;                                   // the file the frame lies in (0 for a command's node)
  std::uint64_t samples = 0, period = 0;            // of the stacks through this frame
  std::uint64_t self_samples = 0, self_period = 0;  // of the stacks that end here
};

// The stacks that end at a node and were charged to one entry: a node's stacks may end in
// several (two unnamed addresses of one file are both "[file]" in a stack).
struct StackEnd {
  std::uint32_t node = 0, entry = 0;
  std::uint64_t samples = 0, period = 0;
};

struct EventProfile {
  std::string name;
  std::uint64_t samples = 0, period = 0;
  std::vector<ProfileEntry> entries;  // in the order first seen
  std::vector<StackNode> stacks;      // [0] is the root; a parent comes before its children
  std::vector<StackEnd> ends;         // in the order first seen
};

// What a profile looks up beyond the functions of the symbol tables, in each file's DWARF (libdw):
// both cost the time to read the debug information of the files that samples touch.
struct ProfileOptions {
  // Merge the call stacks into EventProfile::stacks. Without, only the entries are summed (what
  // perf report's table shows without -g): each sample costs its leaf's look-up, no stack is
  // resolved or unwound, and `stacks` holds the root alone.
  bool stacks = true;
  bool inlined_frames = false;  // the functions inlined at each frame join the stacks, as "f (inlined)"
  // The stacks' roots are threads, "command-tid", instead of commands (and so are the entries'
  // commands): what viewers that show a profile per thread need (report --speedscope).
  bool thread_roots = false;
  bool source_lines = false;                  // each entry is split by the source line of its sampled address
  std::string debug_root = "/usr/lib/debug";  // where separate debug files are looked for
};

class Profile : public SampleHandler {
 public:
  explicit Profile(const std::vector<std::string>& event_names, ProfileOptions options = {});
  // Looks up names through `symbols` (options.debug_root aside), which other profiles may share:
  // the profiles of the shares of one file read at once read each file's symbols once.
  Profile(const std::vector<std::string>& event_names, ProfileOptions options, std::shared_ptr<SymbolTables> symbols);
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
  // A record from before the share of a file this profile reads: it places later samples as
  // record() does, and counts nothing.
  void context(const perf_event_header& record) override;

  // Adds `later`: a profile of the same events and options that read the share of the file after
  // this one's (and the records before that share as context()). The result is what one profile
  // reading both shares would hold, entry for entry, node for node and name for name. `later` is
  // taken in: its frames resolved by address are let go first, and this profile's too (a sample
  // after it resolves them again), so that both caches are not alive while this one grows.
  void merge(Profile&& later);

  const std::vector<EventProfile>& events() const;
  std::string_view name(NameId id) const noexcept;
  // What the recording says was lost: its PERF_RECORD_LOST_SAMPLES and PERF_RECORD_LOST records.
  const RecordLoss& lost() const noexcept;

  struct State;  // the tables of a profile being read: defined in the library only

 private:
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
