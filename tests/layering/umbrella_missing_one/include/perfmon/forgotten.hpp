// SPDX-License-Identifier: Apache-2.0
// A wrong-way fixture: a header the umbrella forgets.
#pragma once
