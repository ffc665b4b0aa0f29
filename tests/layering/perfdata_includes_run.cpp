// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: perf.data is written by recordings, which sit above it.
#include "perfmon/recording.hpp"
