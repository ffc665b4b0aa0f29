#include "output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

namespace perfmon::cli {

namespace {

// A symlink that another user put in a shared sticky directory (as /tmp) is not followed, whatever
// fs.protected_symlinks says: that is the rule the kernel applies when it is 1, and the way an
// attacker makes root write where they choose.
void refuse_planted_symlink(const std::string& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) parent = ".";
  struct stat directory {};
  if (::stat(parent.c_str(), &directory) != 0) return;
  const bool shared = (directory.st_mode & S_ISVTX) && (directory.st_mode & S_IWOTH);
  if (shared && link.st_uid != ::geteuid() && link.st_uid != directory.st_uid)
    throw Error(ErrorKind::Permission,
                "cannot write '" + path + "': it is a symlink that another user (uid " + std::to_string(link.st_uid) +
                    ") put in the shared directory '" + parent.string() +
                    "', which perfmon does not follow; give the file's own path.",
                EACCES);
}

// The process's umask, for a named temporary file (O_TMPFILE applies it by itself).
mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

}  // namespace

Output::Output(const std::string& path, std::FILE* fallback) : path_(path) {
  if (path_.empty()) {
    stream_ = fallback;
    return;
  }
  refuse_planted_symlink(path_);
  // O_PATH follows a symlink as any open does.
  const int found = ::open(path_.c_str(), O_PATH | O_CLOEXEC);
  if (found < 0) {
    const int err = errno;
    struct stat link {};
    if (err == ENOENT && ::lstat(path_.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
      throw Error(
          ErrorKind::InvalidArgument,
          "cannot write '" + path_ + "': it is a symlink to a file that does not exist; give the file's own path.",
          ENOENT);
    if (err != ENOENT) fail(err);
    open_replacement(path_, std::nullopt);  // a new file
    return;
  }
  struct stat status {};
  const std::string reopen = "/proc/self/fd/" + std::to_string(found);
  const bool stated = ::fstat(found, &status) == 0;
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::read_symlink(reopen, ec);
  int err = stated ? 0 : errno;
  if (stated && S_ISREG(status.st_mode) && !ec) {
    ::close(found);
    open_replacement(resolved.string(), status.st_mode & 07777);
    return;
  }
  if (stated && S_ISDIR(status.st_mode)) {
    ::close(found);
    throw Error(ErrorKind::InvalidArgument, "cannot write '" + path_ + "': it is a directory; give a file's name.",
                EISDIR);
  }
  // A device, a FIFO: write to it as it is. Reopened through the fd, it is the same file.
  const int fd = stated ? ::open(reopen.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC) : -1;
  if (fd < 0 && err == 0) err = errno;
  ::close(found);
  if (fd < 0) fail(err);
  stream_ = ::fdopen(fd, "w");
}

void Output::open_replacement(const std::string& target, std::optional<mode_t> keep_mode) {
  target_ = target;
  std::filesystem::path directory = std::filesystem::path(target).parent_path();
  if (directory.empty()) directory = ".";
  int fd = ::open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // A file system without unnamed files: a named one beside the target, removed on failure.
    temp_path_ = target + ".XXXXXX";
    fd = ::mkstemp(temp_path_.data());
    if (fd >= 0) ::fchmod(fd, 0666 & ~current_umask());
  }
  if (fd < 0) {
    const int err = errno;
    temp_path_.clear();
    throw Error(
        ErrorKind::System,
        "cannot create '" + path_ + "': " + std::strerror(err) + "; check that the directory exists and is writable.",
        err);
  }
  if (keep_mode) ::fchmod(fd, *keep_mode);
  stream_ = ::fdopen(fd, "w");
  replacing_ = true;
}

Output::~Output() {
  if (path_.empty() || committed_) return;
  if (stream_ != nullptr) std::fclose(stream_);  // an unnamed file vanishes with its last fd
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void Output::fail(int err) const {
  throw Error(ErrorKind::System,
              "cannot write '" + (path_.empty() ? std::string("the output") : path_) + "': " + std::strerror(err) +
                  (err == ENOSPC ? "; free some space or write elsewhere with -o." : "."),
              err);
}

void Output::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stream_) != text.size()) fail(errno);
  if (path_.empty()) std::fflush(stream_);
}

int Output::seekable_fd() {
  if (!replacing_ || stream_ == nullptr) return -1;
  if (std::fflush(stream_) != 0) fail(errno);
  return ::fileno(stream_);
}

void Output::commit() {
  if (path_.empty()) return;
  if (std::fflush(stream_) != 0) fail(errno);
  const int fd = ::fileno(stream_);
  // A device may not sync (EINVAL); a regular file must.
  if (::fsync(fd) != 0 && (replacing_ || (errno != EINVAL && errno != EROFS))) fail(errno);
  if (replacing_ && temp_path_.empty()) {
    // Name the unnamed file beside the target, so that rename() can put it in place at once.
    const std::string from = "/proc/self/fd/" + std::to_string(fd);
    for (unsigned attempt = 0; temp_path_.empty(); ++attempt) {
      std::string name = target_ + ".perfmon-" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
      if (::linkat(AT_FDCWD, from.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0)
        temp_path_ = std::move(name);
      else if (errno != EEXIST)
        fail(errno);
    }
  }
  std::FILE* stream = std::exchange(stream_, nullptr);
  if (std::fclose(stream) != 0) fail(errno);
  if (replacing_ && ::rename(temp_path_.c_str(), target_.c_str()) != 0) fail(errno);
  temp_path_.clear();
  committed_ = true;
}

}  // namespace perfmon::cli
