// SPDX-License-Identifier: Apache-2.0
// The same machinery with includes that go the right way compiles: the failures above are the layering's.
#include "emulated/emulated_region.hpp"
#include "events/syntax/spec.hpp"
#include "kernel/fd.hpp"
#include "monitor/event_matrix.hpp"
#include "perfmon/catalog.hpp"
