// SPDX-License-Identifier: Apache-2.0
#include "events/sources/pmc_core.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <span>
#include <sstream>

#include "events/counter_placement.hpp"
#include "events/sources/embedded_data.hpp"
#include "events/suggest.hpp"
#include "events/syntax/pmc_specifier.hpp"
#include "events/syntax/text.hpp"
#include "perfmon/error.hpp"

namespace perfmon::events {

namespace {

// libpmc's unit-mask fields (lib/libpmc: iap_core_mask, iap_agent_mask, iap_prefetch_mask,
// iap_cachestate_mask, iap_transition_mask), as bits of the unit-mask byte.
struct Keyword {
  std::string_view word;
  std::uint8_t bits;
};
constexpr Keyword kCoreValues[] = {{"all", 0xc0}, {"this", 0x40}};
constexpr Keyword kAgentValues[] = {{"this", 0x00}, {"any", 0x20}};
constexpr Keyword kPrefetchValues[] = {{"both", 0x30}, {"only", 0x10}, {"exclude", 0x00}};
constexpr Keyword kTransitionValues[] = {{"any", 0x00}, {"frequency", 0x10}};
constexpr Keyword kCacheStateLetters[] = {{"m", 0x08}, {"e", 0x04}, {"s", 0x02}, {"i", 0x01}};

struct QualifierField {
  PmcQualifier qualifier;
  std::string_view name;
  std::uint8_t mask;  // the unit-mask bits it owns
  std::uint8_t default_bits;
  std::span<const Keyword> values;
};
constexpr QualifierField kFields[] = {
    {kPmcCore, "core", 0xc0, 0x40, kCoreValues},
    {kPmcAgent, "agent", 0x20, 0x00, kAgentValues},
    {kPmcPrefetch, "prefetch", 0x30, 0x30, kPrefetchValues},
    {kPmcCacheState, "cachestate", 0x0f, 0x0f, kCacheStateLetters},
    {kPmcTransition, "trans", 0x10, 0x00, kTransitionValues},
};

[[noreturn]] void malformed(const std::string& line, const std::string& what = "") {
  throw Error(ErrorKind::System, "malformed pmc.core row" + what + ": '" + line + "'.");
}

std::uint8_t hex_byte(const std::string& text, const std::string& line) {
  char* end = nullptr;
  unsigned long value = std::strtoul(text.c_str(), &end, 16);
  if (text.empty() || *end != '\0' || value > 0xff) malformed(line);
  return static_cast<std::uint8_t>(value);
}

unsigned parse_qualifier_list(const std::string& text, const std::string& line) {
  unsigned bits = 0;
  std::stringstream in(text);
  for (std::string word; in >> word;) {
    auto field = std::find_if(std::begin(kFields), std::end(kFields), [&](const QualifierField& f) {
      return f.name == word || (word == "transition" && f.name == "trans");
    });
    if (field == std::end(kFields)) malformed(line, " (qualifier '" + word + "')");
    bits |= field->qualifier;
  }
  return bits;
}

struct Table {
  std::vector<PmcCoreEvent> events;
  std::vector<PmcAlias> aliases;
};

// Rows are "kind,name,event,umask,qualifiers,counters,description"; the description is the rest
// of the line.
Table parse_table(const char* csv) {
  Table table;
  std::stringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (int i = 0; i < 6; ++i) {
      std::size_t comma = line.find(',', start);
      if (comma == std::string::npos) malformed(line);
      fields.push_back(line.substr(start, comma - start));
      start = comma + 1;
    }
    fields.push_back(line.substr(start));
    if (fields[0] == "alias") {
      table.aliases.push_back(PmcAlias{fields[1], fields[2]});
      continue;
    }
    if (fields[0] != "event") malformed(line);
    PmcCoreEvent event;
    event.name = fields[1];
    event.event = hex_byte(fields[2], line);
    event.umask = fields[3].empty() ? 0 : hex_byte(fields[3], line);
    event.qualifiers = parse_qualifier_list(fields[4], line);
    if (fields[5] == "PMC0")
      event.counters = 0x1;
    else if (fields[5] == "PMC1")
      event.counters = 0x2;
    else if (!fields[5].empty())
      malformed(line, " (counter '" + fields[5] + "')");
    event.description = fields[6];
    table.events.push_back(std::move(event));
  }
  for (const PmcAlias& alias : table.aliases) {
    if (alias.event.empty()) continue;
    bool known = std::any_of(table.events.begin(), table.events.end(),
                             [&](const PmcCoreEvent& event) { return event.name == alias.event; });
    if (!known) malformed(alias.name, " (an alias of no event of the table)");
  }
  return table;
}

const Table& table() {
  static const Table parsed = parse_table(kFreebsdPmcCoreCsv);
  return parsed;
}

std::string accepted_qualifiers(const PmcCoreEvent& event) {
  std::string specific = pmc_core_qualifiers(event);
  return "cmask=N, edge, inv, os, usr" + (specific.empty() ? "" : ", " + specific);
}

const PmcCoreEvent* find_event(std::string_view name) {
  std::string key = normalise_pmc_name(name);
  for (const PmcCoreEvent& event : table().events)
    if (normalise_pmc_name(event.name) == key) return &event;
  return nullptr;
}

// The reason alone: the caller says which event it was about.
[[noreturn]] void fail(const std::string& why, ErrorKind kind = ErrorKind::InvalidEvent) {
  throw Error(kind, why);
}

const PmcCoreEvent& lookup(std::string_view name) {
  if (const PmcCoreEvent* event = find_event(name)) return *event;
  std::string key = normalise_pmc_name(name);
  for (const PmcAlias& alias : table().aliases) {
    if (normalise_pmc_name(alias.name) != key) continue;
    if (alias.event.empty())
      fail("the libpmc alias '" + alias.name + "' is unsupported on Intel Core Solo/Duo (the CPU has no such event).",
           ErrorKind::UnknownEvent);
    return *find_event(alias.event);
  }
  static const NameIndex names = [] {
    std::vector<std::string> all;
    for (const PmcCoreEvent& event : table().events) all.push_back(event.name);
    for (const PmcAlias& alias : table().aliases) all.push_back(alias.name);
    return NameIndex(std::move(all));
  }();
  std::string hint = did_you_mean(names.nearest(name));
  fail("Intel Core Solo/Duo has no event '" + std::string(name) + "'" + (hint.empty() ? "." : hint),
       ErrorKind::UnknownEvent);
}

}  // namespace

