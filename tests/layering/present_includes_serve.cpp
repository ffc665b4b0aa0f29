// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the shapes know nothing of the server that serves some of them.
#include "perfmon/metrics.hpp"
