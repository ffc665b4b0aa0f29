// SPDX-License-Identifier: Apache-2.0
// The event catalogues the fuzz targets resolve against: a fixed sysfs and tracefs, laid out as the
// kernel lays them out, so that a campaign explores the same names on every machine and never
// depends on (or mounts) the host's tracefs.
#pragma once

#include <cstdint>

#include "perfmon/catalog.hpp"

namespace perfmon::fuzz {

// One of the catalogues, chosen by `selector`: the host's CPU model, libpfm4's Skylake, or the
// Core Solo/Duo of the pmc.core table.
const EventCatalog& catalog(std::uint8_t selector);

}  // namespace perfmon::fuzz
