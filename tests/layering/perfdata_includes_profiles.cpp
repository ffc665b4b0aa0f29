// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: perf.data files are read and written without the profiles made of them.
#include "perfmon/profile.hpp"
