// SPDX-License-Identifier: Apache-2.0
// A wrong-way fixture for umbrella_reaches_every_header.cmake: an umbrella that leaves out forgotten.hpp.
#pragma once

#include "perfmon/included.hpp"  // Included: named here
