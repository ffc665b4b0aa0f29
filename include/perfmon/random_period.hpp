// SPDX-License-Identifier: Apache-2.0
// perfmon: randomized sampling periods (perfmon2 §3.4.2). A fixed period can fall into lockstep
// with a loop of the program and sample the same instruction every time; varying each period by a
// small random amount breaks the rhythm without changing the rate much.
//
// Each period is `base + (r & (2^bits - 1))`, r the next number of the minimal standard generator
// (Park and Miller, x' = 16807 x mod (2^31 - 1); Carta's implementation is perfmon2's), so the series
// is fully determined by the seed. Its numbers have 31 bits: more random bits add nothing.
#pragma once

#include <cstdint>

namespace perfmon {

class RandomPeriod {
 public:
  // Throws perfmon::Error when bits is over 31, or the seed is 0 or 2^31 - 1 or more (0 would repeat
  // itself forever), or base + the largest variation overflows.
  RandomPeriod(std::uint64_t base, unsigned bits, std::uint32_t seed);

  // The next period of the series. Allocates nothing, throws nothing; async-signal-safe.
  std::uint64_t next() noexcept;

  std::uint64_t base() const noexcept { return base_; }
  std::uint64_t mask() const noexcept { return mask_; }
  // The generator's raw next number from `state` (exposed for its known test values).
  static std::uint32_t minimal_standard(std::uint32_t state) noexcept;

 private:
  std::uint64_t base_, mask_;
  std::uint32_t state_;
};

}  // namespace perfmon
