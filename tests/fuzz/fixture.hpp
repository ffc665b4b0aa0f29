// SPDX-License-Identifier: Apache-2.0
// What the fuzz targets share: the event catalogues they resolve against (a fixed sysfs and
// tracefs, laid out as the kernel lays them out, so that a campaign explores the same names on
// every machine and never depends on, or mounts, the host's tracefs), and the perf.data targets'
// symbol tables.
#pragma once

#include <cstdint>
#include <memory>

#include "perfmon/catalog.hpp"
#include "perfmon/symbols.hpp"

namespace perfmon::fuzz {

// One of the catalogues, chosen by `selector`: the host's CPU model, libpfm4's Skylake, or the
// Core Solo/Duo of the pmc.core table.
const EventCatalog& catalog(std::uint8_t selector);

// The symbol tables the perf.data targets name addresses by, made once for every input: read for
// each, they were most of a target's time (a seed recording names libc, whose symbols are
// thousands), and the kernel's are read at the first call. Files are named by their own symbol
// tables: no separate debug file (libc's is 30 MB).
std::shared_ptr<SymbolTables> recording_symbols();

}  // namespace perfmon::fuzz
