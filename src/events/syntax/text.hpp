// The lexical pieces every event grammar shares: trimming, numbers as perf writes them, name
// characters, and the one way to refuse an event string.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "perfmon/error.hpp"

namespace perfmon::events {

// The text without leading and trailing whitespace.
std::string_view trim(std::string_view text);

// Parses a number as perf does: 0x hex, otherwise decimal.
std::optional<std::uint64_t> parse_number(std::string_view text);

// Letters, digits, '_', '-' and '.': what event, PMU and term names are made of.
bool is_name_char(char c);
bool is_name(std::string_view text);

// Throws perfmon::Error "invalid event 'text': why" (why ends with a period).
[[noreturn]] void fail_event(std::string_view text, std::string_view why, ErrorKind kind = ErrorKind::InvalidEvent);

}  // namespace perfmon::events
