// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the server is C++ over the layers below; the C ABI is above it.
#include "perfmon/perfmon.h"
