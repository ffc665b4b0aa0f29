// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: profiles and counts are two wings, neither above the other.
#include "perfmon/stat.hpp"
