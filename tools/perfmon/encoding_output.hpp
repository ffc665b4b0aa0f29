// SPDX-License-Identifier: Apache-2.0
// What encode and decode print alike.
#pragma once

#include <linux/perf_event.h>

namespace perfmon::cli {

// "perf attr:   type=4 config=0xc0 exclude_kernel"
void print_attr(const perf_event_attr& attr);

}  // namespace perfmon::cli
