#include "perfmon/control_channel.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kernel/fd.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

namespace {

constexpr const char* kForms = "--control takes fifo:CTL[,ACK] (FIFOs made with mkfifo) or fd:CTL[,ACK]";

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
};

void check_fifo(const std::string& path, const char* role) {
  struct stat about {};
  if (::stat(path.c_str(), &about) != 0)
    throw Error(ErrorKind::System,
                std::string("cannot use '") + path + "' as the " + role + " FIFO: " + std::strerror(errno) +
                    " (make it with mkfifo first).",
                errno);
  if (!S_ISFIFO(about.st_mode))
    throw invalid("'" + path + "' is not a FIFO: make the " + role + " channel with mkfifo.");
}

kernel::FileDescriptor open_end(const std::string& path, int flags, const char* role) {
  const int fd = ::open(path.c_str(), flags | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    throw Error(ErrorKind::System,
                std::string("cannot open the ") + role + " FIFO '" + path + "': " + std::strerror(errno) + ".", errno);
  return kernel::FileDescriptor(fd);
}

CommandEnds open_command_fifo(const std::string& path) {
  check_fifo(path, "control");
  CommandEnds ends;
  ends.reader = open_end(path, O_RDONLY, "control");  // without a writer yet: does not wait
  ends.keeper = open_end(path, O_WRONLY, "control");
  return ends;
}

int take_fd(const std::string& number, const char* role) {
  if (number.empty() || number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos)
    throw invalid(std::string(kForms) + ": '" + number + "' is not a descriptor number.");
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
    ends.reader = open_end("/proc/self/fd/" + number, O_RDONLY, "control");
  } else {
    ends.reader = std::move(ends.keeper);
    ::fcntl(ends.reader.get(), F_SETFL, ::fcntl(ends.reader.get(), F_GETFL) | O_NONBLOCK);
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
    ends.writer = open_end("/proc/self/fd/" + number, O_RDWR, "ack");
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
};

ControlChannel::ControlChannel(std::string_view spec) : state_(std::make_unique<State>()) {
  const std::size_t colon = spec.find(':');
  const std::string_view form = spec.substr(0, colon);
  if (colon == std::string_view::npos || (form != "fifo" && form != "fd"))
    throw invalid(std::string(kForms) + ", not '" + std::string(spec) + "'.");
  const std::string_view paths = spec.substr(colon + 1);
  const std::size_t comma = paths.find(',');
  const std::string control(paths.substr(0, comma));
  const std::string ack = comma == std::string_view::npos ? "" : std::string(paths.substr(comma + 1));
  if (control.empty() || (comma != std::string_view::npos && ack.empty()))
    throw invalid(std::string(kForms) + ", not '" + std::string(spec) + "'.");
  if (form == "fifo") {
    state_->commands = open_command_fifo(control);
    if (!ack.empty()) {
      check_fifo(ack, "ack");
      state_->ack.writer = open_end(ack, O_RDWR, "ack");  // read-write: writing never waits for a reader to open it
    }
  } else {
    state_->commands = command_fd(control);
    if (!ack.empty()) state_->ack = ack_fd(ack);
  }
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
  while (true) {
    const ssize_t got = ::read(state_->commands.reader.get(), buffer, sizeof buffer);
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
    if (end == std::string::npos) end = text.size();  // nothing more waits: the write was whole
    const std::string_view line = std::string_view(text).substr(start, end - start);
    if (!trimmed(line).empty()) commands.push_back(parse_control_command(line));
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
