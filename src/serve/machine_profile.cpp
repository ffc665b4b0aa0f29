// SPDX-License-Identifier: Apache-2.0
#include "perfmon/machine_profile.hpp"

#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>

#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/pprof.hpp"
#include "perfmon/recording.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/target.hpp"

namespace perfmon {

namespace {

// A file descriptor closed when it goes.
struct OwnedFd {
  int fd;
  ~OwnedFd() {
    if (fd >= 0) ::close(fd);
  }
};

// The cgroup v2 hierarchy's directories by id (the inode PERF_SAMPLE_CGROUP gives), as paths
// below its mount ("/" its root, "/system.slice/cron.service").
std::map<std::uint64_t, std::string> cgroup_paths() {
  namespace fs = std::filesystem;
  std::map<std::uint64_t, std::string> paths;
  for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    struct statfs filesystem {};
    if (::statfs(root, &filesystem) != 0 || filesystem.f_type != CGROUP2_SUPER_MAGIC) continue;
    std::error_code ec;
    struct stat status {};
    if (::stat(root, &status) == 0) paths[status.st_ino] = "/";
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end; it != end;
         it.increment(ec)) {
      if (!it->is_directory(ec) || ::stat(it->path().c_str(), &status) != 0) continue;
      paths[status.st_ino] = "/" + fs::relative(it->path(), root, ec).string();
    }
    break;
  }
  return paths;
}

// A profile's end: its duration over, or a stop asked for (the server shutting down).
class UntilDeadline final : public RunHooks {
 public:
  UntilDeadline(std::chrono::steady_clock::time_point end, std::stop_token stop) : end_(end), stop_(std::move(stop)) {}
  std::optional<std::chrono::steady_clock::time_point> deadline() const override { return end_; }
  int interruption() override {
    const auto now = std::chrono::steady_clock::now();
    if (stop_.stop_requested() && now < end_) end_ = now;
    return now >= end_ ? SIGTERM : 0;
  }
  std::chrono::steady_clock::time_point ended() const { return end_; }

 private:
  std::chrono::steady_clock::time_point end_;
  std::stop_token stop_;
};

std::uint64_t wall_clock_ns() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000000000u + static_cast<std::uint64_t>(now.tv_nsec);
}

}  // namespace

std::string profile_machine(const MachineProfileOptions& options, std::chrono::milliseconds duration,
                            std::stop_token stop) {
  SamplingOptions sampling;
  sampling.frequency = options.frequency;
  sampling.inherit = false;
  sampling.task_records = true;
  // Each sample's cgroup too (Linux 5.7): profiles are labelled by container and service.
  sampling.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CGROUP;

  // Recorded into memory as perfmon record -a records into a file: the records then come back in
  // the order they happened, with the processes that already ran described first.
  const OwnedFd memory{memfd_create("perfmon-profile", MFD_CLOEXEC)};
  if (memory.fd < 0)
    throw Error(ErrorKind::System,
                std::string("cannot make a file in memory for the profile (") + std::strerror(errno) + ").", errno);
  const std::uint64_t began = wall_clock_ns();
  const auto start = std::chrono::steady_clock::now();
  UntilDeadline until(start + duration, stop);
  {
    Recording recording(memory.fd, options.groups,
                        options.cpus.empty() ? Target::all_cpus() : Target::cpu_list(options.cpus), sampling, {});
    RunOptions run_options;
    run_options.tick = std::chrono::milliseconds(100);
    run_options.longest_wait = std::chrono::milliseconds(100);  // a stop asked for is seen within it
    run_options.take_stop_signals = false;                      // the server's, not this thread's
    recording.record(nullptr, until, run_options);
    recording.finish(describe_this_host({"perfmon", "serve"}));
  }
  const auto end = until.ended();

  const PerfDataReader recording("/proc/self/fd/" + std::to_string(memory.fd));
  std::vector<PprofEvent> events;
  for (const PerfDataEvent& event : recording.events()) events.push_back({event.name, event.attr});
  PprofOptions pprof_options = options.pprof;
  pprof_options.build_ids = recording.build_ids();
  pprof_options.cgroup_paths.merge(cgroup_paths());
  PprofProfile profile(std::move(events), std::move(pprof_options));
  profile.set_time(began,
                   static_cast<std::uint64_t>(
                       std::chrono::nanoseconds(std::min<std::chrono::nanoseconds>(end - start, duration)).count()));
  recording.read(profile);
  return profile.encode();
}

}  // namespace perfmon
