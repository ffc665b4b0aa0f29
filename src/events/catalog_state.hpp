// SPDX-License-Identifier: Apache-2.0
// The catalogue's state, shared by its resolution (catalog.cpp), its listings (listing.cpp) and the
// encodings it derives (encoding.cpp). Internal: the public face is perfmon/catalog.hpp.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "events/sources/sysfs_pmu.hpp"
#include "events/sources/tracefs.hpp"
#include "events/suggest.hpp"
#include "events/syntax/spec.hpp"
#include "perfmon/catalog.hpp"

namespace perfmon {

struct EventCatalog::State {
  CatalogPaths paths;
  std::vector<events::Pmu> pmus;

  // tracefs is found (and, if need be, mounted) on first use.
  const events::TracefsLocation& tracefs() const;
  const events::Pmu* find_pmu(std::string_view name) const;
  // The PMU that counts generic hardware events here: "cpu" on x86, "armv8_pmuv3_0" on arm64.
  const std::string& core_pmu_name() const { return core_pmu; }
  // Every name a user could mean, and the model's vendor names, prepared for suggestions on first
  // use (a command that names no unknown event never builds them).
  const events::NameIndex& known_names() const;
  const events::NameIndex& vendor_names() const;

  Event resolve(const events::EventSpec& spec) const;

  std::string core_pmu = "cpu";
  mutable std::once_flag tracefs_once;
  mutable events::TracefsLocation tracefs_location;
  mutable std::once_flag known_names_once, vendor_names_once;
  mutable events::NameIndex known_names_index, vendor_names_index;
};

}  // namespace perfmon