const std::vector<PmcCoreEvent>& pmc_core_events() {
  return table().events;
}

const std::vector<PmcAlias>& pmc_core_aliases() {
  return table().aliases;
}

std::string normalise_pmc_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '-' || c == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

PmcEncoding encode_pmc_core(const PmcCoreSpec& specifier) {
  PmcEncoding encoding;
  encoding.event = &lookup(specifier.event);
  const PmcCoreEvent& event = *encoding.event;
  PerfEvtSel& select = encoding.select;
  select.event = event.event;
  std::uint8_t umask = event.umask;
  unsigned given = 0;  // event-specific qualifiers written
  bool cmask_given = false, inv = false;

  for (const Term& qualifier : specifier.qualifiers) {
    const std::string& key = qualifier.key;
    const std::optional<std::string>& value = qualifier.value;
    if (key == "edge" || key == "inv" || key == "os" || key == "usr") {
      if (value) fail("'" + key + "' takes no value; write it alone, like " + event.name + "," + key + ".");
      if (key == "edge") select.edge = true;
      if (key == "inv") inv = true;
      if (key == "os") select.os = true;
      if (key == "usr") select.usr = true;
      continue;
    }
    if (key == "cmask") {
      Number number = value ? parse_number(*value) : Number{};
      if (!number || *number > 0xff) fail("cmask takes a number from 0 to 255, like cmask=2.");
      select.cmask = static_cast<std::uint8_t>(*number);
      cmask_given = true;
      continue;
    }
    auto field =
        std::find_if(std::begin(kFields), std::end(kFields), [&](const QualifierField& f) { return f.name == key; });
    if (field == std::end(kFields))
      fail("'" + key + "' is not a qualifier; " + event.name + " takes " + accepted_qualifiers(event) + ".");
    if (!(event.qualifiers & field->qualifier))
      fail(event.name + " does not take '" + key + "='; it takes " + accepted_qualifiers(event) + ".");
    if (!value) fail("'" + key + "' needs a value; " + event.name + " takes " + accepted_qualifiers(event) + ".");
    std::uint8_t bits = 0;
    if (field->qualifier == kPmcCacheState) {
      for (char letter : *value) {
        auto state = std::find_if(std::begin(kCacheStateLetters), std::end(kCacheStateLetters),
                                  [&](const Keyword& k) { return k.word[0] == letter; });
        if (state == std::end(kCacheStateLetters))
          fail("cachestate takes the letters m, e, s and i (like cachestate=mi), not '" + std::string(1, letter) +
               "'.");
        bits |= state->bits;
      }
    } else {
      auto keyword =
          std::find_if(field->values.begin(), field->values.end(), [&](const Keyword& k) { return k.word == *value; });
      if (keyword == field->values.end())
        fail("'" + key + "=" + *value + "' is not a choice; " + event.name + " takes " + accepted_qualifiers(event) +
             ".");
      bits = keyword->bits;
    }
    umask |= bits;
    given |= field->qualifier;
  }
  if (inv && (!cmask_given || select.cmask == 0))
    fail("'inv' inverts the cmask comparison, so it needs cmask=N (N from 1 to 255) with it.");
  select.invert = inv;
  for (const QualifierField& field : kFields)
    if ((event.qualifiers & field.qualifier) && !(given & field.qualifier)) umask |= field.default_bits;
  select.umask = umask;
  encoding.rings_chosen = select.usr || select.os;
  if (!encoding.rings_chosen) select.usr = select.os = true;  // neither qualifier means both
  return encoding;
}

