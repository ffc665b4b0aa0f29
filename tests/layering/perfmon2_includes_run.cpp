// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: event sets are one kind of measurement; the run layer that runs them sits above.
#include "perfmon/measurement.hpp"
