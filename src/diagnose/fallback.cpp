// SPDX-License-Identifier: Apache-2.0
#include "diagnose/fallback.hpp"

#include <cerrno>

namespace perfmon::diagnose {

NextAttempt next_attempt(const OpenAttempt& failed, const Privilege& privilege) noexcept {
  NextAttempt next;
  next.attr = failed.attr;
  const int err = failed.errnum;
  if (failed.max_precise && failed.attr.precise_ip > 0 && (err == EINVAL || err == EOPNOTSUPP)) {
    next.fallback = Fallback::LowerPrecision;
    next.attr.precise_ip = failed.attr.precise_ip - 1;
    return next;
  }
  const bool counts_both_rings = !failed.attr.exclude_user && !failed.attr.exclude_kernel;
  if ((err == EACCES || err == EPERM) && counts_both_rings && !privilege.privileged && privilege.paranoid >= 2) {
    next.fallback = Fallback::UserSpaceOnly;
    next.attr.exclude_kernel = 1;
    next.attr.exclude_hv = 1;
    return next;
  }
  if (failed.weak_group_member && (err == EINVAL || err == EBADF)) next.fallback = Fallback::SplitGroup;
  return next;
}

}  // namespace perfmon::diagnose
