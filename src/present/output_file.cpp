// SPDX-License-Identifier: Apache-2.0
#include "perfmon/output_file.hpp"
#include "perfmon/printable.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

namespace perfmon {

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

void refuse_output_over_input(const std::string& output, const std::string& input) {
  struct stat out {
  }, in{};
  if (output.empty() || input.empty() || ::stat(output.c_str(), &out) != 0 || ::stat(input.c_str(), &in) != 0) return;
  if (out.st_dev == in.st_dev && out.st_ino == in.st_ino)
    throw Error(ErrorKind::InvalidArgument,
                "cannot write '" + output + "': it is the input file '" + input +
                    "', which writing would replace; give the output another name.",
                EEXIST);
}

OutputFile::OutputFile(const std::string& path, std::FILE* fallback, mode_t new_file_mode)
    : path_(path), new_file_mode_(new_file_mode) {
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
    open_replacement(path_, nullptr);  // a new file
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
    // As a shell's `>` would: a file its writer could not open for writing is not replaced.
    if (::faccessat(AT_FDCWD, resolved.c_str(), W_OK, AT_EACCESS) != 0 && (errno == EACCES || errno == EROFS)) {
      const int access_error = errno;
      throw Error(ErrorKind::Permission,
                  "cannot write '" + path_ + "': " +
                      (access_error == EROFS ? std::string("it is on a read-only file system; write elsewhere.")
                                             : "it is not writable by you; make it writable (chmod u+w) or remove "
                                               "it first, or write elsewhere."),
                  access_error);
    }
    open_replacement(resolved.string(), &status);
    return;
  }
  if (stated && S_ISDIR(status.st_mode)) {
    ::close(found);
    throw Error(ErrorKind::InvalidArgument, "cannot write '" + path_ + "': it is a directory; give a file's name.",
                EISDIR);
  }
  // A device, a FIFO: write to it as it is. Reopened through the fd, it is the same file. Not
  // waiting: a FIFO without a reader says so at once (ENXIO) instead of hanging.
  const int fd = stated ? ::open(reopen.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK) : -1;
  if (fd < 0 && err == 0) err = errno;
  ::close(found);
  if (fd < 0 && err == ENXIO && S_ISFIFO(status.st_mode))
    throw Error(ErrorKind::InvalidArgument,
                "cannot write '" + path_ + "': it is a FIFO that no process is reading; start its reader first.",
                ENXIO);
  if (fd < 0) fail(err);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // then wait for the reader, as any writer
  stream_ = ::fdopen(fd, "w");
}

void OutputFile::open_replacement(const std::string& target, const struct stat* old_file) {
  target_ = target;
  std::filesystem::path directory = std::filesystem::path(target).parent_path();
  if (directory.empty()) directory = ".";
  int fd = ::open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, new_file_mode_);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // A file system without unnamed files: a named one beside the target, removed on failure.
    temp_path_ = target + ".XXXXXX";
    fd = ::mkstemp(temp_path_.data());
    if (fd >= 0) ::fchmod(fd, new_file_mode_ & ~current_umask());
  }
  if (fd < 0) {
    const int err = errno;
    temp_path_.clear();
    throw Error(
        ErrorKind::System,
        "cannot create '" + path_ + "': " + std::strerror(err) + "; check that the directory exists and is writable.",
        err);
  }
  if (old_file != nullptr) keep_owner_and_mode(fd, *old_file);
  stream_ = ::fdopen(fd, "w");
  replacing_ = true;
}

// The replacement belongs to the old file's owner and group where this process may give it to them
// (root may; a user keeps their own file and a group they are in), and has its mode less the
// set-user-id and set-group-id bits: a program rewritten by perfmon must not run with its owner's
// rights. What could not be kept is said when the file is put in place.
void OutputFile::keep_owner_and_mode(int fd, const struct stat& old_file) {
  // Both where allowed; else the group alone (a user may give a file to a group of theirs).
  if (::fchown(fd, old_file.st_uid, old_file.st_gid) != 0) ::fchown(fd, static_cast<uid_t>(-1), old_file.st_gid);
  struct stat now {};
  if (::fstat(fd, &now) == 0) {
    if (now.st_uid != old_file.st_uid)
      changes_.push_back("now owned by uid " + std::to_string(now.st_uid) + " (was uid " +
                         std::to_string(old_file.st_uid) + ")");
    if (now.st_gid != old_file.st_gid)
      changes_.push_back("now of group " + std::to_string(now.st_gid) + " (was group " +
                         std::to_string(old_file.st_gid) + ")");
  }
  constexpr mode_t kSetId = S_ISUID | S_ISGID;
  ::fchmod(fd, old_file.st_mode & 07777 & ~kSetId);
  if (old_file.st_mode & S_ISUID) changes_.emplace_back("without its set-user-id bit");
  if ((old_file.st_mode & S_ISGID) && (old_file.st_mode & S_IXGRP))
    changes_.emplace_back("without its set-group-id bit");
}

OutputFile::~OutputFile() {
  if (path_.empty() || committed_) return;
  if (stream_ != nullptr) std::fclose(stream_);  // an unnamed file vanishes with its last fd
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void OutputFile::fail(int err) const {
  throw Error(ErrorKind::System,
              "cannot write '" + (path_.empty() ? std::string("the output") : path_) + "': " + std::strerror(err) +
                  (err == ENOSPC ? "; free some space or write elsewhere." : "."),
              err);
}

void OutputFile::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stream_) != text.size()) fail(errno);
  if (path_.empty() && std::fflush(stream_) != 0) fail(errno);
}

int OutputFile::seekable_fd() {
  if (!replacing_ || stream_ == nullptr) return -1;
  if (std::fflush(stream_) != 0) fail(errno);
  return ::fileno(stream_);
}

void OutputFile::keep_replaced() {
  struct stat replaced {
  }, kept{};
  if (::lstat(target_.c_str(), &replaced) != 0 || !S_ISREG(replaced.st_mode) || replaced.st_size == 0) return;
  const std::string keep = target_ + kept_suffix_;
  if (::lstat(keep.c_str(), &kept) == 0 && !S_ISREG(kept.st_mode)) {
    changes_.push_back("not kept as '" + printable(keep) + "', which is not a regular file");
    return;
  }
  if (::rename(target_.c_str(), keep.c_str()) != 0) fail(errno);
}

void OutputFile::commit() {
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
  if (replacing_ && !kept_suffix_.empty()) keep_replaced();
  if (replacing_ && ::rename(temp_path_.c_str(), target_.c_str()) != 0) fail(errno);
  temp_path_.clear();
  committed_ = true;
}

}  // namespace perfmon
