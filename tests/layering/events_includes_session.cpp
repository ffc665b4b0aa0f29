// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: a public header of a higher layer is just as invisible.
#include "perfmon/session.hpp"
