// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong-way: runs are what serve is built on; its exporter sits above them.
#include "perfmon/metrics.hpp"
