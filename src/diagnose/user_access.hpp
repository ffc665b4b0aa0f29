// SPDX-License-Identifier: Apache-2.0
// Whether the system lets user mode read hardware counters (x86 rdpmc, arm64 mrs), and if not, why.
#pragma once

#include <string>

namespace perfmon::diagnose {

// "" when user mode may read counters; otherwise why not and how to allow it.
std::string user_access_unavailable_reason();

}  // namespace perfmon::diagnose
