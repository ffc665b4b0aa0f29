// SPDX-License-Identifier: Apache-2.0
// perfmon: PAPI's preset events (PAPI_TOT_INS, PAPI_L1_DCM, PAPI_DP_OPS...) as PAPI's own table
// defines them for each CPU (papi_events.csv, BSD-3-Clause, compiled in from data/papi): each a
// native event, or a sum, difference or formula of several, held as a metric over them so that
// perfmon counts and evaluates it as any metric (perfmon stat -M PAPI_L1_DCM, perfmon list
// papi-presets, the PAPI high-level library).
#pragma once

#include <string>
#include <string_view>

#include "perfmon/metric_table.hpp"

namespace perfmon {

// The presets PAPI's table (`csv`, papi_events.csv's format: CPU lines naming libpfm4's models,
// then PRESET lines of NOT_DERIVED, DERIVED_ADD, DERIVED_SUB, DERIVED_POSTFIX or DERIVED_CMPD,
// NOTE their description) gives the CPU `cpu` (libpfm4's name: "skl", "arm_ac57"), in group
// "PAPI", a later line replacing an earlier one as in PAPI; with PAPI_TOT_CYC and PAPI_TOT_INS
// (perf's cycles and instructions) where the table has none, as PAPI adds them to every CPU (a
// CPU the table does not name has those two alone). Throws perfmon::Error (InvalidArgument) naming the line of a preset
// that is not in PAPI's format.
MetricTable papi_presets(std::string_view csv, const std::string& cpu);
// The presets of the CPU of `cpuid` (this_cpu_id()'s form) from the table perfmon ships, or from
// the file PAPI_CSV_EVENT_FILE names (PAPI's variable for its own table) where it is set. Throws
// perfmon::Error where that file cannot be read or is not in the format.
MetricTable papi_presets_for(const std::string& cpuid);
// libpfm4's name of that CPU, as PAPI's table keys it ("skl", "amd64_fam19h_zen3", "arm_ac57");
// "" where there is none.
std::string papi_cpu(const std::string& cpuid);

}  // namespace perfmon
