// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: diagnosis must not see the measurements built on it.
#include "monitor/locations.hpp"
