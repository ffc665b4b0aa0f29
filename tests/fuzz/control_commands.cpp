// SPDX-License-Identifier: Apache-2.0
// The control channel's language as a script or a stranger may write it (perfmon stat --control):
// the first line a channel spec, the rest commands. A spec is parsed or refused with a sentence
// (perfmon::Error); a command is always read, its kind one of four, its region only where enable or
// disable names one, and nothing of it longer than what came in.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "perfmon/control_channel.hpp"
#include "perfmon/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  try {
    const perfmon::ControlSpec spec = perfmon::parse_control_spec(text.substr(0, newline));
    if (spec.control.empty() || spec.control == spec.ack) __builtin_trap();
  } catch (const perfmon::Error&) {
  }
  if (newline == std::string_view::npos) return 0;
  const perfmon::ControlCommand command = perfmon::parse_control_command(text.substr(newline + 1));
  using Kind = perfmon::ControlCommand::Kind;
  if (command.text.size() > size) __builtin_trap();
  if (!command.region.empty() && command.kind != Kind::Enable && command.kind != Kind::Disable) __builtin_trap();
  return 0;
}
