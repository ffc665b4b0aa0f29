// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: the tool sees the public API, not the library's private headers.
#include "events/syntax/spec.hpp"
