// SPDX-License-Identifier: Apache-2.0
#include "perfmon/control_channel.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kernel/fd.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

namespace {

// No command comes near it; a longer line is refused once, not echoed in pieces.
constexpr std::size_t kLongestCommand = 1024;

constexpr const char* kForms = "a control channel is fifo:CTL[,ACK] (FIFOs made with mkfifo) or fd:CTL[,ACK]";

std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

Error invalid(const std::string& message) {
  return Error(ErrorKind::InvalidArgument, message, EINVAL);
}

// The ends a channel reads commands from. Its reading end is opened read-only and holds no writer:
// the kernel signals a pipe's writers (O_ASYNC's POLL_OUT) after every read, which would wake the
// reader that asked for signals after each of its own reads. `keeper`, a writing end, keeps the
// FIFO from reading as ended while writers come and go.
struct CommandEnds {
  kernel::FileDescriptor reader, keeper;
  bool polled = false;  // an inherited descriptor that is not a FIFO: may block, so polled before each read
};

// Another end of an open FIFO, reopened through /proc/self/fd/`fd`; `named` is what the user
// gave (a path, or "descriptor N"), for the message.
kernel::FileDescriptor open_end(int fd, int flags, const char* role, const std::string& named) {
  const int opened = ::open(("/proc/self/fd/" + std::to_string(fd)).c_str(), flags | O_NONBLOCK | O_CLOEXEC);
  if (opened < 0)
    throw Error(ErrorKind::System,
                std::string("cannot open the ") + role + " FIFO " + named + ": " + std::strerror(errno) + ".", errno);
  return kernel::FileDescriptor(opened);
}

// A FIFO named on the command line, opened as itself: never through a symlink (in a shared
// directory another user may plant one that points at a FIFO root's perfmon should not write to)
// and only one that the caller or root owns. Taken first as a path alone (O_PATH opens nothing a
// device or FIFO would notice), then reopened through that descriptor with `flags`.
kernel::FileDescriptor open_fifo(const std::string& path, int flags, const char* role) {
  kernel::FileDescriptor found(::open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat about {};
  if (!found || ::fstat(found.get(), &about) != 0)
    throw Error(ErrorKind::System,
                std::string("cannot use '") + path + "' as the " + role + " FIFO: " + std::strerror(errno) +
                    " (make it with mkfifo first).",
                errno);
  if (S_ISLNK(about.st_mode))
    throw invalid("'" + path + "' is a symlink: give the " + role + " FIFO's own path, which perfmon opens as it is.");
  if (!S_ISFIFO(about.st_mode))
    throw invalid("'" + path + "' is not a FIFO: make the " + role + " channel with mkfifo.");
  if (about.st_uid != ::geteuid() && about.st_uid != 0)
    throw Error(ErrorKind::Permission,
                "the " + std::string(role) + " FIFO '" + path + "' belongs to uid " + std::to_string(about.st_uid) +
                    ", not to you or root: another user's FIFO could steer or read the counting; make your own with "
                    "mkfifo.",
                EPERM);
  return open_end(found.get(), flags, role, "'" + path + "'");
}

CommandEnds open_command_fifo(const std::string& path) {
  CommandEnds ends;
  ends.reader = open_fifo(path, O_RDONLY, "control");  // without a writer yet: does not wait
  ends.keeper = open_end(ends.reader.get(), O_WRONLY, "control", "'" + path + "'");
  return ends;
}

// `number`: digits, as parse_control_spec checked.
int take_fd(const std::string& number, const char* role) {
  const int fd = std::stoi(number);
  if (::fcntl(fd, F_GETFL) < 0)
    throw Error(ErrorKind::InvalidArgument,
                std::string("descriptor ") + number + " given as the " + role +
                    " channel is not open in perfmon: open it in the shell that starts perfmon (exec {fd}<>FIFO).",
                errno);
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // not the measured command's
  return fd;
}

// An inherited descriptor: a FIFO (opened read-write by a shell, as perf's example does) is read
// through a read-only end of its own, the descriptor kept; anything else is read as it is.
CommandEnds command_fd(const std::string& number) {
  CommandEnds ends;
  ends.keeper = kernel::FileDescriptor(take_fd(number, "control"));
  struct stat about {};
  if (::fstat(ends.keeper.get(), &about) == 0 && S_ISFIFO(about.st_mode)) {
    ends.reader = open_end(ends.keeper.get(), O_RDONLY, "control", "descriptor " + number);
  } else {
    // Read as it is, its flags left alone: they belong to the open file the caller shares (a
    // socket left O_NONBLOCK would fail the caller's own reads after perfmon exits); take() polls.
    ends.reader = std::move(ends.keeper);
    ends.polled = true;
  }
  return ends;
}

// An inherited ack descriptor (kept, as the ack's `given`): a FIFO is written through an end of
// its own, non-blocking (the flag would be shared with the command that reads the acks through the
// same descriptor, whose reads would then fail); anything else is written as it is.
struct AckEnds {
  kernel::FileDescriptor writer, given;
};

AckEnds ack_fd(const std::string& number) {
  AckEnds ends;
  ends.given = kernel::FileDescriptor(take_fd(number, "ack"));
  struct stat about {};
  if (::fstat(ends.given.get(), &about) == 0 && S_ISFIFO(about.st_mode))
    ends.writer = open_end(ends.given.get(), O_RDWR, "ack", "descriptor " + number);
  else
    ends.writer = std::move(ends.given);
  return ends;
}

}  // namespace

ControlCommand parse_control_command(std::string_view line) {
  ControlCommand command;
  line = trimmed(line);
  command.text = std::string(line);
  const std::size_t blank = line.find_first_of(" \t");
  const std::string_view word = line.substr(0, blank);
  const std::string_view rest = blank == std::string_view::npos ? std::string_view{} : trimmed(line.substr(blank));
  if (word == "enable")
    command.kind = ControlCommand::Kind::Enable;
  else if (word == "disable")
    command.kind = ControlCommand::Kind::Disable;
  else if (word == "ping" && rest.empty())
    command.kind = ControlCommand::Kind::Ping;
  if (command.kind != ControlCommand::Kind::Unknown) command.region = std::string(rest);
  return command;
}

struct ControlChannel::State {
  CommandEnds commands;
  AckEnds ack;
  bool skipping_long_line = false;  // a line too long to be a command goes on in what comes next
};

ControlSpec parse_control_spec(std::string_view spec) {
  const std::size_t colon = spec.find(':');
  const std::string_view form = spec.substr(0, colon);
  auto refuse = [&spec] { return invalid(std::string(kForms) + ", not '" + std::string(spec) + "'."); };
  if (colon == std::string_view::npos || (form != "fifo" && form != "fd")) throw refuse();
  ControlSpec parsed;
  parsed.descriptors = form == "fd";
  const std::string_view paths = spec.substr(colon + 1);
  const std::size_t comma = paths.find(',');
  parsed.control = std::string(paths.substr(0, comma));
  if (comma != std::string_view::npos) parsed.ack = std::string(paths.substr(comma + 1));
  if (parsed.control.empty() || (comma != std::string_view::npos && parsed.ack.empty())) throw refuse();
  if (parsed.descriptors)
    for (const std::string* number : {&parsed.control, &parsed.ack})
      if (!number->empty() && (number->size() > 9 || number->find_first_not_of("0123456789") != std::string::npos))
        throw invalid(std::string(kForms) + ": '" + *number + "' is not a descriptor number.");
  if (parsed.control == parsed.ack)
    throw invalid("the control and ack channels must be two: '" + parsed.control +
                  "' for both would read perfmon's own acks as commands.");
  return parsed;
}

ControlChannel::ControlChannel(std::string_view text) : state_(std::make_unique<State>()) {
  const ControlSpec spec = parse_control_spec(text);
  if (!spec.descriptors) {
    state_->commands = open_command_fifo(spec.control);
    // Read-write: writing never waits for a reader to open it.
    if (!spec.ack.empty()) state_->ack.writer = open_fifo(spec.ack, O_RDWR, "ack");
  } else {
    state_->commands = command_fd(spec.control);
    if (!spec.ack.empty()) state_->ack = ack_fd(spec.ack);
  }
  // The same file under two names would still read its own acks.
  struct stat commands {
  }, acks{};
  if (state_->ack.writer && ::fstat(state_->commands.reader.get(), &commands) == 0 &&
      ::fstat(state_->ack.writer.get(), &acks) == 0 && commands.st_dev == acks.st_dev &&
      commands.st_ino == acks.st_ino && !S_ISCHR(commands.st_mode))
    throw invalid(
        "the control and ack channels are the same file: perfmon would read its own acks as commands; give "
        "two FIFOs.");
}

ControlChannel::~ControlChannel() = default;
ControlChannel::ControlChannel(ControlChannel&&) noexcept = default;
ControlChannel& ControlChannel::operator=(ControlChannel&&) noexcept = default;

int ControlChannel::fd() const noexcept {
  return state_->commands.reader.get();
}

std::vector<ControlCommand> ControlChannel::take() {
  std::string text;
  char buffer[4096];
  const int fd = state_->commands.reader.get();
  while (true) {
    if (state_->commands.polled) {
      pollfd ready{fd, POLLIN, 0};
      if (::poll(&ready, 1, 0) <= 0 || (ready.revents & (POLLIN | POLLHUP)) == 0) break;
    }
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0) {
      text.append(buffer, static_cast<std::size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    break;  // nothing more now (EAGAIN), or the end of an fd: channel
  }
  std::vector<ControlCommand> commands;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find_first_of(std::string_view("\n\0", 2), start);
    const bool ended = end != std::string::npos;
    if (!ended) end = text.size();  // nothing more waits: the write was whole, unless it is too long
    const std::string_view line = std::string_view(text).substr(start, end - start);
    if (state_->skipping_long_line) {
      state_->skipping_long_line = !ended;  // the rest of a line already refused
    } else if (line.size() > kLongestCommand) {
      ControlCommand refused;
      refused.text =
          std::string(line.substr(0, 40)) + "... (a line of over " + std::to_string(kLongestCommand) + " bytes)";
      commands.push_back(std::move(refused));
      state_->skipping_long_line = !ended;
    } else if (!trimmed(line).empty()) {
      commands.push_back(parse_control_command(line));
    }
    start = end + 1;
  }
  return commands;
}

int ControlChannel::acknowledge() noexcept {
  if (!state_->ack.writer) return 0;
  static constexpr char kAck[] = "ack\n";
  while (true) {
    const ssize_t wrote = ::write(state_->ack.writer.get(), kAck, sizeof kAck - 1);
    if (wrote >= 0) return 0;
    if (errno != EINTR) return errno;
  }
}

}  // namespace perfmon
