// SPDX-License-Identifier: Apache-2.0
// OpenBSD pctr(4) counter function words (the pctr seed): event byte, unit-mask byte
// (PCTR_UM_M/E/S/I, PCTR_UM_MESI, PCTR_UM_A), flags byte (PCTR_U, PCTR_K, PCTR_E, PCTR_EN, PCTR_I) and
// counter-mask byte (<< PCTR_CM_SHIFT) — the P6-and-later layout, the same as IA32_PERFEVTSELx.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "perfmon/perfevtsel.hpp"

namespace perfmon::events {

// Parses a function word written as OpenBSD code writes it: terms joined by '|', each a number,
// a PCTR_* constant, or "N<<PCTR_UM_SHIFT" / "N<<PCTR_CM_SHIFT" (parentheses allowed).
// Throws perfmon::Error naming the term it cannot read.
PerfEvtSel parse_pctr_word(std::string_view text);

// The word in that notation: "0x2e|PCTR_UM_MESI|PCTR_U|PCTR_K|(2<<PCTR_CM_SHIFT)".
std::string format_pctr_word(const PerfEvtSel& select);

}  // namespace perfmon::events
