// SPDX-License-Identifier: Apache-2.0
// What the host's measurements stand on: the native command, if the request gives one, and the
// target it or the request names.
#pragma once

#include <optional>

#include "perfmon/measurement.hpp"
#include "perfmon/target.hpp"
#include "perfmon/workload.hpp"

namespace perfmon::kinds {

class NativeTarget {
 public:
  explicit NativeTarget(const MeasurementRequest& request) {
    if (!request.command.empty()) {
      workload_.emplace(request.command);
      command_.emplace(*workload_);
    }
    target_ = make_target(request.target, workload_ ? &*workload_ : nullptr);
    if (request.start_paused) target_.enable_on_exec = false;  // on when resumed, not at the exec
  }
  Command* command() noexcept { return command_ ? &*command_ : nullptr; }
  const Target& target() const noexcept { return target_; }

 private:
  std::optional<Workload> workload_;
  std::optional<CommandOf<Workload>> command_;
  Target target_;
};

}  // namespace perfmon::kinds
