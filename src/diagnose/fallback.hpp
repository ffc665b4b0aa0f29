// SPDX-License-Identifier: Apache-2.0
// What to try after the kernel refused an event: one pure decision, made the same way wherever an
// event is opened (a session, a probe, the coming sampler and event sets).
//
//   ':P' (highest precision)  EINVAL or EOPNOTSUPP with precise_ip > 0  ->  precise_ip - 1
//   paranoid forbids kernel   EACCES or EPERM, an event that counts user and kernel space, unprivileged,
//                             perf_event_paranoid >= 2                ->  count user space only (as perf does)
//   ':W' group member         EINVAL or EBADF                         ->  open the group's events apart
//
// An event that counts only the kernel is never narrowed to user space: that would count nothing
// and call it a measurement.
#pragma once

#include <linux/perf_event.h>

#include "diagnose/privileges.hpp"

namespace perfmon::diagnose {

enum class Fallback {
  None,            // nothing else to try: the errno stands
  LowerPrecision,  // try the next lower precise_ip
  UserSpaceOnly,   // try with exclude_kernel and exclude_hv
  SplitGroup,      // open the weak group's events as groups of their own
};

struct OpenAttempt {
  perf_event_attr attr{};          // as the kernel refused it
  int errnum = 0;                  // why
  bool max_precise = false;        // ':P': the highest precise_ip the PMU takes
  bool weak_group_member = false;  // a member (not the leader) of a ':W' group
};

struct NextAttempt {
  Fallback fallback = Fallback::None;
  perf_event_attr attr{};  // what to try next (LowerPrecision, UserSpaceOnly)
};

NextAttempt next_attempt(const OpenAttempt& failed, const Privilege& privilege) noexcept;

}  // namespace perfmon::diagnose
