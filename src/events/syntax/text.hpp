// SPDX-License-Identifier: Apache-2.0
// The lexical pieces every event grammar shares: trimming, numbers as perf writes them, name
// characters, and the one way to refuse an event string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "perfmon/error.hpp"

namespace perfmon::events {

// The text without leading and trailing whitespace.
std::string_view trim(std::string_view text);

// A number as perf writes one: 0x hex, otherwise decimal.
struct Number {
  enum class Status { Ok, NotANumber, TooLarge };  // TooLarge: digits beyond 64 bits
  Status status = Status::NotANumber;
  std::uint64_t value = 0;
  explicit operator bool() const { return status == Status::Ok; }
  std::uint64_t operator*() const { return value; }
};
Number parse_number(std::string_view text);

// The value an event string gives a field ("term 'config'", "cpc attribute 'cmask'"), from 0 to
// `max`; throws perfmon::Error naming the field and, for a value too large, its limit.
std::uint64_t field_number(std::string_view event_text, std::string_view field, std::string_view value,
                           std::uint64_t max = UINT64_MAX);
// "<field> is too large: it takes at most <max>, not '<value>'." (the limit in decimal up to 65535,
// in hex above).
std::string too_large(std::string_view field, std::string_view value, std::uint64_t max);

// Letters, digits, '_', '-' and '.': what event, PMU and term names are made of.
bool is_name_char(char c);
bool is_name(std::string_view text);

// Throws perfmon::Error "invalid event 'text': why" (why ends with a period).
[[noreturn]] void fail_event(std::string_view text, std::string_view why, ErrorKind kind = ErrorKind::InvalidEvent);

}  // namespace perfmon::events
