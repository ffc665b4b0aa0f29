// SPDX-License-Identifier: Apache-2.0
// Profile: samples charged to the place their records describe at that moment — a process's
// mappings and a thread's name as they were when the sample was taken — and repeated stacks merged.
#include "perfmon/profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernel/records.hpp"

namespace perfmon {
namespace {

using kernel::CommRecord;
using kernel::Mmap2Record;

// A record with its text, padded to 8 bytes as the kernel writes it.
template <typename Record>
std::vector<std::uint64_t> with_text(Record fixed, std::uint32_t type, const std::string& text) {
  const std::size_t size = (sizeof fixed + text.size() + 1 + 7) / 8 * 8;
  std::vector<std::uint64_t> words(size / 8, 0);
  fixed.header.type = type;
  fixed.header.size = static_cast<std::uint16_t>(size);
  std::memcpy(words.data(), &fixed, sizeof fixed);
  std::memcpy(reinterpret_cast<char*>(words.data()) + sizeof fixed, text.data(), text.size());
  return words;
}

void comm(Profile& profile, std::uint32_t tid, const std::string& name) {
  CommRecord record{};
  record.pid = record.tid = tid;
  profile.record(*reinterpret_cast<const perf_event_header*>(with_text(record, PERF_RECORD_COMM, name).data()));
}

void mmap2(Profile& profile, std::uint32_t pid, std::uint64_t start, const std::string& file) {
  Mmap2Record record{};
  record.pid = record.tid = pid;
  record.addr = start;
  record.len = 0x1000;
  auto words = with_text(record, PERF_RECORD_MMAP2, file);
  profile.record(*reinterpret_cast<const perf_event_header*>(words.data()));
}

void sample(Profile& profile, std::uint32_t tid, std::uint64_t ip, std::vector<std::uint64_t> chain = {},
            std::uint32_t pid = 0) {
  perf_event_header header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8};
  Sample s;
  s.record = &header;
  s.tid = tid;
  s.pid = pid != 0 ? pid : tid;
  s.ip = ip;
  s.period = 10;
  s.callchain = chain;
  profile.sample(0, s);
}

std::string place(const Profile& profile, const ProfileEntry& entry) {
  return std::string(profile.name(entry.command)) + " " + std::string(profile.name(entry.dso)) + " " +
         std::string(profile.name(entry.symbol)) + " " + std::to_string(entry.samples);
}

TEST(Profile, SamplesAreChargedToTheMappingAndNameOfTheirMoment) {
  Profile profile({"cpu-clock"});
  comm(profile, 7, "first");
  mmap2(profile, 7, 0x400000, "/nonexistent/a");
  sample(profile, 7, 0x400010);
  sample(profile, 7, 0x400010);  // from the cache: the same entry
  mmap2(profile, 7, 0x400000, "/nonexistent/b");
  sample(profile, 7, 0x400010);
  comm(profile, 7, "second");
  sample(profile, 7, 0x400010);
  sample(profile, 8, 0x400010);  // another process: nothing mapped there, no name given

  const EventProfile& event = profile.events()[0];
  ASSERT_EQ(event.entries.size(), 4u);
  EXPECT_EQ(place(profile, event.entries[0]), "first /nonexistent/a 0x0000000000000010 2");
  EXPECT_EQ(place(profile, event.entries[1]), "first /nonexistent/b 0x0000000000000010 1");
  EXPECT_EQ(place(profile, event.entries[2]), "second /nonexistent/b 0x0000000000000010 1");
  EXPECT_EQ(place(profile, event.entries[3]), ":8 [unknown] 0x0000000000400010 1");
  EXPECT_EQ(event.samples, 5u);
  EXPECT_EQ(event.period, 50u);
}

TEST(Profile, StacksMergeIntoATreeRootedAtTheCommand) {
  Profile profile({"cpu-clock"});
  comm(profile, 7, "app");
  mmap2(profile, 7, 0x400000, "/nonexistent/app");
  // Leaf first, as the kernel writes callchains: leaf <- a <- main, twice; leaf <- b <- main once.
  const std::vector<std::uint64_t> via_a = {PERF_CONTEXT_USER, 0x400100, 0x400201, 0x400301};
  const std::vector<std::uint64_t> via_b = {PERF_CONTEXT_USER, 0x400100, 0x400401, 0x400301};
  sample(profile, 7, 0x400100, via_a);
  sample(profile, 7, 0x400100, via_b);
  sample(profile, 7, 0x400100, via_a);

  const EventProfile& event = profile.events()[0];
  EXPECT_EQ(event.stacks[0].samples, 3u);  // the root
  // root -> app -> [app] (main) -> [app] (a or b) -> [app] (leaf): the unnamed frames of one file
  // share a label, so both paths are one; the leaf node holds all three samples as its own.
  std::uint64_t self = 0;
  for (const StackNode& node : event.stacks) self += node.self_samples;
  EXPECT_EQ(self, 3u);
  EXPECT_EQ(profile.name(event.stacks[1].name), "app");
  EXPECT_EQ(profile.name(event.stacks[2].name), "[app]");
  ASSERT_EQ(event.entries.size(), 1u);
  EXPECT_EQ(event.entries[0].samples, 3u);
}

// Without stacks (a table without -g): the same entries, charged to each chain's leaf (not to the
// sampled address where they differ, as the chain's first frame is what a stack's leaf is), and
// no tree.
TEST(Profile, WithoutStacksTheEntriesAreTheSameAndNoTreeIsBuilt) {
  ProfileOptions options;
  options.stacks = false;
  Profile flat({"cpu-clock"}, options);
  Profile deep({"cpu-clock"});
  for (Profile* profile : {&flat, &deep}) {
    comm(*profile, 7, "app");
    mmap2(*profile, 7, 0x400000, "/nonexistent/app");
    mmap2(*profile, 7, 0x500000, "/nonexistent/lib.so");
    sample(*profile, 7, 0x400100, {PERF_CONTEXT_USER, 0x400100, 0x400201});
    sample(*profile, 7, 0x500100, {PERF_CONTEXT_USER, 0x500100, 0x400201});
    sample(*profile, 7, 0x400100, {PERF_CONTEXT_USER, 0x500200, 0x400201});  // the chain's leaf wins
    sample(*profile, 7, 0x400180);                                           // no chain: the address
  }
  const EventProfile& a = flat.events()[0];
  const EventProfile& b = deep.events()[0];
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (std::size_t e = 0; e < a.entries.size(); ++e) EXPECT_EQ(place(flat, a.entries[e]), place(deep, b.entries[e]));
  EXPECT_EQ(a.samples, 4u);
  EXPECT_EQ(a.period, b.period);
  EXPECT_EQ(a.stacks.size(), 1u);  // the root alone
  EXPECT_GT(b.stacks.size(), 1u);
}

// PERF_RECORD_LOST counts records of any kind; PERF_RECORD_LOST_SAMPLES counts samples: two
// counts, never one sum (5 records and 2 samples were once said as 7 samples).
TEST(Profile, LostSamplesAndLostRecordsAreCountedApart) {
  Profile profile({"cpu-clock"});
  kernel::LostRecord lost{};
  lost.header = {PERF_RECORD_LOST, 0, sizeof lost};
  lost.lost = 5;
  profile.record(lost.header);
  kernel::LostSamplesRecord dropped{};
  dropped.header = {PERF_RECORD_LOST_SAMPLES, 0, sizeof dropped};
  dropped.lost = 2;
  profile.record(dropped.header);
  EXPECT_EQ(profile.lost().samples, 2u);
  EXPECT_EQ(profile.lost().records, 5u);
  EXPECT_TRUE(profile.lost().samples_known);
  EXPECT_EQ(profile.lost().sentence(), "2 samples lost, 5 records in all");
  RecordLoss records_only;
  records_only.records = 1;
  EXPECT_EQ(records_only.sentence(), "1 record lost (samples and others; the kernel does not say how many samples)");
}

// A recording to read whole or in shares: its records, each a sample or another record.
struct Step {
  std::vector<std::uint64_t> record;  // empty for a sample
  std::uint32_t tid = 0, pid = 0;     // pid 0: the tid's
  std::uint64_t ip = 0;
  std::vector<std::uint64_t> chain;
};

// `samples` samples of 1 to 4 frames, each an address among `addresses` unnamed ones of a file;
// with `shared_roots`, of 1 to 8 frames, each stack keeping some of the root side of the one before.
std::vector<Step> varied_recording(int samples = 400, std::uint64_t addresses = 16, bool shared_roots = false) {
  std::vector<Step> steps;
  auto add_record = [&](auto fixed, std::uint32_t type, const std::string& text) {
    steps.push_back({with_text(fixed, type, text), 0, 0, 0, {}});
  };
  std::uint64_t state = 12345;
  auto next = [&] { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  for (std::uint32_t pid : {7u, 8u, 9u}) {
    CommRecord named{};
    named.pid = named.tid = pid;
    add_record(named, PERF_RECORD_COMM, "app" + std::to_string(pid));
    Mmap2Record mapped{};
    mapped.pid = mapped.tid = pid;
    mapped.addr = 0x400000;
    mapped.len = 0x1000;
    add_record(mapped, PERF_RECORD_MMAP2, "/nonexistent/app");
  }
  if (shared_roots) {  // a thread of process 9 with a name of its own
    CommRecord named{};
    named.pid = 9;
    named.tid = 10;
    add_record(named, PERF_RECORD_COMM, "helper");
  }
  std::vector<std::uint64_t> last_chain;  // the last sample's frames, leaf first
  std::uint32_t last_tid = 0;
  for (int i = 0; i < samples; ++i) {
    // A command renamed, a file mapped over another: later samples change place. With shared roots,
    // more often, and the last sample's process (whose next sample is most likely its own).
    if (shared_roots ? i % 20 == 19 : i == 150 || i == 290) {
      CommRecord named{};
      named.pid = named.tid = shared_roots ? std::min(last_tid, 9u) : 8;
      if (!shared_roots || i % 40 == 19) add_record(named, PERF_RECORD_COMM, "renamed" + std::to_string(i));
      Mmap2Record mapped{};
      mapped.pid = mapped.tid = shared_roots ? std::min(last_tid, 9u) : 9;
      mapped.addr = 0x400800;
      mapped.len = 0x800;
      if (!shared_roots || i % 40 == 39)
        add_record(mapped, PERF_RECORD_MMAP2, "/nonexistent/lib" + std::to_string(i) + ".so");
    }
    if (i == 200) {
      kernel::LostRecord lost{};
      lost.header = {PERF_RECORD_LOST, 0, sizeof lost};
      lost.lost = 3;
      std::vector<std::uint64_t> words(sizeof lost / 8);
      std::memcpy(words.data(), &lost, sizeof lost);
      steps.push_back({words, 0, 0, 0, {}});
    }
    // Unnamed addresses: the frames of one file share a label, so one node ends stacks charged
    // to several entries.
    Step step;
    step.tid = shared_roots && last_tid != 0 && next() % 4 != 0
                   ? last_tid
                   : 7 + static_cast<std::uint32_t>(next() % (shared_roots ? 4 : 3));
    if (step.tid == 10) step.pid = 9;
    last_tid = step.tid;
    step.chain.push_back(PERF_CONTEXT_USER);
    const std::uint64_t depth = 1 + next() % (shared_roots ? 8 : 4);
    for (std::uint64_t d = 0; d < depth; ++d) step.chain.push_back(0x400000 + (next() % addresses) * 0x10);
    if (shared_roots && !last_chain.empty()) {
      // The outermost frames of the stack before, as many as chosen (all of them: the same stack,
      // or a longer one that continues it).
      const std::size_t kept = std::min<std::size_t>(next() % (last_chain.size() + 1), depth);
      std::copy(last_chain.end() - static_cast<std::ptrdiff_t>(kept), last_chain.end(),
                step.chain.end() - static_cast<std::ptrdiff_t>(kept));
    }
    last_chain.assign(step.chain.begin() + 1, step.chain.end());
    step.ip = step.chain[1];
    steps.push_back(step);
  }
  return steps;
}

// Reads steps [begin, end) into `profile`, the records before `begin` as context.
void read_share(Profile& profile, const std::vector<Step>& steps, std::size_t begin, std::size_t end) {
  for (std::size_t i = 0; i < end && i < steps.size(); ++i) {
    const Step& step = steps[i];
    if (step.record.empty()) {
      if (i >= begin) sample(profile, step.tid, step.ip, step.chain, step.pid);
      continue;
    }
    const auto& header = *reinterpret_cast<const perf_event_header*>(step.record.data());
    if (i >= begin)
      profile.record(header);
    else
      profile.context(header);
  }
}

void expect_same(const Profile& a, const Profile& b) {
  ASSERT_EQ(a.events().size(), b.events().size());
  EXPECT_EQ(a.lost().samples, b.lost().samples);
  EXPECT_EQ(a.lost().records, b.lost().records);
  for (std::size_t e = 0; e < a.events().size(); ++e) {
    const EventProfile& x = a.events()[e];
    const EventProfile& y = b.events()[e];
    EXPECT_EQ(x.samples, y.samples);
    EXPECT_EQ(x.period, y.period);
    ASSERT_EQ(x.entries.size(), y.entries.size());
    for (std::size_t i = 0; i < x.entries.size(); ++i) {
      EXPECT_EQ(std::tie(x.entries[i].command, x.entries[i].dso, x.entries[i].symbol, x.entries[i].kernel,
                         x.entries[i].samples, x.entries[i].period),
                std::tie(y.entries[i].command, y.entries[i].dso, y.entries[i].symbol, y.entries[i].kernel,
                         y.entries[i].samples, y.entries[i].period));
      EXPECT_EQ(a.name(x.entries[i].symbol), b.name(y.entries[i].symbol));
    }
    ASSERT_EQ(x.stacks.size(), y.stacks.size());
    for (std::size_t n = 0; n < x.stacks.size(); ++n)
      EXPECT_EQ(std::tie(x.stacks[n].name, x.stacks[n].parent, x.stacks[n].samples, x.stacks[n].period,
                         x.stacks[n].self_samples, x.stacks[n].self_period),
                std::tie(y.stacks[n].name, y.stacks[n].parent, y.stacks[n].samples, y.stacks[n].period,
                         y.stacks[n].self_samples, y.stacks[n].self_period));
    ASSERT_EQ(x.ends.size(), y.ends.size());
    for (std::size_t i = 0; i < x.ends.size(); ++i)
      EXPECT_EQ(std::tie(x.ends[i].node, x.ends[i].entry, x.ends[i].samples, x.ends[i].period),
                std::tie(y.ends[i].node, y.ends[i].entry, y.ends[i].samples, y.ends[i].period));
  }
}

// A file read in shares, each share's profile merged into the one before, is the profile of the
// whole file: the same names, entries, nodes and ends, each at the same index, wherever it is cut.
TEST(Profile, SharesMergedAreTheProfileOfTheWhole) {
  const std::vector<Step> steps = varied_recording();
  for (bool stacks : {true, false}) {
    ProfileOptions options;
    options.stacks = stacks;
    Profile whole({"cpu-clock"}, options);
    read_share(whole, steps, 0, steps.size());
    ASSERT_EQ(whole.lost().samples + whole.lost().records, 3u);
    if (stacks) {
      ASSERT_GT(whole.events()[0].ends.size(), whole.events()[0].stacks.size() / 2);
      std::size_t shared_nodes = 0;  // nodes where stacks of several entries end
      std::vector<int> ends_at(whole.events()[0].stacks.size());
      for (const StackEnd& end : whole.events()[0].ends) shared_nodes += ++ends_at[end.node] == 2;
      ASSERT_GT(shared_nodes, 0u);
    }
    for (std::size_t cut = 1; cut < steps.size(); cut += 37) {
      SCOPED_TRACE("cut at " + std::to_string(cut));
      Profile first({"cpu-clock"}, options), second({"cpu-clock"}, options), third({"cpu-clock"}, options);
      const std::size_t later = cut + (steps.size() - cut) / 2;
      read_share(first, steps, 0, cut);
      read_share(second, steps, cut, later);
      read_share(third, steps, later, steps.size());
      first.merge(std::move(second));
      first.merge(std::move(third));
      expect_same(whole, first);
    }
  }
}

// A stack is placed from the root side it shares with the last one of its process (the frames
// there lead to the nodes they led to): the profile is that of stacks each placed anew, read here
// one sample a share. The stacks keep part of the ones before, all of them, or none, in
// processes renamed and remapped between, and in two threads of one process with two names.
TEST(Profile, StacksPlacedFromTheLastOnesRootSideAreThoseOfStacksPlacedAnew) {
  const std::vector<Step> steps = varied_recording(400, 256, true);  // half of the addresses remapped
  Profile whole({"cpu-clock"});
  read_share(whole, steps, 0, steps.size());
  Profile pieces({"cpu-clock"});
  read_share(pieces, steps, 0, 1);
  for (std::size_t i = 1; i < steps.size(); ++i) {
    Profile piece({"cpu-clock"});
    read_share(piece, steps, i, i + 1);
    pieces.merge(std::move(piece));
  }
  std::size_t sharing = 0;            // samples whose outermost frame is that of the sample before, same thread
  std::size_t helper_after_main = 0;  // the same, of process 9's other thread after its first
  const Step* before = nullptr;
  for (const Step& step : steps) {
    if (!step.record.empty()) continue;
    sharing += before != nullptr && before->tid == step.tid && before->chain.back() == step.chain.back();
    helper_after_main +=
        before != nullptr && before->tid == 9 && step.tid == 10 && before->chain.back() == step.chain.back();
    before = &step;
  }
  ASSERT_GT(sharing, 60u);
  ASSERT_GT(helper_after_main, 0u);
  expect_same(whole, pieces);
}

}  // namespace
}  // namespace perfmon
