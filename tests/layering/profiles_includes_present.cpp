// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the profiles are below the shapes that present them.
#include "perfmon/report_output.hpp"
