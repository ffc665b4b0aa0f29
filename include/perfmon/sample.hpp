// SPDX-License-Identifier: Apache-2.0
// perfmon: one sample as the kernel wrote it into a ring buffer (PERF_RECORD_SAMPLE), decoded.
// Which fields are filled depends on the sample_type the sampler asked for (perf_event_open(2),
// PERF_SAMPLE_*); the others stay 0 or empty.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace perfmon {

// One sample's fields. The spans point into the record: valid until the handler that was given
// the sample returns.
struct Sample {
  const perf_event_header* record = nullptr;  // the record as the kernel wrote it, for keeping it whole
  std::uint64_t identifier = 0;               // PERF_SAMPLE_IDENTIFIER
  std::uint64_t ip = 0;
  std::uint32_t pid = 0, tid = 0;
  std::uint64_t time = 0;
  std::uint64_t addr = 0;
  std::uint64_t id = 0;
  std::uint64_t stream_id = 0;
  std::uint32_t cpu = 0;
  std::uint64_t period = 0;
  std::span<const std::uint64_t> read;       // PERF_SAMPLE_READ: the words read(2) returns for the read_format
  std::span<const std::uint64_t> callchain;  // instruction pointers, with PERF_CONTEXT_* markers
  std::span<const std::byte> raw;            // PERF_SAMPLE_RAW: a tracepoint's fields
  std::uint64_t branch_hw_index = 0;         // with PERF_SAMPLE_BRANCH_HW_INDEX
  std::span<const perf_branch_entry> branches;
  std::uint64_t user_regs_abi = 0;  // PERF_SAMPLE_REGS_ABI_*; 0: no registers (a kernel thread)
  std::span<const std::uint64_t> user_regs;
  std::span<const std::byte> user_stack;      // as many bytes as asked for
  std::uint64_t user_stack_dynamic_size = 0;  // how many of them hold the stack
  std::uint64_t weight = 0;                   // PERF_SAMPLE_WEIGHT, or the WEIGHT_STRUCT union as a u64
  std::uint64_t data_src = 0;
  std::uint64_t transaction = 0;
  std::uint64_t intr_regs_abi = 0;
  std::span<const std::uint64_t> intr_regs;
  std::uint64_t phys_addr = 0;
  std::uint64_t cgroup = 0;
  std::uint64_t data_page_size = 0;
  std::uint64_t code_page_size = 0;
  std::span<const std::byte> aux;
};

}  // namespace perfmon
