// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the C ABI is the top layer; the tool above it is not seen.
#include "commands.hpp"
