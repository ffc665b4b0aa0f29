// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: counts and profiles are two wings, neither above the other.
#include "perfmon/profile.hpp"
