// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the kernel interface knows nothing of the emulated CPU.
#include "perfmon/emulated.hpp"
