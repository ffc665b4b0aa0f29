#include "events/event_syntax.hpp"

#include <linux/hw_breakpoint.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "perfmon/error.hpp"

namespace perfmon::events {

namespace {

constexpr std::string_view kModifierLetters = "ukhGHpPDSIeW";

[[noreturn]] void fail(std::string_view text, std::string_view why) {
  throw Error("invalid event '" + std::string(text) + "': " + std::string(why));
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

bool all_of(std::string_view text, bool (*pred)(char)) {
  return !text.empty() && std::all_of(text.begin(), text.end(), pred);
}

bool is_modifier_letter(char c) {
  return kModifierLetters.find(c) != std::string_view::npos;
}
bool is_hex_digit(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_access_letter(char c) {
  return c == 'r' || c == 'w' || c == 'x';
}

// End of one event starting at `pos`: the next ',' or '}' outside pmu/.../ (breakpoints have no
// terms, so a '/' there is the length separator).
std::size_t scan_event(std::string_view text, std::size_t pos) {
  bool breakpoint = text.substr(pos).starts_with("mem:");
  bool in_terms = false;
  std::size_t i = pos;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && !breakpoint) in_terms = !in_terms;
    if (!in_terms && (c == ',' || c == '}' || c == '{')) break;
  }
  return i;
}

struct RawSpec {
  EventSpec spec;
  std::string letters;  // modifier letters, parsed once group letters are merged in
};

std::uint32_t parse_access(std::string_view letters, std::string_view text) {
  std::uint32_t access = 0;
  for (char c : letters) {
    std::uint32_t bit = c == 'r' ? HW_BREAKPOINT_R : c == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;
    if (access & bit) fail(text, "breakpoint access letter '" + std::string(1, c) + "' given twice.");
    access |= bit;
  }
  if ((access & HW_BREAKPOINT_X) && (access & HW_BREAKPOINT_RW))
    fail(text, "an execute breakpoint (x) cannot also watch reads or writes; use mem:ADDR:x or mem:ADDR:rw.");
  return access;
}

RawSpec parse_breakpoint(std::string_view text) {
  RawSpec raw;
  EventSpec& spec = raw.spec;
  spec.kind = EventSpec::Kind::Breakpoint;
  std::string_view rest = text.substr(4);
  std::size_t colon = rest.find(':');
  std::string_view location = rest.substr(0, colon);
  rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  std::size_t slash = location.find('/');
  auto address = parse_number(location.substr(0, slash));
  if (!address) fail(text, "the breakpoint needs an address, like mem:0x401000 or mem:0x601040/8:w.");
  spec.address = *address;
  if (slash != std::string_view::npos) {
    auto length = parse_number(location.substr(slash + 1));
    if (!length || (*length != 1 && *length != 2 && *length != 4 && *length != 8))
      fail(text, "the breakpoint length must be 1, 2, 4 or 8 bytes.");
    spec.length = static_cast<std::uint32_t>(*length);
  }
  spec.access = HW_BREAKPOINT_RW;
  if (!rest.empty()) {
    colon = rest.find(':');
    std::string_view first = rest.substr(0, colon);
    if (all_of(first, is_access_letter)) {
      spec.access = parse_access(first, text);
      raw.letters = colon == std::string_view::npos ? "" : std::string(rest.substr(colon + 1));
    } else if (colon == std::string_view::npos) {
      raw.letters = std::string(first);
    } else {
      fail(text, "breakpoint access must be made of r, w and x, like mem:0x601040:w.");
    }
  }
  if (spec.access == HW_BREAKPOINT_X && spec.length != 0 && spec.length != sizeof(long))
    fail(text, "an execute breakpoint covers one instruction address; leave out the length.");
  return raw;
}

RawSpec parse_pmu_event(std::string_view text) {
  RawSpec raw;
  EventSpec& spec = raw.spec;
  spec.kind = EventSpec::Kind::Pmu;
  std::size_t open = text.find('/');
  std::size_t close = text.find('/', open + 1);
  spec.name = std::string(text.substr(0, open));
  if (spec.name.empty() || !all_of(spec.name, is_name_char))
    fail(text, "a PMU event is written pmu/term=value,.../, like cpu/event=0x3c/ or msr/tsc/.");
  if (close == std::string_view::npos) fail(text, "the term list of PMU '" + spec.name + "' has no closing '/'.");
  if (spec.name == "pmc.core") {
    // FreeBSD libpmc's "Event[,qualifier[=value]]...": names may hold spaces; the table's parser reads it.
    spec.kind = EventSpec::Kind::FreebsdPmc;
    spec.event = std::string(text.substr(open + 1, close - open - 1));
  } else {
    spec.terms = parse_terms(text.substr(open + 1, close - open - 1), text);
  }
  // Modifiers follow the closing '/' directly (cpu/event=0x3c/u) or after a colon (.../:u).
  std::string_view after = text.substr(close + 1);
  if (after.starts_with(':')) {
    after.remove_prefix(1);
    if (after.empty()) fail(text, "after the closing '/' only ':modifiers' may follow, like cpu/event=0x3c/u.");
  }
  raw.letters = std::string(after);
  return raw;
}

RawSpec parse_named_or_tracepoint(std::string_view text) {
  RawSpec raw;
  EventSpec& spec = raw.spec;
  std::size_t colon = text.find(':');
  std::string_view head = text.substr(0, colon);
  // Vendor event names are upper case (INST_RETIRED.ANY); perf's names, tracepoints and sysfs
  // events are lower case. libpfm4 takes the whole text, its modifiers included.
  bool capitals =
      std::any_of(head.begin(), head.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
  if (text.find("::") != std::string_view::npos || capitals) {
    spec.kind = EventSpec::Kind::Libpfm;
    spec.name = std::string(text);
    return raw;
  }
  std::string_view rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  if (head.empty()) fail(text, "an event name is missing before ':'.");
  if (colon != std::string_view::npos && rest.empty()) fail(text, "modifiers are missing after ':'.");
  if (!all_of(head, is_name_char))
    fail(text, "event names are made of letters, digits, '-', '_' and '.'; see 'perfmon list'.");
  bool has_modifiers_only =
      colon != std::string_view::npos && rest.find(':') == std::string_view::npos && all_of(rest, is_modifier_letter);
  if (colon == std::string_view::npos || has_modifiers_only) {
    raw.letters = std::string(rest);
    if (head.size() > 1 && head.front() == 'r' && all_of(head.substr(1), is_hex_digit)) {
      if (head.size() > 17) fail(text, "a raw event has at most 16 hex digits.");
      spec.kind = EventSpec::Kind::Raw;
      spec.raw = std::stoull(std::string(head.substr(1)), nullptr, 16);
    } else {
      spec.kind = EventSpec::Kind::Named;
      spec.name = std::string(head);
    }
    return raw;
  }
  spec.kind = EventSpec::Kind::Tracepoint;
  spec.name = std::string(head);
  colon = rest.find(':');
  spec.event = std::string(rest.substr(0, colon));
  if (spec.event.empty() || !all_of(spec.event, is_name_char))
    fail(text, "a tracepoint is written subsystem:name, like sched:sched_switch; or '" + std::string(rest) +
                   "' is not a modifier (known: " + std::string(kModifierLetters) + ").");
  if (colon != std::string_view::npos) {
    raw.letters = std::string(rest.substr(colon + 1));
    if (raw.letters.empty()) fail(text, "modifiers are missing after ':'.");
  }
  return raw;
}

// pctr:WORD — the whole word goes to the pctr parser; it takes no perf modifiers (PCTR_U and PCTR_K
// say which rings count).
RawSpec parse_pctr(std::string_view text) {
  RawSpec raw;
  raw.spec.kind = EventSpec::Kind::Pctr;
  raw.spec.name = std::string(text.substr(5));
  return raw;
}

RawSpec parse_event(std::string_view text) {
  if (text.empty()) throw Error("invalid event list: an event is empty (two commas in a row, or a trailing comma).");
  RawSpec raw = text.starts_with("pctr:")                  ? parse_pctr(text)
                : text.starts_with("mem:")                 ? parse_breakpoint(text)
                : text.find('/') != std::string_view::npos ? parse_pmu_event(text)
                                                           : parse_named_or_tracepoint(text);
  raw.spec.text = std::string(text);
  return raw;
}

// Solaris cpc_strtoevent(3CPC): "pic0=EC_ref,pic1=EC_hit[,sys][,nouser][,attr=value]", written
// cpc/.../ on perfmon's command line so that its commas stay inside one item.
GroupSpec parse_cpc(std::string_view text) {
  std::string_view body = text.substr(4);
  if (!body.ends_with('/'))
    fail(text, "a cpc specification is written cpc/pic0=EVENT,pic1=EVENT[,sys][,nouser]/ and needs its closing '/'.");
  body.remove_suffix(1);
  std::vector<std::pair<unsigned, std::string_view>> pics;
  bool sys = false, nouser = false;
  std::vector<Term> attributes;
  for (const Term& term : parse_terms(body, text)) {
    if (term.key.starts_with("pic") && term.key.size() > 3 &&
        std::all_of(term.key.begin() + 3, term.key.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      if (!term.value) fail(text, "'" + term.key + "' needs an event, like " + term.key + "=cycles.");
      unsigned counter = static_cast<unsigned>(std::stoul(term.key.substr(3)));
      for (const auto& [known, event] : pics)
        if (known == counter) fail(text, "counter " + term.key + " is given twice.");
      std::size_t offset = body.find(term.key + "=" + *term.value);
      pics.emplace_back(counter, body.substr(offset + term.key.size() + 1, term.value->size()));
    } else if (term.key == "sys" && !term.value) {
      sys = true;
    } else if (term.key == "nouser" && !term.value) {
      nouser = true;
    } else if (term.key == "cmask" || term.key == "umask" || term.key == "inv" || term.key == "edge") {
      attributes.push_back(term);
    } else {
      fail(text, "'" + term.key + "' is not a cpc term (picN=EVENT, sys, nouser, cmask=, umask=, inv, edge).");
    }
  }
  if (pics.empty()) fail(text, "a cpc specification names at least one counter, like pic0=cycles.");
  if (nouser && !sys) fail(text, "'nouser' without 'sys' counts nothing; add 'sys' to count the kernel.");
  std::sort(pics.begin(), pics.end());
  GroupSpec group;
  group.braced = true;
  for (const auto& [counter, event_text] : pics) {
    RawSpec raw = parse_event(event_text);
    if (!raw.letters.empty())
      fail(text, "cpc chooses the rings with 'sys' and 'nouser'; drop ':" + raw.letters + "' from '" +
                     std::string(event_text) + "'.");
    if (raw.spec.kind == EventSpec::Kind::Libpfm && raw.spec.name.find(':') != std::string::npos)
      fail(text,
           "cpc chooses the rings with 'sys' and 'nouser'; give '" + std::string(event_text) + "' without modifiers.");
    raw.spec.text = "pic" + std::to_string(counter) + "=" + std::string(event_text);
    raw.spec.modifiers.user = !nouser;
    raw.spec.modifiers.kernel = sys;
    raw.spec.cpc_attributes = attributes;
    raw.spec.cpc_counter = counter;
    group.events.push_back(std::move(raw.spec));
  }
  return group;
}

}  // namespace

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

Modifiers parse_modifiers(std::string_view letters, std::string_view context) {
  Modifiers mods;
  auto set_once = [&](bool& flag, char c) {
    if (flag) fail(context, "modifier '" + std::string(1, c) + "' is given twice.");
    flag = true;
  };
  for (char c : letters) {
    switch (c) {
      case 'u':
        set_once(mods.user, c);
        break;
      case 'k':
        set_once(mods.kernel, c);
        break;
      case 'h':
        set_once(mods.hypervisor, c);
        break;
      case 'G':
        set_once(mods.guest, c);
        break;
      case 'H':
        set_once(mods.host, c);
        break;
      case 'p':
        if (++mods.precise > 3) fail(context, "at most three 'p' modifiers (ppp) are allowed.");
        break;
      case 'P':
        set_once(mods.max_precise, c);
        break;
      case 'D':
        set_once(mods.pinned, c);
        break;
      case 'S':
        set_once(mods.group_read, c);
        break;
      case 'I':
        set_once(mods.exclude_idle, c);
        break;
      case 'e':
        set_once(mods.exclusive, c);
        break;
      case 'W':
        set_once(mods.weak_group, c);
        break;
      default:
        fail(context, "unknown modifier '" + std::string(1, c) + "' (known: u k h G H p pp ppp P D S I e W).");
    }
  }
  if (mods.max_precise && mods.precise) fail(context, "'P' (highest precision available) and 'p' cannot be combined.");
  return mods;
}

std::optional<std::uint64_t> parse_number(std::string_view text) {
  std::uint64_t value = 0;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  if (text.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::vector<Term> parse_terms(std::string_view text, std::string_view context) {
  std::vector<Term> terms;
  if (text.empty()) return terms;
  while (true) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    std::size_t equals = item.find('=');
    Term term;
    term.key = std::string(item.substr(0, equals));
    if (term.key.empty() || !all_of(term.key, is_name_char))
      fail(context, "a term is written name or name=value, and '" + std::string(item) + "' is neither.");
    if (equals != std::string_view::npos) {
      term.value = std::string(item.substr(equals + 1));
      if (term.value->empty()) fail(context, "term '" + term.key + "' has '=' but no value.");
    }
    terms.push_back(std::move(term));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return terms;
}

std::vector<GroupSpec> parse_event_list_syntax(std::string_view text) {
  std::vector<GroupSpec> groups;
  std::string_view whole = text;
  if (trim(text).empty()) throw Error("invalid event list: it is empty; name events like -e cycles,instructions.");
  std::size_t pos = 0;
  while (pos <= text.size()) {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    GroupSpec group;
    std::vector<RawSpec> raws;
    std::string group_letters;
    if (pos < text.size() && text[pos] == '{') {
      group.braced = true;
      std::size_t close = text.find('}', pos);
      if (close == std::string_view::npos)
        throw Error("invalid event list '" + std::string(whole) + "': the '{' at column " + std::to_string(pos + 1) +
                    " has no closing '}'.");
      ++pos;
      while (true) {
        std::size_t end = scan_event(text, pos);
        if (end < text.size() && text[end] == '{')
          throw Error("invalid event list '" + std::string(whole) + "': groups cannot be nested.");
        raws.push_back(parse_event(trim(text.substr(pos, end - pos))));
        pos = end + 1;
        if (end >= text.size() || text[end] == '}') break;
      }
      std::size_t end = scan_event(text, pos);
      std::string_view after = trim(text.substr(pos, end - pos));
      if (!after.empty()) {
        if (after.front() != ':' || after.size() == 1)
          throw Error("invalid event list '" + std::string(whole) +
                      "': after a group's '}' only ':modifiers' may follow, like {cycles,instructions}:u.");
        group_letters = std::string(after.substr(1));
      }
      pos = end + 1;
    } else if (text.substr(pos).starts_with("cpc/")) {
      std::size_t end = scan_event(text, pos);
      groups.push_back(parse_cpc(trim(text.substr(pos, end - pos))));
      pos = end + 1;
      if (pos > text.size()) break;
      if (pos == text.size()) throw Error("invalid event list '" + std::string(whole) + "': it ends with a comma.");
      continue;
    } else {
      std::size_t end = scan_event(text, pos);
      if (end < text.size() && text[end] != ',')
        throw Error("invalid event list '" + std::string(whole) + "': unexpected '" + std::string(1, text[end]) +
                    "' at column " + std::to_string(end + 1) + ".");
      raws.push_back(parse_event(trim(text.substr(pos, end - pos))));
      pos = end + 1;
    }
    for (RawSpec& raw : raws) {
      raw.spec.modifiers = parse_modifiers(raw.letters + group_letters, raw.spec.text);
      group.events.push_back(std::move(raw.spec));
    }
    groups.push_back(std::move(group));
    if (pos > text.size()) break;
    if (pos == text.size()) throw Error("invalid event list '" + std::string(whole) + "': it ends with a comma.");
  }
  return groups;
}

}  // namespace perfmon::events
