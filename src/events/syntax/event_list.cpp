// SPDX-License-Identifier: Apache-2.0
#include "events/syntax/event_list.hpp"

#include <cctype>
#include <cstdio>
#include <string>

#include "events/syntax/cpc.hpp"
#include "events/syntax/perf_grammar.hpp"
#include "events/syntax/text.hpp"

namespace perfmon::events {

namespace {

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

// The list as a message may quote it: its control characters as \xNN, so that none reaches a
// terminal raw and a NUL does not end the message where a C string is made of it.
std::string quoted(std::string_view whole) {
  std::string shown;
  for (const char c : whole) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      shown += c;
      continue;
    }
    char escaped[5];
    std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
    shown += escaped;
  }
  return shown;
}

[[noreturn]] void fail_list(std::string_view whole, const std::string& why) {
  throw Error(ErrorKind::InvalidEvent, "invalid event list '" + quoted(whole) + "': " + why);
}

}  // namespace

std::vector<GroupSpec> parse_event_list_syntax(std::string_view text) {
  std::vector<GroupSpec> groups;
  const std::string_view whole = text;
  if (trim(text).empty())
    throw Error(ErrorKind::InvalidEvent, "invalid event list: it is empty; name events like cycles,instructions.");
  // Event names end up in tables and messages: no control character may hide in one. Tabs and
  // newlines are whitespace between events.
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
      fail_list(whole, "it holds a control character at column " + std::to_string(i + 1) +
                           "; event lists are printable text.");
  }
  std::size_t pos = 0;
  while (pos <= text.size()) {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    GroupSpec group;
    std::vector<ParsedEvent> parsed;
    std::string group_letters;
    if (pos < text.size() && text[pos] == '{') {
      group.braced = true;
      const std::size_t open = pos;
      ++pos;
      while (true) {
        std::size_t end = scan_event(text, pos);
        if (end >= text.size())
          fail_list(whole, "the '{' at column " + std::to_string(open + 1) + " has no closing '}'.");
        if (text[end] == '{') fail_list(whole, "groups cannot be nested.");
        parsed.push_back(parse_event(trim(text.substr(pos, end - pos))));
        pos = end + 1;
        if (text[end] == '}') break;
      }
      std::size_t end = scan_event(text, pos);
      std::string_view after = trim(text.substr(pos, end - pos));
      if (!after.empty()) {
        if (after.front() != ':' || after.size() == 1)
          fail_list(whole, "after a group's '}' only ':modifiers' may follow, like {cycles,instructions}:u.");
        group_letters = std::string(after.substr(1));
      }
      if (end < text.size() && text[end] != ',')
        fail_list(whole, "unexpected '" + std::string(1, text[end]) + "' at column " + std::to_string(end + 1) + ".");
      pos = end + 1;
    } else if (text.substr(pos).starts_with("cpc/")) {
      std::size_t end = scan_event(text, pos);
      groups.push_back(parse_cpc_specification(trim(text.substr(pos, end - pos))));
      pos = end + 1;
      if (pos > text.size()) break;
      if (pos == text.size()) fail_list(whole, "it ends with a comma.");
      continue;
    } else {
      std::size_t end = scan_event(text, pos);
      if (end < text.size() && text[end] != ',')
        fail_list(whole, "unexpected '" + std::string(1, text[end]) + "' at column " + std::to_string(end + 1) + ".");
      parsed.push_back(parse_event(trim(text.substr(pos, end - pos))));
      pos = end + 1;
    }
    for (ParsedEvent& event : parsed) {
      event.spec.modifiers = parse_modifiers(event.letters + group_letters, event.spec.text);
      group.events.push_back(std::move(event.spec));
    }
    groups.push_back(std::move(group));
    if (pos > text.size()) break;
    if (pos == text.size()) fail_list(whole, "it ends with a comma.");
  }
  return groups;
}

}  // namespace perfmon::events
