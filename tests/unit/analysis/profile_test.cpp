// Profile: samples charged to the place their records describe at that moment — a process's
// mappings and a thread's name as they were when the sample was taken — and repeated stacks merged.
#include "perfmon/profile.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
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

void sample(Profile& profile, std::uint32_t tid, std::uint64_t ip, std::vector<std::uint64_t> chain = {}) {
  perf_event_header header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8};
  Sample s;
  s.record = &header;
  s.pid = s.tid = tid;
  s.ip = ip;
  s.period = 10;
  s.callchain = chain;
  profile.sample(0, s);
}

std::string place(const Profile& profile, const ProfileEntry& entry) {
  return profile.name(entry.command) + " " + profile.name(entry.dso) + " " + profile.name(entry.symbol) + " " +
         std::to_string(entry.samples);
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

TEST(Profile, LostSamplesAreCounted) {
  Profile profile({"cpu-clock"});
  kernel::LostRecord lost{};
  lost.header = {PERF_RECORD_LOST, 0, sizeof lost};
  lost.lost = 5;
  profile.record(lost.header);
  kernel::LostSamplesRecord dropped{};
  dropped.header = {PERF_RECORD_LOST_SAMPLES, 0, sizeof dropped};
  dropped.lost = 2;
  profile.record(dropped.header);
  EXPECT_EQ(profile.lost_samples(), 7u);
}

}  // namespace
}  // namespace perfmon
