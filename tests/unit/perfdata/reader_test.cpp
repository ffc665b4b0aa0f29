// SPDX-License-Identifier: Apache-2.0
// PerfDataReader on hostile files made here: memory stays bounded by the file's size.
#include "perfmon/perf_data.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "perfdata/file_layout.hpp"
#include "perfmon/error.hpp"

namespace perfmon {
namespace {

using perfdata::FileHeader;
using perfdata::FileSection;

// A 1 MB file of 3,000 attrs whose ids all point at one section of 64k ids: read as given they
// would be 1.5 GiB of ids.
TEST(PerfDataReader, AttrsSharingOneIdSectionAreRefused) {
  constexpr std::uint64_t kAttrs = 3000, kIds = 65536;
  constexpr std::uint64_t kAttrSize = sizeof(perf_event_attr) + sizeof(FileSection);
  FileHeader header{};
  std::memcpy(header.magic, perfdata::kMagic, sizeof header.magic);
  header.size = sizeof header;
  header.attr_size = kAttrSize;
  header.attrs = {sizeof header, kAttrs * kAttrSize};
  const FileSection ids{header.attrs.offset + header.attrs.size, kIds * 8};
  header.data = {ids.offset + ids.size, 0};
  std::string bytes(header.data.offset, '\0');
  std::memcpy(bytes.data(), &header, sizeof header);
  for (std::uint64_t i = 0; i < kAttrs; ++i) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    std::memcpy(bytes.data() + header.attrs.offset + i * kAttrSize, &attr, sizeof attr);
    std::memcpy(bytes.data() + header.attrs.offset + i * kAttrSize + sizeof attr, &ids, sizeof ids);
  }
  try {
    PerfDataReader reader(bytes, "shared-ids");
    FAIL() << "read " << reader.events().size() << " events";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("the events' ids overlap: more of them than the file holds"),
              std::string::npos)
        << error.what();
  }
}

// The times of the samples a reader hands on, in the order it hands them.
struct TimesSeen : SampleHandler {
  std::vector<std::uint64_t> times;
  void sample(std::size_t, const Sample& sample) override { times.push_back(sample.time); }
};

// Rings drained one after another interleave their records out of time order within a round, and
// a ring drained late adds records older than the round's latest to the next one (never older
// than the latest of the round before that: perf's rule, and the reader's). Records are handed on
// in time order, however the file is cut into shares.
TEST(PerfDataReader, RecordsAreHandedOnInTimeOrderAcrossRounds) {
  PerfDataEvent event;
  event.name = "cpu-clock";
  event.attr.size = sizeof event.attr;
  event.attr.type = PERF_TYPE_SOFTWARE;
  event.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  const int fd = memfd_create("rounds", 0);
  ASSERT_GE(fd, 0);
  std::vector<std::uint64_t> written;
  {
    PerfDataWriter writer(fd, {event});
    std::mt19937_64 random(7);
    for (std::uint64_t round = 1; round <= 60; ++round) {
      // Three rings' records of times in [100 r - 50, 100 r + 100): each ring's in order, the
      // rings one after another.
      for (int ring = 0; ring < 3; ++ring) {
        std::vector<std::uint64_t> times(1 + random() % 20);
        for (std::uint64_t& time : times) time = 100 * round - 50 + random() % 150;
        std::sort(times.begin(), times.end());
        for (std::uint64_t time : times) {
          struct {
            perf_event_header header;
            std::uint64_t ip;
            std::uint32_t pid, tid;
            std::uint64_t time, period;
          } sample{{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof sample}, 0x400000, 1, 1, time, 1};
          writer.write(sample.header);
          written.push_back(time);
        }
      }
      writer.finish_round();
    }
    writer.finish(PerfDataHost{});
  }
  std::string bytes(static_cast<std::size_t>(lseek(fd, 0, SEEK_END)), '\0');
  ASSERT_EQ(pread(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
  close(fd);
  std::sort(written.begin(), written.end());

  const PerfDataReader reader(bytes, "rounds");
  TimesSeen whole;
  reader.read(whole);
  EXPECT_EQ(whole.times, written);
  std::vector<TimesSeen> shares(5);
  std::vector<SampleHandler*> handlers;
  for (TimesSeen& share : shares) handlers.push_back(&share);
  // Each share said to be read once, when it is whole; never two calls at once.
  std::vector<int> reported(shares.size());
  std::atomic<int> inside{0};
  bool overlapped = false;
  reader.read_in_shares(handlers, 2, [&](std::size_t k) {
    overlapped = overlapped || inside.fetch_add(1) != 0;
    EXPECT_FALSE(shares[k].times.empty()) << "share " << k;
    ++reported[k];
    inside.fetch_sub(1);
  });
  EXPECT_EQ(reported, std::vector<int>(shares.size(), 1));
  EXPECT_FALSE(overlapped);
  std::vector<std::uint64_t> joined;
  for (const TimesSeen& share : shares) joined.insert(joined.end(), share.times.begin(), share.times.end());
  EXPECT_EQ(joined, written);
}

}  // namespace
}  // namespace perfmon
