// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the events layer must not see the monitor layer.
#include "monitor/event_matrix.hpp"
