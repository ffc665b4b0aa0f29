// SPDX-License-Identifier: Apache-2.0
#include "events/syntax/perf_grammar.hpp"

#include <linux/hw_breakpoint.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "events/syntax/pctr.hpp"
#include "events/syntax/pmc_specifier.hpp"
#include "events/syntax/text.hpp"

namespace perfmon::events {

namespace {

bool is_modifier_letter(char c) {
  return kModifierLetters.find(c) != std::string_view::npos;
}
bool is_hex_digit(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_access_letter(char c) {
  return c == 'r' || c == 'w' || c == 'x';
}
bool all_of(std::string_view text, bool (*pred)(char)) {
  return !text.empty() && std::all_of(text.begin(), text.end(), pred);
}

std::uint32_t parse_access(std::string_view letters, std::string_view text) {
  std::uint32_t access = 0;
  for (char c : letters) {
    std::uint32_t bit = c == 'r' ? HW_BREAKPOINT_R : c == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;
    if (access & bit) fail_event(text, "breakpoint access letter '" + std::string(1, c) + "' given twice.");
    access |= bit;
  }
  if ((access & HW_BREAKPOINT_X) && (access & HW_BREAKPOINT_RW))
    fail_event(text, "an execute breakpoint (x) cannot also watch reads or writes; use mem:ADDR:x or mem:ADDR:rw.");
  return access;
}

ParsedEvent parse_breakpoint(std::string_view text) {
  ParsedEvent parsed;
  BreakpointSpec breakpoint;
  std::string_view rest = text.substr(4);
  std::size_t colon = rest.find(':');
  std::string_view location = rest.substr(0, colon);
  rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  std::size_t slash = location.find('/');
  const std::string_view address_text = location.substr(0, slash);
  Number address = parse_number(address_text);
  if (address.status == Number::Status::NotANumber)
    fail_event(text, "the breakpoint needs an address, like mem:0x401000 or mem:0x601040/8:w.");
  breakpoint.address = field_number(text, "the breakpoint address", address_text);
  if (slash != std::string_view::npos) {
    Number length = parse_number(location.substr(slash + 1));
    if (!length || (*length != 1 && *length != 2 && *length != 4 && *length != 8))
      fail_event(text, "the breakpoint length must be 1, 2, 4 or 8 bytes.");
    breakpoint.length = static_cast<std::uint32_t>(*length);
  }
  breakpoint.access = HW_BREAKPOINT_RW;
  if (!rest.empty()) {
    colon = rest.find(':');
    std::string_view first = rest.substr(0, colon);
    if (all_of(first, is_access_letter)) {
      breakpoint.access = parse_access(first, text);
      parsed.letters = colon == std::string_view::npos ? "" : std::string(rest.substr(colon + 1));
    } else if (colon == std::string_view::npos) {
      parsed.letters = std::string(first);
    } else {
      fail_event(text, "breakpoint access must be made of r, w and x, like mem:0x601040:w.");
    }
  }
  if (breakpoint.access == HW_BREAKPOINT_X && breakpoint.length != 0 && breakpoint.length != sizeof(long))
    fail_event(text, "an execute breakpoint covers one instruction address; leave out the length.");
  parsed.spec.name = breakpoint;
  return parsed;
}

ParsedEvent parse_pmu_event(std::string_view text) {
  ParsedEvent parsed;
  std::size_t open = text.find('/');
  std::size_t close = text.find('/', open + 1);
  std::string_view pmu = text.substr(0, open);
  if (!is_name(pmu)) fail_event(text, "a PMU event is written pmu/term=value,.../, like cpu/event=0x3c/ or msr/tsc/.");
  if (close == std::string_view::npos)
    fail_event(text, "the term list of PMU '" + std::string(pmu) + "' has no closing '/'.");
  std::string_view body = text.substr(open + 1, close - open - 1);
  if (pmu == "pmc.core")
    parsed.spec.name = parse_pmc_specifier(body, text);  // its event names may hold spaces
  else
    parsed.spec.name = PmuSpec{std::string(pmu), parse_terms(body, text)};
  // Modifiers follow the closing '/' directly (cpu/event=0x3c/u) or after a colon (.../:u).
  std::string_view after = text.substr(close + 1);
  if (after.starts_with(':')) {
    after.remove_prefix(1);
    if (after.empty()) fail_event(text, "after the closing '/' only ':modifiers' may follow, like cpu/event=0x3c/u.");
  }
  parsed.letters = std::string(after);
  return parsed;
}

ParsedEvent parse_named_or_tracepoint(std::string_view text) {
  ParsedEvent parsed;
  std::size_t colon = text.find(':');
  std::string_view head = text.substr(0, colon);
  // Vendor event names are upper case (INST_RETIRED.ANY); perf's names, tracepoints and sysfs
  // events are lower case. libpfm4 takes the whole text, its modifiers included.
  bool capitals =
      std::any_of(head.begin(), head.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
  if (text.find("::") != std::string_view::npos || capitals) {
    parsed.spec.name = LibpfmSpec{std::string(text)};
    return parsed;
  }
  std::string_view rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  if (head.empty()) fail_event(text, "an event name is missing before ':'.");
  if (colon != std::string_view::npos && rest.empty()) fail_event(text, "modifiers are missing after ':'.");
  if (!is_name(head)) fail_event(text, "event names are made of letters, digits, '-', '_' and '.'.");
  bool has_modifiers_only =
      colon != std::string_view::npos && rest.find(':') == std::string_view::npos && all_of(rest, is_modifier_letter);
  if (colon == std::string_view::npos || has_modifiers_only) {
    parsed.letters = std::string(rest);
    if (head.size() > 1 && head.front() == 'r' && all_of(head.substr(1), is_hex_digit)) {
      if (head.size() > 17) fail_event(text, "a raw event has at most 16 hex digits.");
      RawSpec raw;
      std::from_chars(head.data() + 1, head.data() + head.size(), raw.config, 16);
      parsed.spec.name = raw;
    } else {
      parsed.spec.name = NamedSpec{std::string(head)};
    }
    return parsed;
  }
  colon = rest.find(':');
  std::string_view event = rest.substr(0, colon);
  if (!is_name(event))
    fail_event(text, "a tracepoint is written subsystem:name, like sched:sched_switch; or '" + std::string(rest) +
                         "' is not a modifier (known: " + std::string(kModifiersWritten) + ").");
  parsed.spec.name = TracepointSpec{std::string(head), std::string(event)};
  if (colon != std::string_view::npos) {
    parsed.letters = std::string(rest.substr(colon + 1));
    if (parsed.letters.empty()) fail_event(text, "modifiers are missing after ':'.");
  }
  return parsed;
}

}  // namespace

ParsedEvent parse_event(std::string_view text) {
  if (text.empty())
    throw Error(ErrorKind::InvalidEvent,
                "invalid event list: an event is empty (two commas in a row, or a trailing comma).");
  ParsedEvent parsed;
  if (text.starts_with("pctr:"))
    // The whole word is the pctr parser's; it takes no perf modifiers (PCTR_U and PCTR_K choose the rings).
    parsed.spec.name = PctrSpec{parse_pctr_word(text.substr(5))};
  else if (text.starts_with("mem:"))
    parsed = parse_breakpoint(text);
  else if (text.find('/') != std::string_view::npos)
    parsed = parse_pmu_event(text);
  else
    parsed = parse_named_or_tracepoint(text);
  parsed.spec.text = std::string(text);
  return parsed;
}

Modifiers parse_modifiers(std::string_view letters, std::string_view context) {
  Modifiers mods;
  auto set_once = [&](bool& flag, char c) {
    if (flag) fail_event(context, "modifier '" + std::string(1, c) + "' is given twice.");
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
        if (++mods.precise > 3) fail_event(context, "at most three 'p' modifiers (ppp) are allowed.");
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
        fail_event(context,
                   "unknown modifier '" + std::string(1, c) + "' (known: " + std::string(kModifiersWritten) + ").");
    }
  }
  if (mods.max_precise && mods.precise)
    fail_event(context, "'P' (highest precision available) and 'p' cannot be combined.");
  return mods;
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
    if (!is_name(term.key))
      fail_event(context, "a term is written name or name=value, and '" + std::string(item) + "' is neither.");
    if (equals != std::string_view::npos) {
      term.value = std::string(item.substr(equals + 1));
      if (term.value->empty()) fail_event(context, "term '" + term.key + "' has '=' but no value.");
    }
    terms.push_back(std::move(term));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return terms;
}

std::string user_space_only_name(std::string_view name) {
  // The modifier letters end the name: after its last ':' (cycles:ukp), or after the closing '/'
  // of a PMU event (cpu/event=1/uk, cpu/event=1/:uk).
  std::size_t start = name.size();
  while (start > 0 && is_modifier_letter(name[start - 1])) --start;
  const bool after_colon = start > 0 && name[start - 1] == ':';
  const bool after_slash = start > 0 && name[start - 1] == '/';
  if (!after_colon && !after_slash) start = name.size();  // letters of a name, not modifiers
  std::string letters;
  for (char c : name.substr(start))
    if (c != 'u' && c != 'k' && c != 'h') letters += c;
  std::string spelled(name.substr(0, start));
  if (!after_colon && !after_slash && !name.ends_with('/')) spelled += ':';
  return spelled + letters + "u";
}

}  // namespace perfmon::events
