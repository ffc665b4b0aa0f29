// SPDX-License-Identifier: Apache-2.0
// AddressSpaces: a forked process starts with its parent's mappings as they were at the fork,
// shared rather than copied, so that a recording of many forks costs memory in its own size.
#include "perfmon/address_space.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernel/records.hpp"

namespace perfmon {
namespace {

void mmap2(AddressSpaces& spaces, std::uint32_t pid, std::uint64_t start, const std::string& file) {
  kernel::Mmap2Record record{};
  record.pid = record.tid = pid;
  record.addr = start;
  record.len = 0x1000;
  std::vector<std::uint64_t> words((sizeof record + file.size() + 1 + 7) / 8, 0);
  record.header = {PERF_RECORD_MMAP2, 0, static_cast<std::uint16_t>(words.size() * 8)};
  std::memcpy(words.data(), &record, sizeof record);
  std::memcpy(reinterpret_cast<char*>(words.data()) + sizeof record, file.data(), file.size());
  spaces.record(*reinterpret_cast<const perf_event_header*>(words.data()));
}

void fork(AddressSpaces& spaces, std::uint32_t parent, std::uint32_t child) {
  kernel::TaskRecord record{};
  record.header = {PERF_RECORD_FORK, 0, sizeof record};
  record.pid = record.tid = child;
  record.ppid = record.ptid = parent;
  spaces.record(record.header);
}

void exec(AddressSpaces& spaces, std::uint32_t pid) {
  kernel::CommRecord record{};
  std::vector<std::uint64_t> words(4, 0);
  record.header = {PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 32};
  record.pid = record.tid = pid;
  std::memcpy(words.data(), &record, sizeof record);
  std::memcpy(reinterpret_cast<char*>(words.data()) + sizeof record, "new", 4);
  spaces.record(*reinterpret_cast<const perf_event_header*>(words.data()));
}

TEST(AddressSpaces, AForkedProcessSeesItsParentsMappingsAsTheyWereAtTheFork) {
  AddressSpaces spaces;
  mmap2(spaces, 1, 0x1000, "/a");
  fork(spaces, 1, 2);
  mmap2(spaces, 1, 0x2000, "/parent-after");  // not the child's
  mmap2(spaces, 2, 0x3000, "/child");         // not the parent's
  mmap2(spaces, 2, 0x1000, "/child-over-a");  // the newest mapping wins, in the child only
  fork(spaces, 2, 3);
  EXPECT_EQ(spaces.place(1, 0x1010).file, "/a");
  EXPECT_EQ(spaces.place(1, 0x2010).file, "/parent-after");
  EXPECT_EQ(spaces.place(1, 0x3010).file, "[unknown]");
  EXPECT_EQ(spaces.place(2, 0x1010).file, "/child-over-a");
  EXPECT_EQ(spaces.place(2, 0x2010).file, "[unknown]");
  EXPECT_EQ(spaces.place(2, 0x3010).file, "/child");
  EXPECT_EQ(spaces.place(3, 0x1010).file, "/child-over-a");
  EXPECT_EQ(spaces.place(3, 0x3010).offset, 0x10u);
  exec(spaces, 2);  // its mappings go; its child keeps what it had at its fork
  EXPECT_EQ(spaces.place(2, 0x1010).file, "[unknown]");
  EXPECT_EQ(spaces.place(3, 0x1010).file, "/child-over-a");
}

long max_resident_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// 6,000 mappings and then 6,000 forks: a 0.9 MB recording. Copied at each fork, they took 2 GB.
TEST(AddressSpaces, ManyForksOfAProcessWithManyMappingsShareThem) {
  const long before = max_resident_kib();
  AddressSpaces spaces;
  for (std::uint64_t i = 0; i < 6000; ++i) mmap2(spaces, 1, 0x100000 + i * 0x1000, "/a/file/with/a/long/name.so");
  for (std::uint32_t child = 2; child < 6002; ++child) fork(spaces, 1, child);
  EXPECT_LT(max_resident_kib() - before, 100 * 1024) << "KiB";
  EXPECT_EQ(spaces.place(6001, 0x100000).file, "/a/file/with/a/long/name.so");
}

}  // namespace
}  // namespace perfmon
