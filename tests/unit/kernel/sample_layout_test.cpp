// SPDX-License-Identifier: Apache-2.0
// PERF_RECORD_SAMPLE and sample_id trailers decoded from records laid out as the kernel writes them.
#include "kernel/sample_layout.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernel/read_format.hpp"
#include "kernel/records.hpp"

namespace perfmon::kernel {
namespace {

// A record built word by word, its header's size set when it is taken.
class RecordBuilder {
 public:
  explicit RecordBuilder(std::uint32_t type) { words_.push_back(type); }
  RecordBuilder& word(std::uint64_t value) {
    words_.push_back(value);
    return *this;
  }
  RecordBuilder& pair(std::uint32_t low, std::uint32_t high) {
    std::uint64_t value;
    std::uint32_t halves[2] = {low, high};
    std::memcpy(&value, halves, sizeof value);
    return word(value);
  }
  std::vector<std::uint64_t> take() const {
    std::vector<std::uint64_t> out = words_;
    perf_event_header header{};
    header.type = static_cast<std::uint32_t>(words_[0]);
    header.size = static_cast<std::uint16_t>(out.size() * 8);
    std::memcpy(out.data(), &header, sizeof header);
    return out;
  }

 private:
  std::vector<std::uint64_t> words_;
};

const perf_event_header& header_of(const std::vector<std::uint64_t>& words) {
  return *reinterpret_cast<const perf_event_header*>(words.data());
}

TEST(SampleLayout, EveryFieldInTheKernelsOrder) {
  perf_event_attr attr{};
  attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                     PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
                     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
                     PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
                     PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
                     PERF_SAMPLE_CODE_PAGE_SIZE;
  attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
  attr.sample_regs_user = 0b1011;  // three registers
  RecordBuilder record(PERF_RECORD_SAMPLE);
  record.word(77).word(0x401000).pair(100, 101).word(5555).word(0xdead).word(77).word(78).pair(1, 0).word(1000);
  record.word(2).word(900).word(11).word(77).word(22).word(79);          // group: nr, enabled, {value, id} x 2
  record.word(3).word(PERF_CONTEXT_USER).word(0x401000).word(0x402000);  // callchain
  record.pair(12, 0x41414141).word(0x4242424242424242);                  // raw: size 12, then 12 bytes
  record.word(1).word(0x10).word(0x20).word(0);                          // one branch entry
  record.word(PERF_SAMPLE_REGS_ABI_64).word(1).word(2).word(3);
  record.word(16).word(0xaa).word(0xbb).word(8);  // 16 bytes of stack, 8 of them valid
  record.word(40).word(0x1234).word(3).word(0x7000).word(9).word(4096).word(2097152);
  std::vector<std::uint64_t> words = record.take();

  SampleLayout layout(attr);
  Sample sample;
  ASSERT_TRUE(layout.decode(header_of(words), sample));
  EXPECT_EQ(sample.identifier, 77u);
  EXPECT_EQ(sample.ip, 0x401000u);
  EXPECT_EQ(sample.pid, 100u);
  EXPECT_EQ(sample.tid, 101u);
  EXPECT_EQ(sample.time, 5555u);
  EXPECT_EQ(sample.addr, 0xdeadu);
  EXPECT_EQ(sample.id, 77u);
  EXPECT_EQ(sample.stream_id, 78u);
  EXPECT_EQ(sample.cpu, 1u);
  EXPECT_EQ(sample.period, 1000u);
  GroupReadLayout group(attr.read_format);
  ASSERT_EQ(group.members(sample.read.data(), sample.read.size()), 2);
  EXPECT_EQ(group.time_enabled(sample.read.data()), 900u);
  EXPECT_EQ(group.value(sample.read.data(), 1), 22u);
  EXPECT_EQ(group.id(sample.read.data(), 1), 79u);
  ASSERT_EQ(sample.callchain.size(), 3u);
  EXPECT_EQ(sample.callchain[0], static_cast<std::uint64_t>(PERF_CONTEXT_USER));
  EXPECT_EQ(sample.callchain[2], 0x402000u);
  ASSERT_EQ(sample.raw.size(), 12u);
  EXPECT_EQ(static_cast<char>(sample.raw[0]), 'A');
  EXPECT_EQ(static_cast<char>(sample.raw[11]), 'B');
  ASSERT_EQ(sample.branches.size(), 1u);
  EXPECT_EQ(sample.branches[0].from, 0x10u);
  EXPECT_EQ(sample.branches[0].to, 0x20u);
  EXPECT_EQ(sample.user_regs_abi, static_cast<std::uint64_t>(PERF_SAMPLE_REGS_ABI_64));
  ASSERT_EQ(sample.user_regs.size(), 3u);
  EXPECT_EQ(sample.user_regs[2], 3u);
  EXPECT_EQ(sample.user_stack.size(), 16u);
  EXPECT_EQ(sample.user_stack_dynamic_size, 8u);
  EXPECT_EQ(sample.weight, 40u);
  EXPECT_EQ(sample.data_src, 0x1234u);
  EXPECT_EQ(sample.transaction, 3u);
  EXPECT_EQ(sample.phys_addr, 0x7000u);
  EXPECT_EQ(sample.cgroup, 9u);
  EXPECT_EQ(sample.data_page_size, 4096u);
  EXPECT_EQ(sample.code_page_size, 2097152u);
  EXPECT_EQ(record_identifier(header_of(words)), 77u);

  // Every shorter record is refused, never read past.
  for (std::size_t size = 1; size < words.size(); ++size) {
    std::vector<std::uint64_t> cut(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(size));
    perf_event_header header = header_of(words);
    header.size = static_cast<std::uint16_t>(size * 8);
    std::memcpy(cut.data(), &header, sizeof header);
    EXPECT_FALSE(layout.decode(header_of(cut), sample)) << size << " words";
  }

  // A sample of another layout decoded into the same Sample leaves nothing of the one before.
  ASSERT_TRUE(layout.decode(header_of(words), sample));
  perf_event_attr ip_only{};
  ip_only.sample_type = PERF_SAMPLE_IP;
  const std::vector<std::uint64_t> other = RecordBuilder(PERF_RECORD_SAMPLE).word(0x405000).take();
  ASSERT_TRUE(SampleLayout(ip_only).decode(header_of(other), sample));
  EXPECT_EQ(sample.ip, 0x405000u);
  for (std::uint64_t value :
       {sample.identifier, sample.time, sample.addr, sample.id, sample.stream_id, sample.period, sample.branch_hw_index,
        sample.user_regs_abi, sample.user_stack_dynamic_size, sample.weight, sample.data_src, sample.transaction,
        sample.intr_regs_abi, sample.phys_addr, sample.cgroup, sample.data_page_size, sample.code_page_size})
    EXPECT_EQ(value, 0u);
  EXPECT_EQ(sample.pid + sample.tid + sample.cpu, 0u);
  EXPECT_TRUE(sample.read.empty() && sample.callchain.empty() && sample.raw.empty() && sample.branches.empty() &&
              sample.user_regs.empty() && sample.user_stack.empty() && sample.intr_regs.empty() && sample.aux.empty());
}

TEST(SampleLayout, KernelThreadsHaveNoUserRegistersAndEmptyStacksNoDynamicSize) {
  perf_event_attr attr{};
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_PERIOD;
  attr.sample_regs_user = 0xff;
  // Period comes before the registers; the registers are absent (ABI none), the stack empty.
  std::vector<std::uint64_t> words =
      RecordBuilder(PERF_RECORD_SAMPLE).word(0xffffffff81000000).word(1).word(PERF_SAMPLE_REGS_ABI_NONE).word(0).take();
  Sample sample;
  ASSERT_TRUE(SampleLayout(attr).decode(header_of(words), sample));
  EXPECT_EQ(sample.period, 1u);
  EXPECT_TRUE(sample.user_regs.empty());
  EXPECT_TRUE(sample.user_stack.empty());
}

TEST(SampleLayout, SingleEventReadFormat) {
  perf_event_attr attr{};
  attr.sample_type = PERF_SAMPLE_READ;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
  std::vector<std::uint64_t> words = RecordBuilder(PERF_RECORD_SAMPLE).word(42).word(10).word(5).word(3).take();
  Sample sample;
  ASSERT_TRUE(SampleLayout(attr).decode(header_of(words), sample));
  ASSERT_EQ(sample.read.size(), 4u);
  EXPECT_EQ(sample.read[0], 42u);
  EXPECT_EQ(sample.read[3], 3u);
}

TEST(SampleLayout, TrailerOfOtherRecords) {
  perf_event_attr attr{};
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
  attr.sample_id_all = 1;
  // PERF_RECORD_COMM: pid, tid, "true\0" padded to 8, then the trailer (IP is not part of it).
  std::uint64_t comm_text = 0;
  std::memcpy(&comm_text, "true", 4);
  std::vector<std::uint64_t> words =
      RecordBuilder(PERF_RECORD_COMM).pair(7, 8).word(comm_text).pair(7, 8).word(123).pair(1, 0).word(99).take();
  SampleId id;
  SampleLayout layout(attr);
  ASSERT_TRUE(layout.decode_id(header_of(words), id));
  EXPECT_EQ(id.pid, 7u);
  EXPECT_EQ(id.tid, 8u);
  EXPECT_EQ(id.time, 123u);
  EXPECT_EQ(id.cpu, 1u);
  EXPECT_EQ(id.id, 99u);
  EXPECT_EQ(record_identifier(header_of(words)), 99u);
  const CommRecord* comm = record_as<CommRecord>(&header_of(words));
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(record_text(comm), "true");
  // A record too short for the trailer, and a layout without sample_id_all, decode none.
  std::vector<std::uint64_t> short_record = RecordBuilder(PERF_RECORD_COMM).word(1).take();
  EXPECT_FALSE(layout.decode_id(header_of(short_record), id));
  attr.sample_id_all = 0;
  EXPECT_FALSE(SampleLayout(attr).decode_id(header_of(words), id));
  EXPECT_EQ(record_as<TaskRecord>(&header_of(short_record)), nullptr);
}

TEST(Records, TextWithoutItsNulStopsAtTheRecordsEnd) {
  std::uint64_t text = 0;
  std::memcpy(&text, "abcdefgh", 8);  // no NUL in the record
  std::vector<std::uint64_t> words = RecordBuilder(PERF_RECORD_COMM).pair(1, 2).word(text).word(text).take();
  auto* header = reinterpret_cast<perf_event_header*>(words.data());
  header->size = 24;  // the second word of text lies beyond the record
  const CommRecord* comm = record_as<CommRecord>(header);
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(record_text(comm), "abcdefgh");
  header->size = sizeof(CommRecord);
  EXPECT_EQ(record_text(comm), "");
}

TEST(SampleLayout, ASizeThatWrapsRoundIsRefused) {
  // Found by tests/fuzz/sample_record: an AUX size of 2^64 - 1 made bytes + 7 wrap to 6, and a
  // span of 2^64 - 1 bytes was handed out.
  perf_event_attr attr{};
  attr.sample_type = PERF_SAMPLE_AUX;
  std::vector<std::uint64_t> words = RecordBuilder(PERF_RECORD_SAMPLE).word(~0ULL).word(0).take();
  Sample sample;
  EXPECT_FALSE(SampleLayout(attr).decode(header_of(words), sample));
  attr.sample_type = PERF_SAMPLE_STACK_USER;
  EXPECT_FALSE(SampleLayout(attr).decode(header_of(words), sample));
}

TEST(SampleLayout, SizesTheKernelNeverWritesAreRefused) {
  perf_event_attr attr{};
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  attr.sample_id_all = 1;
  SampleLayout layout(attr);
  for (std::uint16_t size : {0, 4, 7, 20, 23}) {
    std::vector<std::uint64_t> words = RecordBuilder(PERF_RECORD_SAMPLE).word(1).pair(2, 3).take();
    auto* header = reinterpret_cast<perf_event_header*>(words.data());
    header->size = size;
    Sample sample;
    EXPECT_FALSE(layout.decode(*header, sample)) << size;
    header->type = PERF_RECORD_COMM;
    SampleId id;
    EXPECT_FALSE(layout.decode_id(*header, id)) << size;
  }
}

}  // namespace
}  // namespace perfmon::kernel