PmcEncoding encode_pmc_core(std::string_view specifier) {
  return encode_pmc_core(parse_pmc_specifier(specifier, "pmc.core/" + std::string(specifier) + "/"));
}

std::vector<const PmcCoreEvent*> find_pmc_core_events(const PerfEvtSel& select) {
  std::vector<const PmcCoreEvent*> found;
  for (const PmcCoreEvent& event : table().events) {
    std::uint8_t owned = 0;
    for (const QualifierField& field : kFields)
      if (event.qualifiers & field.qualifier) owned |= field.mask;
    if (event.event == select.event && (select.umask & ~owned) == event.umask) found.push_back(&event);
  }
  return found;
}

std::string format_pmc_core(const PmcCoreEvent& event, const PerfEvtSel& select) {
  std::string text = event.name;
  for (const QualifierField& field : kFields) {
    if (!(event.qualifiers & field.qualifier)) continue;
    std::uint8_t bits = select.umask & field.mask;
    if (field.qualifier == kPmcCacheState) {
      text += ",cachestate=";
      for (const Keyword& letter : kCacheStateLetters)
        if (bits & letter.bits) text += letter.word;
      continue;
    }
    for (const Keyword& keyword : field.values)
      if (keyword.bits == bits) text += "," + std::string(field.name) + "=" + std::string(keyword.word);
  }
  if (select.cmask) text += ",cmask=" + std::to_string(select.cmask);
  if (select.edge) text += ",edge";
  if (select.invert) text += ",inv";
  if (select.os != select.usr) text += select.os ? ",os" : ",usr";
  return text;
}

std::string pmc_core_qualifiers(const PmcCoreEvent& event) {
  std::string text;
  for (const QualifierField& field : kFields) {
    if (!(event.qualifiers & field.qualifier)) continue;
    text += (text.empty() ? "" : ", ") + std::string(field.name) + "=";
    if (field.qualifier == kPmcCacheState) {
      text += "[mesi]";
      continue;
    }
    for (std::size_t i = 0; i < field.values.size(); ++i) text += (i ? "|" : "") + std::string(field.values[i].word);
  }
  return text;
}

std::string describe_pmc_core_event(const PmcCoreEvent& event) {
  std::string text = event.description;
  std::string qualifiers = pmc_core_qualifiers(event);
  if (!qualifiers.empty()) text += " [" + qualifiers + "]";
  if (event.counters != kPmcAnyCounter) text += " [" + describe_counters(event.counters) + " only]";
  return text;
}

std::vector<std::string> nearest_pmc_core_names(std::string_view name) {
  // Compared in normal form (FreeBSD's names ignore case, '_' and '-'), suggested as spelled.
  static const NameIndex normalised = [] {
    std::vector<std::string> names;
    for (const PmcCoreEvent& event : table().events) names.push_back(normalise_pmc_name(event.name));
    return NameIndex(std::move(names));
  }();
  std::vector<std::string> found;
  for (const std::string& near : normalised.nearest(normalise_pmc_name(name), 2)) {
    for (const PmcCoreEvent& event : table().events) {
      if (normalise_pmc_name(event.name) == near) {
        found.push_back("pmc.core/" + event.name + "/");
        break;
      }
    }
  }
  return found;
}

}  // namespace perfmon::events
