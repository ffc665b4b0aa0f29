// SPDX-License-Identifier: Apache-2.0
#include "perfmon/random_period.hpp"

#include <cerrno>
#include <cstdint>
#include <string>

#include "perfmon/error.hpp"

namespace perfmon {

namespace {
constexpr std::uint64_t kModulus = 2147483647;  // 2^31 - 1
}

std::uint32_t RandomPeriod::minimal_standard(std::uint32_t state) noexcept {
  return static_cast<std::uint32_t>(std::uint64_t{16807} * state % kModulus);
}

RandomPeriod::RandomPeriod(std::uint64_t base, unsigned bits, std::uint32_t seed)
    : base_(base), mask_(bits == 0 ? 0 : (std::uint64_t{1} << bits) - 1), state_(seed) {
  if (bits > 31)
    throw Error(ErrorKind::InvalidArgument,
                "a random period varies by at most 31 bits (the generator's numbers have 31), not " +
                    std::to_string(bits) + ".",
                EINVAL);
  if (seed == 0 || seed >= kModulus)
    throw Error(ErrorKind::InvalidArgument,
                "a random seed is from 1 to 2147483646 (0 would give the same number forever), not " +
                    std::to_string(seed) + ".",
                EINVAL);
  if (base == 0 || base > UINT64_MAX / 2 - mask_)
    throw Error(ErrorKind::InvalidArgument,
                "a sampling period is from 1 to 2^63 - 1 with its random part, not " + std::to_string(base) + ".",
                EINVAL);
}

std::uint64_t RandomPeriod::next() noexcept {
  state_ = minimal_standard(state_);
  return base_ + (state_ & mask_);
}

}  // namespace perfmon
