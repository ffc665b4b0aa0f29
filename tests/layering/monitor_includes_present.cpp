// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: measurements must not see how they are presented.
#include "present/shapes.hpp"
