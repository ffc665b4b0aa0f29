// SPDX-License-Identifier: Apache-2.0
#include "events/syntax/cpc.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

#include "events/syntax/perf_grammar.hpp"
#include "events/syntax/text.hpp"

namespace perfmon::events {

GroupSpec parse_cpc_specification(std::string_view text) {
  std::string_view body = text.substr(4);
  if (!body.ends_with('/'))
    fail_event(text,
               "a cpc specification is written cpc/pic0=EVENT,pic1=EVENT[,sys][,nouser]/ and needs its closing '/'.");
  body.remove_suffix(1);
  std::vector<std::pair<unsigned, std::string_view>> pics;
  bool sys = false, nouser = false;
  std::vector<Term> attributes;
  for (const Term& term : parse_terms(body, text)) {
    if (term.key.starts_with("pic") && term.key.size() > 3 &&
        std::all_of(term.key.begin() + 3, term.key.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      if (!term.value) fail_event(text, "'" + term.key + "' needs an event, like " + term.key + "=cycles.");
      // Counters are bits of a 32-bit mask (Event::counters): pic0 to pic31.
      const auto counter =
          static_cast<unsigned>(field_number(text, "counter '" + term.key + "'", term.key.substr(3), 31));
      for (const auto& [known, event] : pics)
        if (known == counter) fail_event(text, "counter " + term.key + " is given twice.");
      std::size_t offset = body.find(term.key + "=" + *term.value);
      pics.emplace_back(counter, body.substr(offset + term.key.size() + 1, term.value->size()));
    } else if (term.key == "sys" && !term.value) {
      sys = true;
    } else if (term.key == "nouser" && !term.value) {
      nouser = true;
    } else if (term.key == "cmask" || term.key == "umask" || term.key == "inv" || term.key == "edge") {
      attributes.push_back(term);
    } else {
      fail_event(text, "'" + term.key + "' is not a cpc term (picN=EVENT, sys, nouser, cmask=, umask=, inv, edge).");
    }
  }
  if (pics.empty()) fail_event(text, "a cpc specification names at least one counter, like pic0=cycles.");
  if (nouser && !sys) fail_event(text, "'nouser' without 'sys' counts nothing; add 'sys' to count the kernel.");
  std::sort(pics.begin(), pics.end());
  GroupSpec group;
  group.braced = true;
  for (const auto& [counter, event_text] : pics) {
    ParsedEvent parsed = parse_event(event_text);
    if (!parsed.letters.empty())
      fail_event(text, "cpc chooses the rings with 'sys' and 'nouser'; drop ':" + parsed.letters + "' from '" +
                           std::string(event_text) + "'.");
    if (const auto* libpfm = std::get_if<LibpfmSpec>(&parsed.spec.name);
        libpfm != nullptr && libpfm->text.find(':') != std::string::npos)
      fail_event(text, "cpc chooses the rings with 'sys' and 'nouser'; give '" + std::string(event_text) +
                           "' without modifiers.");
    parsed.spec.text = "pic" + std::to_string(counter) + "=" + std::string(event_text);
    parsed.spec.modifiers.user = !nouser;
    parsed.spec.modifiers.kernel = sys;
    parsed.spec.cpc_attributes = attributes;
    parsed.spec.cpc_counter = counter;
    group.events.push_back(std::move(parsed.spec));
  }
  return group;
}

}  // namespace perfmon::events
