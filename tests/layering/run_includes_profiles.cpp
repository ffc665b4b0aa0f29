// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: a run gives Readings and files; the profiles made of them are a wing of their own.
#include "perfmon/profile.hpp"
