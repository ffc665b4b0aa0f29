// SPDX-License-Identifier: Apache-2.0
#include "perfmon/estimate.hpp"

#include <cmath>

namespace perfmon {

CountEstimate SliceStatistics::estimate(double enabled_ns) const noexcept {
  CountEstimate result;
  result.slices = slices_;
  if (slices_ == 0 || sum_d_ <= 0) return result;
  const double rate = sum_c_ / sum_d_;
  const double total_ns = enabled_ns > sum_d_ ? enabled_ns : sum_d_;
  result.value = rate * total_ns;
  const double unobserved = 1.0 - sum_d_ / total_ns;
  if (unobserved <= 0) {  // counted all the time: nothing was extrapolated
    result.standard_error = 0.0;
    return result;
  }
  if (slices_ < 2) return result;
  const double k = static_cast<double>(slices_);
  // sum((c - m d)^2), expanded so that slices need not be kept.
  double residuals = sum_cc_ - 2 * rate * sum_cd_ + rate * rate * sum_dd_;
  if (residuals < 0) residuals = 0;  // rounding, when every slice has the same rate
  const double rate_variance = residuals / (sum_d_ * sum_d_) * k / (k - 1);
  result.standard_error = total_ns * std::sqrt(rate_variance * unobserved);
  return result;
}

}  // namespace perfmon
