// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the counts are below the shapes that print them.
#include "perfmon/stat_output.hpp"
