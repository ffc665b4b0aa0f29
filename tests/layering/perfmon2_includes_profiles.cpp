// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: event sets are measurements; the profiles they might feed sit beside them, unseen.
#include "perfmon/profile.hpp"
