#include "output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "perfmon/error.hpp"

namespace perfmon::cli {

Output::Output(const std::string& path, std::FILE* fallback) : path_(path) {
  if (path_.empty()) {
    stream_ = fallback;
    return;
  }
  temp_path_ = path_ + ".XXXXXX";
  int fd = ::mkstemp(temp_path_.data());
  if (fd < 0) {
    int err = errno;
    temp_path_.clear();
    throw Error(
        ErrorKind::System,
        "cannot create '" + path_ + "': " + std::strerror(err) + "; check that the directory exists and is writable.",
        err);
  }
  ::fchmod(fd, 0644);
  stream_ = ::fdopen(fd, "w");
}

Output::~Output() {
  if (!path_.empty() && !committed_) {
    if (stream_ != nullptr) std::fclose(stream_);
    if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  }
}

void Output::fail(int err) {
  throw Error(ErrorKind::System,
              "cannot write '" + (path_.empty() ? std::string("the output") : path_) + "': " + std::strerror(err) +
                  (err == ENOSPC ? "; free some space or write elsewhere with -o." : "."),
              err);
}

void Output::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stream_) != text.size()) fail(errno);
  if (path_.empty()) std::fflush(stream_);
}

void Output::commit() {
  if (path_.empty()) return;
  if (std::fflush(stream_) != 0 || ::fsync(::fileno(stream_)) != 0) fail(errno);
  std::FILE* stream = std::exchange(stream_, nullptr);
  if (std::fclose(stream) != 0) fail(errno);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) fail(errno);
  committed_ = true;
}

}  // namespace perfmon::cli
