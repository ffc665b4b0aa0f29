// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the CPU-architecture layer must not see the kernel layer.
#include "kernel/fd.hpp"
