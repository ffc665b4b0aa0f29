// SPDX-License-Identifier: Apache-2.0
// How PERF_RECORD_SAMPLE is laid out for one attr, and the sample_id trailer of every other record
// (perf_event_open(2), "PERF_RECORD_SAMPLE" and "sample_id_all"): each sample_type bit adds its
// fields in the kernel's order. Worked out once per attr, like GroupReadLayout; the decoders check
// every field against the record's size and never read past it.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "perfmon/sample.hpp"

namespace perfmon::kernel {

// The sample_id trailer of a non-sample record.
struct SampleId {
  std::uint32_t pid = 0, tid = 0;
  std::uint64_t time = 0;
  std::uint64_t id = 0;  // PERF_SAMPLE_ID or PERF_SAMPLE_IDENTIFIER
  std::uint64_t stream_id = 0;
  std::uint32_t cpu = 0;
};

class SampleLayout {
 public:
  explicit SampleLayout(const perf_event_attr& attr) noexcept;

  // Decodes a PERF_RECORD_SAMPLE. Returns false when the record is shorter than its fields say
  // (a corrupt record, or one of an event with another sample_type).
  bool decode(const perf_event_header& record, perfmon::Sample& out) const noexcept;
  // Decodes the sample_id trailer of any other record; false without sample_id_all or when the
  // record is too short to hold it.
  bool decode_id(const perf_event_header& record, SampleId& out) const noexcept;

  std::uint64_t sample_type() const noexcept { return sample_type_; }

 private:
  std::uint64_t sample_type_, read_format_, branch_sample_type_;
  std::size_t user_regs_, intr_regs_;  // registers per sample (bits set in the masks)
  std::size_t trailer_bytes_;          // 0 without sample_id_all
};

// The id of any record of an event with PERF_SAMPLE_IDENTIFIER, which the kernel puts first in a
// sample and last in the trailer so that a reader finds it before knowing the event; 0 otherwise.
std::uint64_t record_identifier(const perf_event_header& record) noexcept;

}  // namespace perfmon::kernel
