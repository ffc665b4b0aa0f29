// SPDX-License-Identifier: Apache-2.0
// The ring reader over memory laid out as the kernel lays a ring out: records in order, one that
// wraps around the end handed out whole, the tail given back, an impossible size or position
// stopping it.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernel/mmap.hpp"

namespace perfmon::kernel {
namespace {

class FakeRing {
 public:
  explicit FakeRing(std::size_t size) : data_(size) {}

  // Writes a record of `size` bytes at the head, as the kernel does, filling its body with `fill`;
  // its header may claim another size.
  void write(std::uint16_t size, std::uint32_t type, std::uint8_t fill) { write(size, type, fill, size); }
  void write(std::uint16_t size, std::uint32_t type, std::uint8_t fill, std::uint16_t claimed) {
    std::vector<std::byte> record(size, std::byte{fill});
    perf_event_header header{type, 0, claimed};
    std::memcpy(record.data(), &header, sizeof header);
    for (std::size_t i = 0; i < size; ++i) data_[(head_ + i) % data_.size()] = record[i];
    head_ += size;
    control_.data_head = head_;
  }
  RingReader reader() { return RingReader(&control_, data_.data(), data_.size()); }
  std::uint64_t tail() const { return control_.data_tail; }
  perf_event_mmap_page& control() { return control_; }

 private:
  perf_event_mmap_page control_{};
  std::vector<std::byte> data_;
  std::uint64_t head_ = 0;
};

TEST(RingReader, RecordsInOrderAndOneThatWrapsComesWhole) {
  FakeRing ring(64);
  ring.write(24, PERF_RECORD_COMM, 1);
  ring.write(32, PERF_RECORD_SAMPLE, 2);
  RingReader reader = ring.reader();
  ASSERT_EQ(reader.begin(), 56u);
  const perf_event_header* first = reader.next();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->type, static_cast<std::uint32_t>(PERF_RECORD_COMM));
  EXPECT_EQ(reader.next()->size, 32u);
  EXPECT_EQ(reader.next(), nullptr);
  reader.consume();
  EXPECT_EQ(ring.tail(), 56u);

  // The next record starts 8 bytes before the end of the ring and wraps around it.
  ring.write(40, PERF_RECORD_LOST, 3);
  ASSERT_EQ(reader.begin(), 40u);
  const perf_event_header* wrapped = reader.next();
  ASSERT_NE(wrapped, nullptr);
  EXPECT_EQ(wrapped->type, static_cast<std::uint32_t>(PERF_RECORD_LOST));
  EXPECT_EQ(wrapped->size, 40u);
  const auto* bytes = reinterpret_cast<const std::byte*>(wrapped);
  for (std::size_t i = sizeof(perf_event_header); i < 40; ++i) EXPECT_EQ(bytes[i], std::byte{3}) << i;
  reader.consume();
  EXPECT_EQ(ring.tail(), 96u);
  EXPECT_FALSE(reader.corrupt());
}

TEST(RingReader, NothingIsGivenBackBeforeConsume) {
  FakeRing ring(64);
  ring.write(16, PERF_RECORD_SAMPLE, 1);
  RingReader reader = ring.reader();
  reader.begin();
  ASSERT_NE(reader.next(), nullptr);
  EXPECT_EQ(ring.tail(), 0u);
  EXPECT_EQ(reader.next(), nullptr);
}

TEST(RingReader, AnImpossibleSizeStopsTheReader) {
  FakeRing ring(64);
  ring.write(16, PERF_RECORD_SAMPLE, 1);
  ring.write(8, PERF_RECORD_SAMPLE, 1);
  RingReader reader = ring.reader();
  reader.begin();
  ASSERT_NE(reader.next(), nullptr);
  ASSERT_NE(reader.next(), nullptr);  // a bare header is a valid record
  EXPECT_FALSE(reader.corrupt());
  FakeRing broken(64);
  broken.write(16, PERF_RECORD_SAMPLE, 0, 0);  // size 0 would loop forever
  RingReader stuck = broken.reader();
  stuck.begin();
  EXPECT_EQ(stuck.next(), nullptr);
  EXPECT_TRUE(stuck.corrupt());
}

TEST(RingReader, ImpossiblePositionsStopTheReader) {
  // A head more than a ring's worth ahead of the tail: records would be read twice, or past a copy.
  FakeRing ahead(64);
  ahead.write(16, PERF_RECORD_SAMPLE, 1);
  ahead.control().data_head = 64 + 16;
  RingReader far = ahead.reader();
  far.begin();
  EXPECT_EQ(far.next(), nullptr);
  EXPECT_TRUE(far.corrupt());
  // A tail between two words: a header read there could straddle the ring's end.
  FakeRing odd(64);
  odd.write(16, PERF_RECORD_SAMPLE, 1);
  odd.control().data_tail = 4;
  RingReader misaligned = odd.reader();
  misaligned.begin();
  EXPECT_EQ(misaligned.next(), nullptr);
  EXPECT_TRUE(misaligned.corrupt());
}

}  // namespace
}  // namespace perfmon::kernel
