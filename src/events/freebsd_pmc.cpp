#include "events/freebsd_pmc.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <span>
#include <sstream>

#include "events/embedded_data.hpp"
#include "events/event_syntax.hpp"
#include "events/suggest.hpp"
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

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::uint8_t hex_byte(const std::string& text, const std::string& line) {
  char* end = nullptr;
  unsigned long value = std::strtoul(text.c_str(), &end, 16);
  if (text.empty() || *end != '\0' || value > 0xff) throw Error("malformed pmc.core row: '" + line + "'.");
  return static_cast<std::uint8_t>(value);
}

unsigned parse_qualifier_list(const std::string& text, const std::string& line) {
  unsigned bits = 0;
  std::stringstream in(text);
  for (std::string word; in >> word;) {
    auto field = std::find_if(std::begin(kFields), std::end(kFields), [&](const QualifierField& f) {
      return f.name == word || (word == "transition" && f.name == "trans");
    });
    if (field == std::end(kFields)) throw Error("malformed pmc.core row (qualifier '" + word + "'): '" + line + "'.");
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
      if (comma == std::string::npos) throw Error("malformed pmc.core row: '" + line + "'.");
      fields.push_back(line.substr(start, comma - start));
      start = comma + 1;
    }
    fields.push_back(line.substr(start));
    if (fields[0] == "alias") {
      table.aliases.push_back(PmcAlias{fields[1], fields[2]});
      continue;
    }
    if (fields[0] != "event") throw Error("malformed pmc.core row: '" + line + "'.");
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
      throw Error("malformed pmc.core row (counter '" + fields[5] + "'): '" + line + "'.");
    event.description = fields[6];
    table.events.push_back(std::move(event));
  }
  for (const PmcAlias& alias : table.aliases) {
    if (alias.event.empty()) continue;
    bool known = std::any_of(table.events.begin(), table.events.end(),
                             [&](const PmcCoreEvent& event) { return event.name == alias.event; });
    if (!known) throw Error("pmc.core alias '" + alias.name + "' names no event of the table.");
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
[[noreturn]] void fail(const std::string& why) {
  throw Error(why);
}

const PmcCoreEvent& lookup(std::string_view name) {
  if (const PmcCoreEvent* event = find_event(name)) return *event;
  std::string key = normalise_pmc_name(name);
  for (const PmcAlias& alias : table().aliases) {
    if (normalise_pmc_name(alias.name) != key) continue;
    if (alias.event.empty())
      fail("the libpmc alias '" + alias.name +
           "' is unsupported on Intel Core Solo/Duo (the CPU has no such event); "
           "'perfmon list pmc.core' shows the events it has.");
    return *find_event(alias.event);
  }
  std::vector<std::string> names;
  for (const PmcCoreEvent& event : table().events) names.push_back(event.name);
  for (const PmcAlias& alias : table().aliases) names.push_back(alias.name);
  std::string hint = did_you_mean(nearest_names(name, names));
  fail("Intel Core Solo/Duo has no event '" + std::string(name) + "'" +
       (hint.empty() ? "; 'perfmon list pmc.core' shows the events it has." : hint));
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

PmcEncoding encode_pmc_core(std::string_view specifier) {
  std::vector<std::string_view> items;
  for (std::string_view rest = specifier;;) {
    std::size_t comma = rest.find(',');
    items.push_back(trim(rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (items.front().empty()) fail("name an event first, like Instr_Ret or L2_Rqsts,core=all.");

  PmcEncoding encoding;
  encoding.event = &lookup(items.front());
  const PmcCoreEvent& event = *encoding.event;
  PerfEvtSel& select = encoding.select;
  select.event = event.event;
  std::uint8_t umask = event.umask;
  unsigned given = 0;  // event-specific qualifiers written
  std::vector<std::string> seen;
  bool cmask_given = false, inv = false;

  for (std::size_t i = 1; i < items.size(); ++i) {
    std::string_view item = items[i];
    if (item.empty()) fail("a qualifier is empty (two commas in a row, or a trailing comma).");
    std::size_t equals = item.find('=');
    std::string key = lower(trim(item.substr(0, equals)));
    std::optional<std::string> value;
    if (equals != std::string_view::npos) value = lower(trim(item.substr(equals + 1)));
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) fail("'" + key + "' is given twice.");
    seen.push_back(key);

    if (key == "edge" || key == "inv" || key == "os" || key == "usr") {
      if (value) fail("'" + key + "' takes no value; write it alone, like " + event.name + "," + key + ".");
      if (key == "edge") select.edge = true;
      if (key == "inv") inv = true;
      if (key == "os") select.os = true;
      if (key == "usr") select.usr = true;
      continue;
    }
    if (key == "cmask") {
      auto number = value ? parse_number(*value) : std::nullopt;
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

std::vector<std::string> nearest_pmc_core_names(std::string_view name) {
  std::string key = normalise_pmc_name(name);
  std::vector<std::string> normalised;
  std::vector<std::string> spelled;
  for (const PmcCoreEvent& event : table().events) {
    normalised.push_back(normalise_pmc_name(event.name));
    spelled.push_back(event.name);
  }
  std::vector<std::string> found;
  for (const std::string& near : nearest_names(key, normalised, 2)) {
    auto at = std::find(normalised.begin(), normalised.end(), near);
    found.push_back("pmc.core/" + spelled[static_cast<std::size_t>(at - normalised.begin())] + "/");
  }
  return found;
}

std::string describe_pmc_counters(std::uint32_t counters) {
  std::string text;
  for (unsigned counter = 0; counter < 32; ++counter) {
    if (!((counters >> counter) & 1U)) continue;
    if (!text.empty()) text += " or ";
    text += "PMC" + std::to_string(counter);
  }
  return text;
}

std::vector<unsigned> place_on_counters(const std::vector<std::uint32_t>& masks, unsigned counter_count) {
  // Augmenting paths (Kuhn's matching): a handful of events and counters.
  std::vector<int> owner(counter_count, -1);
  std::vector<unsigned> placed(masks.size());
  for (std::size_t first = 0; first < masks.size(); ++first) {
    std::vector<bool> visited(counter_count, false);
    auto place = [&](auto& self, std::size_t event) -> bool {
      for (unsigned counter = 0; counter < counter_count; ++counter) {
        if (!((masks[event] >> counter) & 1U) || visited[counter]) continue;
        visited[counter] = true;
        if (owner[counter] < 0 || self(self, static_cast<std::size_t>(owner[counter]))) {
          owner[counter] = static_cast<int>(event);
          placed[event] = counter;
          return true;
        }
      }
      return false;
    };
    if (!place(place, first)) return {};
  }
  return placed;
}

}  // namespace perfmon::events
