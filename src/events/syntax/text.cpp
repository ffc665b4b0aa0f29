// SPDX-License-Identifier: Apache-2.0
#include "events/syntax/text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <string>

namespace perfmon::events {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

Number parse_number(std::string_view text) {
  Number number;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  if (text.empty()) return number;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number.value, base);
  if (end != text.data() + text.size()) return number;  // not digits to the end (from_chars stops there)
  if (ec == std::errc::result_out_of_range) number.status = Number::Status::TooLarge;
  if (ec == std::errc()) number.status = Number::Status::Ok;
  return number;
}

std::string too_large(std::string_view field, std::string_view value, std::uint64_t max) {
  char limit[32];
  std::snprintf(limit, sizeof limit, max < 65536 ? "%llu" : "0x%llx", static_cast<unsigned long long>(max));
  return std::string(field) + " is too large: it takes at most " + limit + ", not '" + std::string(value) + "'.";
}

std::uint64_t field_number(std::string_view event_text, std::string_view field, std::string_view value,
                           std::uint64_t max) {
  Number number = parse_number(value);
  if (number.status == Number::Status::NotANumber)
    fail_event(event_text,
               std::string(field) + " needs a number (decimal or 0x hex), not '" + std::string(value) + "'.");
  if (number.status == Number::Status::TooLarge || number.value > max)
    fail_event(event_text, too_large(field, value, max));
  return number.value;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

bool is_name(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_name_char);
}

void fail_event(std::string_view text, std::string_view why, ErrorKind kind) {
  throw Error(kind, "invalid event '" + std::string(text) + "': " + std::string(why));
}

}  // namespace perfmon::events
