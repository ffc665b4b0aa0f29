// SPDX-License-Identifier: Apache-2.0
// perfmon: perf's control channel — a FIFO (or an inherited descriptor) through which a program or
// a script turns counting on and off while a measurement runs (`perf stat -D -1 --control
// fifo:CTL,ACK`), with perfmon's named regions on top: "enable NAME" / "disable NAME" count the
// stretches between them apart (regions.hpp keeps their sums).
//
//   perfmon::ControlChannel channel("fifo:/tmp/ctl,/tmp/ack");
//   // poll(channel.fd()), or O_ASYNC on it; then
//   for (const perfmon::ControlCommand& command : channel.take()) {
//     act_on(command);
//     channel.acknowledge();  // "ack\n", for a writer that waits until the command took effect
//   }
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perfmon {

// One line of the channel's language. perf's words: "enable", "disable", "ping" (answered with an
// ack only). perfmon's: "enable NAME" and "disable NAME", a named region's start and end.
struct ControlCommand {
  enum class Kind { Enable, Disable, Ping, Unknown } kind = Kind::Unknown;
  std::string region;  // the NAME of "enable NAME" / "disable NAME"; empty for all of the counting
  std::string text;    // the line as received, blanks at its ends trimmed (a line of over 1 KiB: its start, said so)
};

// Reads one command; anything else is Kind::Unknown (a caller warns and goes on, as perf does).
ControlCommand parse_control_command(std::string_view line);

// The channel as written: "fifo:CTL[,ACK]" (paths) or "fd:CTL[,ACK]" (descriptor numbers). Throws
// perfmon::Error (InvalidArgument) for another form, a descriptor that is not a number, or one
// name for both channels (perfmon would read its own acks): a mistake the user can see at once.
struct ControlSpec {
  bool descriptors = false;  // fd:
  std::string control, ack;  // ack empty: none
};
ControlSpec parse_control_spec(std::string_view spec);

class ControlChannel {
 public:
  // "fifo:CTL[,ACK]": FIFOs that exist (mkfifo), opened read-write, so that writers may come and
  // go without an end of file — never through a symlink, and only those the caller or root owns;
  // or "fd:CTL[,ACK]": descriptors this process inherited, taken over (their flags left as they
  // are). Throws perfmon::Error: InvalidArgument for what parse_control_spec refuses, a path that
  // is not a FIFO, a symlink, or the same file for both; Permission for another user's FIFO;
  // System (with the errno) where one cannot be opened.
  explicit ControlChannel(std::string_view spec);
  ~ControlChannel();
  ControlChannel(ControlChannel&&) noexcept;
  ControlChannel& operator=(ControlChannel&&) noexcept;

  // The descriptor commands arrive on (non-blocking): to poll, or to have a signal sent (O_ASYNC).
  int fd() const noexcept;
  // The commands that have arrived, in order, without blocking. A command is a line; what a writer
  // wrote without a newline counts once nothing more is waiting (a write of up to PIPE_BUF bytes
  // arrives whole).
  std::vector<ControlCommand> take();
  // "ack\n" on the ack channel, where there is one: the command before took effect. Returns 0 or
  // the errno of the write (EAGAIN where nobody reads the acks and the FIFO is full: dropped).
  int acknowledge() noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
