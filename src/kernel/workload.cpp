// SPDX-License-Identifier: Apache-2.0
#include "perfmon/workload.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "perfmon/error.hpp"

namespace perfmon {

namespace {

bool is_file(const std::string& path, int mode) {
  struct stat status;
  return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) && ::access(path.c_str(), mode) == 0;
}

}  // namespace

Error cannot_run(const std::string& name, int err) {
  const char* advice = err == ENOENT   ? "check the command's name and PATH"
                       : err == EACCES ? "check that it is an executable file"
                                       : "check the command";
  return Error(ErrorKind::CommandFailed, "cannot run '" + name + "': " + std::strerror(err) + "; " + advice + ".", err);
}

std::optional<std::string> find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (is_file(name, X_OK)) return name;
    struct stat status;
    errno = ::stat(name.c_str(), &status) == 0 ? EACCES : errno;
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string_view directories = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  int err = ENOENT;
  while (true) {
    const std::size_t colon = directories.find(':');
    std::string directory(directories.substr(0, colon));
    const std::string candidate = (directory.empty() ? "." : directory) + "/" + name;
    if (is_file(candidate, X_OK)) return candidate;
    if (errno == EACCES) err = EACCES;
    if (colon == std::string_view::npos) break;
    directories.remove_prefix(colon + 1);
  }
  errno = err;
  return std::nullopt;
}

int WorkloadExit::exit_code() const {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

Workload::Workload(std::vector<std::string> argv) : argv_(std::move(argv)) {
  if (argv_.empty()) throw Error(ErrorKind::InvalidArgument, "no command to run: the argument list is empty.");
  // Everything the child touches between fork and exec is prepared here: it may only make
  // async-signal-safe calls.
  std::vector<char*> args;
  for (std::string& arg : argv_) args.push_back(arg.data());
  args.push_back(nullptr);
  int go[2], error[2];
  if (::pipe2(go, O_CLOEXEC) != 0) {
    int err = errno;
    throw Error(ErrorKind::Limit, std::string("cannot create a pipe: ") + std::strerror(err) + ".", err);
  }
  if (::pipe2(error, O_CLOEXEC) != 0) {
    int err = errno;
    ::close(go[0]);
    ::close(go[1]);
    throw Error(ErrorKind::Limit, std::string("cannot create a pipe: ") + std::strerror(err) + ".", err);
  }
  pid_ = ::fork();
  if (pid_ < 0) {
    int err = errno;
    for (int fd : {go[0], go[1], error[0], error[1]}) ::close(fd);
    throw Error(ErrorKind::Limit,
                std::string("cannot fork to run the command: ") + std::strerror(err) +
                    "; the process limit (ulimit -u) or memory may be exhausted.",
                err);
  }
  if (pid_ == 0) {
    ::close(go[1]);
    ::close(error[0]);
    sigset_t none;  // the parent may block signals it waits for; the command must not inherit that
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    char byte;
    ssize_t got;
    do got = ::read(go[0], &byte, 1);
    while (got < 0 && errno == EINTR);
    if (got != 1) ::_exit(127);  // the parent gave up before starting us
    ::execvp(args[0], args.data());
    int err = errno;
    ssize_t ignored = ::write(error[1], &err, sizeof err);
    (void)ignored;
    ::_exit(127);
  }
  ::close(go[0]);
  ::close(error[1]);
  go_fd_ = go[1];
  error_fd_ = error[0];
}

Workload::~Workload() {
  if (go_fd_ >= 0) ::close(go_fd_);
  if (error_fd_ >= 0) ::close(error_fd_);
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void Workload::start() {
  char byte = 1;
  ssize_t written;
  do written = ::write(go_fd_, &byte, 1);
  while (written < 0 && errno == EINTR);
  ::close(go_fd_);
  go_fd_ = -1;
  int err = 0;
  ssize_t got;
  do got = ::read(error_fd_, &err, sizeof err);
  while (got < 0 && errno == EINTR);
  ::close(error_fd_);
  error_fd_ = -1;
  if (got == static_cast<ssize_t>(sizeof err)) {
    WorkloadExit exit;
    while (!wait(exit)) {
    }
    throw cannot_run(argv_.front(), err);
  }
}

bool Workload::wait(WorkloadExit& exit, bool block) {
  if (reaped_) return true;
  pid_t got = ::wait4(pid_, &exit.status, block ? 0 : WNOHANG, &exit.usage);
  if (got == pid_) {
    reaped_ = true;
    return true;
  }
  return false;
}

void Workload::signal(int signo) const {
  if (!reaped_) ::kill(pid_, signo);
}

}  // namespace perfmon
