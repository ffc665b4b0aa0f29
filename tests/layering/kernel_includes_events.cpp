// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the kernel layer must not see the events layer.
#include "events/catalog_state.hpp"
