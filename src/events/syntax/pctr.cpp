// SPDX-License-Identifier: Apache-2.0
#include "events/syntax/pctr.hpp"

#include <array>
#include <cstdio>
#include <utility>

#include "events/syntax/text.hpp"
#include "perfmon/error.hpp"

namespace perfmon::events {

namespace {

// <machine/pctr.h> of OpenBSD/i386 and amd64.
constexpr std::array<std::pair<std::string_view, std::uint32_t>, 11> kConstants = {{
    {"PCTR_U", 0x010000},
    {"PCTR_K", 0x020000},
    {"PCTR_E", 0x040000},
    {"PCTR_EN", 0x400000},
    {"PCTR_I", 0x800000},
    {"PCTR_UM_M", 0x0800},
    {"PCTR_UM_E", 0x0400},
    {"PCTR_UM_S", 0x0200},
    {"PCTR_UM_I", 0x0100},
    {"PCTR_UM_MESI", 0x0f00},
    {"PCTR_UM_A", 0x2000},
}};
constexpr unsigned kUnitMaskShift = 8, kCounterMaskShift = 24;

std::string_view strip_spaces_and_parentheses(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '(')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == ')')) text.remove_suffix(1);
  return text;
}

[[noreturn]] void fail(std::string_view whole, std::string_view term, const std::string& why) {
  fail_event("pctr:" + std::string(whole), "'" + std::string(term) + "' " + why);
}

std::uint32_t term_value(std::string_view whole, std::string_view term) {
  term = strip_spaces_and_parentheses(term);
  for (const auto& [name, value] : kConstants)
    if (term == name) return value;
  std::size_t shift_at = term.find("<<");
  if (shift_at != std::string_view::npos) {
    Number amount = parse_number(strip_spaces_and_parentheses(term.substr(0, shift_at)));
    std::string_view by = strip_spaces_and_parentheses(term.substr(shift_at + 2));
    unsigned shift = by == "PCTR_UM_SHIFT" ? kUnitMaskShift : by == "PCTR_CM_SHIFT" ? kCounterMaskShift : 99;
    if (amount.status == Number::Status::NotANumber || shift == 99)
      fail(whole, term, "is not N<<PCTR_UM_SHIFT or N<<PCTR_CM_SHIFT.");
    if (amount.status == Number::Status::TooLarge || *amount > 0xff)
      fail(whole, term, "shifts more than a byte (at most 0xff<<...).");
    return static_cast<std::uint32_t>(*amount << shift);
  }
  Number number = parse_number(term);
  if (number.status == Number::Status::NotANumber)
    fail(whole, term, "is neither a number nor a PCTR_* constant (PCTR_U, PCTR_K, PCTR_UM_MESI, ...).");
  if (number.status == Number::Status::TooLarge || *number > 0xffffffffULL)
    fail(whole, term, "is wider than the 32-bit function word (at most 0xffffffff).");
  return static_cast<std::uint32_t>(*number);
}

}  // namespace

PerfEvtSel parse_pctr_word(std::string_view text) {
  if (strip_spaces_and_parentheses(text).empty())
    fail_event("pctr:" + std::string(text), "the function word is empty; write e.g. pctr:0x2e|PCTR_UM_MESI|PCTR_U.");
  std::uint32_t word = 0;
  std::string_view rest = text;
  while (true) {
    std::size_t bar = rest.find('|');
    word |= term_value(text, rest.substr(0, bar));
    if (bar == std::string_view::npos) break;
    rest.remove_prefix(bar + 1);
  }
  return PerfEvtSel::decode(word);
}

std::string format_pctr_word(const PerfEvtSel& select) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%02x", select.event);
  std::string out = text;
  std::uint32_t umask = select.umask;
  if ((umask & 0x0f) == 0x0f) {
    out += "|PCTR_UM_MESI";
    umask &= ~0x0fU;
  }
  for (const auto& [bit, name] : {std::pair{0x08U, "PCTR_UM_M"},
                                  {0x04U, "PCTR_UM_E"},
                                  {0x02U, "PCTR_UM_S"},
                                  {0x01U, "PCTR_UM_I"},
                                  {0x20U, "PCTR_UM_A"}}) {
    if (umask & bit) {
      out += std::string("|") + name;
      umask &= ~bit;
    }
  }
  if (umask != 0) {
    std::snprintf(text, sizeof text, "|(0x%02x<<PCTR_UM_SHIFT)", umask);
    out += text;
  }
  for (auto [set, name] : {std::pair{select.usr, "PCTR_U"},
                           {select.os, "PCTR_K"},
                           {select.edge, "PCTR_E"},
                           {select.enable, "PCTR_EN"},
                           {select.invert, "PCTR_I"}})
    if (set) out += std::string("|") + name;
  // Bits pctr(4) has no name for: written as numbers so that the word stays exact.
  std::uint32_t other =
      (select.pin_control ? 1U << 19 : 0) | (select.interrupt ? 1U << 20 : 0) | (select.any_thread ? 1U << 21 : 0);
  if (other != 0) {
    std::snprintf(text, sizeof text, "|0x%x", other);
    out += text;
  }
  if (select.cmask != 0) {
    std::snprintf(text, sizeof text, "|(%u<<PCTR_CM_SHIFT)", select.cmask);
    out += text;
  }
  return out;
}

}  // namespace perfmon::events
