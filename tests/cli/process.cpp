// SPDX-License-Identifier: Apache-2.0
#include "process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace perfmon::testing {

Process::Process(const std::vector<std::string>& argv) {
  int in[2], out[2], err[2];
  if (pipe(in) || pipe(out) || pipe(err)) return;
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
    execv(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
}

Process::~Process() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    wait();
  }
}

void Process::write_stdin(const std::string& text) {
  ssize_t ignored = write(in_, text.data(), text.size());
  (void)ignored;
}

void Process::close_stdin() {
  if (in_ >= 0) close(in_);
  in_ = -1;
}

namespace {
// Reads from fd until `text` is in `buffer` or EOF.
void read_until(int fd, std::string& buffer, const std::string& text) {
  char chunk[4096];
  while (buffer.find(text) == std::string::npos) {
    ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return;
    buffer.append(chunk, static_cast<std::size_t>(got));
  }
}
}  // namespace

std::string Process::read_stdout_until(const std::string& text) {
  read_until(out_, out_text_, text);
  return out_text_;
}

std::string Process::read_stderr_until(const std::string& text) {
  read_until(err_, err_text_, text);
  return err_text_;
}

void Process::signal(int signo) const {
  kill(pid_, signo);
}

Result Process::wait() {
  Result result;
  close_stdin();
  // Drain both pipes together so that neither fills up and blocks the child.
  pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
  std::string* sinks[2] = {&out_text_, &err_text_};
  int open_fds = 2;
  char chunk[4096];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t got = read(fds[i].fd, chunk, sizeof chunk);
      if (got > 0) {
        sinks[i]->append(chunk, static_cast<std::size_t>(got));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  out_ = err_ = -1;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = out_text_;
  result.err = err_text_;
  return result;
}

Result run(const std::vector<std::string>& argv) {
  Process process(argv);
  return process.wait();
}

std::string stripped_copy_with_debug_file(const std::string& program, const std::string& dir, const std::string& name) {
  const std::string copy = dir + "/" + name;
  std::filesystem::copy_file(program, copy, std::filesystem::copy_options::overwrite_existing);
  for (const std::vector<std::string>& step :
       {std::vector<std::string>{"/usr/bin/objcopy", "--only-keep-debug", copy, copy + ".debug"},
        std::vector<std::string>{"/usr/bin/strip", "--strip-all", copy},
        // The link holds the debug file's name alone (objcopy drops its directory), found beside the program.
        std::vector<std::string>{"/usr/bin/objcopy", "--add-gnu-debuglink=" + copy + ".debug", copy}}) {
    const Result r = run(step);
    if (r.exit_code != 0) throw std::runtime_error(step.front() + " failed: " + r.err);
  }
  return copy;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace perfmon::testing
