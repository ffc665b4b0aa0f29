// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: measurements must not see the files they are written to.
#include "perfmon/perf_data.hpp"
