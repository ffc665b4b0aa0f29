// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the kernel-backed core does not know perfmon2's event sets built on it.
#include "perfmon/event_sets.hpp"
