// SPDX-License-Identifier: Apache-2.0
#include "events/syntax/pmc_specifier.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "events/syntax/text.hpp"

namespace perfmon::events {

namespace {
std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
}  // namespace

PmcCoreSpec parse_pmc_specifier(std::string_view specifier, std::string_view context) {
  PmcCoreSpec spec;
  std::size_t comma = specifier.find(',');
  spec.event = std::string(trim(specifier.substr(0, comma)));
  if (spec.event.empty()) fail_event(context, "name an event first, like Instr_Ret or L2_Rqsts,core=all.");
  while (comma != std::string_view::npos) {
    specifier.remove_prefix(comma + 1);
    comma = specifier.find(',');
    std::string_view item = trim(specifier.substr(0, comma));
    if (item.empty()) fail_event(context, "a qualifier is empty (two commas in a row, or a trailing comma).");
    std::size_t equals = item.find('=');
    Term qualifier{lower(trim(item.substr(0, equals))), std::nullopt};
    if (equals != std::string_view::npos) qualifier.value = lower(trim(item.substr(equals + 1)));
    if (std::any_of(spec.qualifiers.begin(), spec.qualifiers.end(),
                    [&](const Term& seen) { return seen.key == qualifier.key; }))
      fail_event(context, "'" + qualifier.key + "' is given twice.");
    spec.qualifiers.push_back(std::move(qualifier));
  }
  return spec;
}

}  // namespace perfmon::events
