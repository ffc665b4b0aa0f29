// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the emulated CPU is below the sessions that count on it.
#include "perfmon/session.hpp"
