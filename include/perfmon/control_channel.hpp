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
  std::string text;    // the line as received, blanks at its ends trimmed
};

// Reads one command; anything else is Kind::Unknown (a caller warns and goes on, as perf does).
ControlCommand parse_control_command(std::string_view line);

class ControlChannel {
 public:
  // "fifo:CTL[,ACK]": FIFOs that exist (mkfifo), opened read-write, so that writers may come and
  // go without an end of file; or "fd:CTL[,ACK]": descriptors this process inherited, taken over.
  // Throws perfmon::Error: InvalidArgument for another form or a path that is not a FIFO, System
  // (with the errno) where one cannot be opened.
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
