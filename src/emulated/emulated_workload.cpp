// SPDX-License-Identifier: Apache-2.0
#include "perfmon/emulated.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <tuple>
#include <utility>

#include "counters_abi.h"
#include "emulated/emulated_events.hpp"
#include "kernel/fd.hpp"
#include "kernel/file_mapping.hpp"
#include "perfmon/error.hpp"
#include "perfmon/workload.hpp"
#include "program_file.h"

namespace perfmon {

namespace {

constexpr const char* kPluginName = "libperfmon-qemu-plugin.so";

bool is_file(const std::string& path, int mode) {
  struct stat status;
  return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) && ::access(path.c_str(), mode) == 0;
}

// "#!INTERPRETER [ARGUMENT]" of a script, as the kernel reads it; empty if the file is not one.
std::vector<std::string> script_interpreter(const std::string& path) {
  char line[256];
  const char* argument = nullptr;
  const char* interpreter = perfmon_script_interpreter(path.c_str(), line, sizeof line, &argument);
  if (interpreter == nullptr) return {};
  std::vector<std::string> words{interpreter};
  if (argument != nullptr) words.emplace_back(argument);
  return words;
}

// The architectures perfmon's plugin follows execs on, by ELF machine.
const char* architecture_of(std::uint16_t machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86_64";
    case EM_AARCH64:
      return "aarch64";
    default:
      return nullptr;
  }
}

std::string host_architecture() {
  utsname name{};
  ::uname(&name);
  return name.machine;
}

// The file that holds this code: the library, or a program linked with it statically.
std::string this_binary() {
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&emulator_info), &self) == 0 || self.dli_fname == nullptr) return "";
  if (self.dli_fname[0] == '/') return self.dli_fname;
  // The main program is named as it was started ("./perfmon"): its whole path is the kernel's.
  char path[4096];
  const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return length > 0 ? std::string(path, static_cast<std::size_t>(length)) : self.dli_fname;
}

// perfmon's build directory, where this code runs from one; empty for an installed perfmon.
std::string build_directory() {
  const std::string built = PERFMON_QEMU_PLUGIN_BUILT;  // <build>/emulate/<plugin>
  const std::string directory = built.substr(0, built.rfind("/emulate/") + 1);
  return this_binary().starts_with(directory) ? directory : "";
}

// The plugin: $PERFMON_QEMU_PLUGIN, beside the library that holds this code (lib/perfmon/), in the
// installed tree of the program that holds it (bin/../lib/perfmon/: the CLI, linked statically,
// installed under any prefix), where it was installed, or where it was built.
std::string find_plugin() {
  if (const char* path = std::getenv("PERFMON_QEMU_PLUGIN"); path != nullptr && *path != '\0') return path;
  std::vector<std::string> candidates;
  if (const std::string binary = this_binary(); !binary.empty()) {
    const std::string directory = binary.substr(0, binary.rfind('/') + 1);
    candidates.push_back(directory + "perfmon/" + kPluginName);
    candidates.push_back(directory + "../" PERFMON_INSTALL_LIBDIR "/perfmon/" + kPluginName);
  }
  candidates.push_back(std::string(PERFMON_QEMU_PLUGIN_INSTALLED));
  candidates.push_back(std::string(PERFMON_QEMU_PLUGIN_BUILT));
  for (const std::string& candidate : candidates)
    if (is_file(candidate, R_OK)) return std::filesystem::path(candidate).lexically_normal().string();
  return "";
}

std::string qemu_for(const std::string& architecture) {
  return "qemu-" + architecture;
}

std::string missing_qemu_sentence(const std::string& qemu) {
  return "the emulated CPU needs " + qemu +
         " (QEMU's user mode), which is not installed: install Debian's qemu-user (scripts/install-deps does).";
}

std::string missing_plugin_sentence(const std::string& tried) {
  if (!tried.empty())
    return "perfmon's QEMU plugin " + tried +
           " is not a readable file: set PERFMON_QEMU_PLUGIN (or the plugin option) to the installed "
           "lib/perfmon/" +
           kPluginName + ".";
  if (const std::string build = build_directory(); !build.empty())
    return std::string("perfmon's QEMU plugin (") + kPluginName + ") has not been built in " + build +
           ": build it with 'cmake --build " + build + " --target perfmon-qemu-plugin'.";
  return std::string("perfmon's QEMU plugin (") + kPluginName +
         ") is not installed beside the library: reinstall perfmon, or set PERFMON_QEMU_PLUGIN to its path.";
}

// The model's caches: those given, checked, and the host's for the others.
CacheHierarchy complete_hierarchy(const CacheHierarchy& given) {
  CacheHierarchy host;
  bool asked_host = false;
  CacheHierarchy complete = given;
  std::vector<std::string> named;
  for (auto [cache, host_cache, name] :
       {std::tuple{&complete.l1i, &host.l1i, "L1I"}, std::tuple{&complete.l1d, &host.l1d, "L1D"},
        std::tuple{&complete.ll, &host.ll, "LL"}}) {
    if (cache->size != 0) {
      if (const std::string problem = cache->problem(); !problem.empty())
        throw Error(ErrorKind::InvalidArgument, std::string("the emulated CPU cannot model the ") + name + " cache " +
                                                    cache->describe() + ": " + problem + ".");
      named.emplace_back(name);
      continue;
    }
    if (!asked_host) host = host_cache_hierarchy(), asked_host = true;
    *cache = *host_cache;
  }
  // A missed L1 line is looked up in the LL as one line: the LL's lines hold the L1s' whole.
  for (auto [l1, name] : {std::pair{&complete.l1i, "L1I"}, std::pair{&complete.l1d, "L1D"}})
    if (complete.ll.line_size < l1->line_size)
      throw Error(ErrorKind::InvalidArgument,
                  "the emulated CPU cannot model an LL whose lines (" + std::to_string(complete.ll.line_size) +
                      " bytes) are smaller than the " + name + "'s (" + std::to_string(l1->line_size) +
                      "): give the LL lines at least as large.");
  if (!given.source.empty()) return complete;
  std::string given_text;
  for (const std::string& name : named) given_text += (given_text.empty() ? "" : ", ") + name;
  complete.source = !asked_host          ? "given"
                    : given_text.empty() ? host.source
                                         : host.source + "; " + given_text + " given";
  return complete;
}

// This process's descriptor `fd` as a path that the plugin in another process opens again.
std::string proc_fd_path(int fd) {
  return "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd);
}

// The first line `program` prints with `argument`, run without a shell (a path may hold any
// character); empty if it cannot run.
std::string first_line_of(const std::string& program, const char* argument) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return "";
  kernel::FileDescriptor reader(pipe_fds[0]);
  kernel::FileDescriptor writer(pipe_fds[1]);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, writer.get(), STDOUT_FILENO);
  ::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  ::posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // The child starts with the signals the tool blocks for its own waits unblocked.
  posix_spawnattr_t attributes;
  ::posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  ::posix_spawnattr_setsigmask(&attributes, &none);
  ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  std::string program_copy = program;
  std::string argument_copy = argument;
  char* const argv[] = {program_copy.data(), argument_copy.data(), nullptr};
  pid_t child = -1;
  const int spawned = ::posix_spawn(&child, program.c_str(), &actions, &attributes, argv, environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attributes);
  writer.reset();
  if (spawned != 0) return "";
  std::string text;
  char buffer[256];
  for (ssize_t n; text.find('\n') == std::string::npos && text.size() < 4096 &&
                  ((n = ::read(reader.get(), buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR));)
    if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
  reader.reset();  // a program still writing gets EPIPE
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return text.substr(0, text.find('\n'));
}

}  // namespace

std::string qemu_version(const std::string& qemu) {
  // "qemu-x86_64 version 7.2.22 (Debian ...)"
  const std::string line = first_line_of(qemu, "--version");
  const std::size_t version = line.find("version ");
  if (version == std::string::npos) return "";
  const std::string text = line.substr(version + 8);
  return text.substr(0, text.find(' '));
}

EmulatorInfo emulator_info() {
  EmulatorInfo info;
  info.plugin_api_version = 1;
  const std::string qemu = qemu_for(host_architecture());
  const std::optional<std::string> found = find_program(qemu);
  info.plugin = find_plugin();
  if (!found) {
    info.reason = missing_qemu_sentence(qemu);
    return info;
  }
  info.qemu = *found;
  if (info.plugin.empty() || !is_file(info.plugin, R_OK)) {
    info.reason = missing_plugin_sentence(info.plugin);
    return info;
  }
  info.available = true;
  return info;
}

// Threads never share a cache line of the counters (counters_abi.h).
static_assert(sizeof(perfmon_emulate_slot) % 64 == 0 && offsetof(perfmon_emulate_counters, slot) % 64 == 0);

// The counters file: a memfd the plugin in every QEMU process of the command opens again through
// /proc/<this process>/fd, so nothing is left on disk whatever happens to either side.
struct EmulatedWorkload::Counters {
  int fd = -1;
  perfmon_emulate_counters* mapping = nullptr;
  std::string path;

  explicit Counters(const CacheHierarchy& caches) {
    fd = ::memfd_create("perfmon-emulated-counters", MFD_CLOEXEC);
    if (fd < 0 || ::ftruncate(fd, sizeof(perfmon_emulate_counters)) != 0) {
      const int err = errno;
      if (fd >= 0) ::close(fd);
      throw Error(ErrorKind::Limit,
                  std::string("cannot create the emulated CPU's counters: ") + std::strerror(err) + ".", err);
    }
    void* memory = ::mmap(nullptr, sizeof(perfmon_emulate_counters), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (memory == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw Error(ErrorKind::Limit, std::string("cannot map the emulated CPU's counters: ") + std::strerror(err) + ".",
                  err);
    }
    mapping = static_cast<perfmon_emulate_counters*>(memory);
    mapping->magic = PERFMON_EMULATE_MAGIC;
    mapping->version = PERFMON_EMULATE_VERSION;
    mapping->slots = PERFMON_EMULATE_SLOTS;
    for (auto [to, from] : {std::pair{&mapping->l1i, &caches.l1i}, std::pair{&mapping->l1d, &caches.l1d},
                            std::pair{&mapping->ll, &caches.ll}})
      *to = perfmon_emulate_cache{from->size, from->associativity, from->line_size};
    path = proc_fd_path(fd);
  }
  ~Counters() {
    ::munmap(mapping, sizeof(perfmon_emulate_counters));
    ::close(fd);
  }
  Counters(const Counters&) = delete;
  Counters& operator=(const Counters&) = delete;

  static std::uint64_t load(std::uint64_t& counter) noexcept {
    return std::atomic_ref<std::uint64_t>(counter).load(std::memory_order_relaxed);
  }
};

// The samples file: an unnamed file (O_TMPFILE) that the plugin in every QEMU process of the
// command opens again through /proc/<this process>/fd and appends records to (counters_abi.h).
// Nothing is left on disk whatever happens. Where the file system has no unnamed files, a memfd.
struct EmulatedWorkload::SamplesFile {
  kernel::FileDescriptor fd;
  std::string path;

  explicit SamplesFile(std::string directory) {
    if (directory.empty()) {
      const char* tmpdir = std::getenv("TMPDIR");
      directory = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
    }
    fd.reset(::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (!fd && (errno == EOPNOTSUPP || errno == EISDIR))
      fd.reset(::memfd_create("perfmon-emulated-samples", MFD_CLOEXEC));
    if (!fd) {
      const int err = errno;
      throw Error(ErrorKind::Limit,
                  "cannot create the emulated CPU's samples file in " + directory + ": " + std::strerror(err) +
                      "; make room there, or set TMPDIR to a directory that has it.",
                  err);
    }
    path = proc_fd_path(fd.get());
  }
};

EmulatedWorkload::EmulatedWorkload(std::vector<std::string> argv, const EmulatorOptions& options)
    : argv_(std::move(argv)), options_(options) {
  if (argv_.empty()) throw Error(ErrorKind::InvalidArgument, "no command to run: the argument list is empty.");
  const std::string& name = argv_.front();
  const std::optional<std::string> program = find_program(name);
  if (!program) throw cannot_run(name, errno);
  // A script runs its interpreter, which must be a program QEMU can run.
  std::vector<std::string> interpreter = script_interpreter(*program);
  const std::string& binary = interpreter.empty() ? *program : interpreter.front();
  const char* architecture = architecture_of(perfmon_elf_machine(binary.c_str()));
  if (architecture == nullptr)
    throw Error(ErrorKind::CommandFailed,
                "cannot run '" + name + "' on the emulated CPU: " +
                    (interpreter.empty() ? "it is not a 64-bit x86-64 or arm64 program"
                                         : "its interpreter " + binary + " is not a 64-bit x86-64 or arm64 program") +
                    "; perfmon emulates those: run this one natively.",
                ENOEXEC);
  architecture_ = architecture;

  const std::string qemu_name = options.qemu.empty() ? qemu_for(architecture_) : options.qemu;
  const std::optional<std::string> qemu = find_program(qemu_name);
  if (!qemu) throw Error(ErrorKind::Unsupported, missing_qemu_sentence(qemu_name), ENOENT);
  qemu_ = *qemu;
  const std::string plugin = options.plugin.empty() ? find_plugin() : options.plugin;
  if (plugin.empty() || !is_file(plugin, R_OK))
    throw Error(ErrorKind::Unsupported, missing_plugin_sentence(plugin), ENOENT);

  if (options_.caches) options_.cache_hierarchy = complete_hierarchy(options_.cache_hierarchy);
  counters_ = std::make_unique<Counters>(options_.cache_hierarchy);
  std::string plugin_argument = plugin + ",counters=" + counters_->path;
  if (options.follow_exec) plugin_argument += ",qemu=" + qemu_;
  if (options.branches) plugin_argument += ",branches=on";
  if (options.memory_accesses) plugin_argument += ",memory=on";
  if (options.branch_prediction) plugin_argument += ",predict=on";
  if (options.caches) plugin_argument += ",caches=on";
  if (options.sample_period != 0) {
    samples_ = std::make_unique<SamplesFile>(options.samples_directory);
    // The threads' name, as the kernel names a process after its program (15 bytes); QEMU splits
    // the plugin's arguments at commas.
    std::string comm = program->substr(program->rfind('/') + 1).substr(0, 15);
    std::replace(comm.begin(), comm.end(), ',', '_');
    plugin_argument += ",samples=" + samples_->path + ",period=" + std::to_string(options.sample_period) +
                       ",comm=" + comm + (options.sample_callchains ? ",callchains=on" : "");
  }
  // The program's own sessions (regions) read their thread's counts from the plugin (emulated_thread.hpp).
  std::vector<std::string> command{qemu_, "-plugin", plugin_argument, "-E", "PERFMON_EMULATED_CPU=1"};
  if (interpreter.empty()) {
    command.insert(command.end(), {"-0", name, *program});
  } else {
    command.insert(command.end(), interpreter.begin(), interpreter.end());
    command.push_back(*program);
  }
  command.insert(command.end(), argv_.begin() + 1, argv_.end());
  workload_ = std::make_unique<Workload>(std::move(command));
}

EmulatedWorkload::~EmulatedWorkload() = default;

pid_t EmulatedWorkload::pid() const {
  return workload_->pid();
}

void EmulatedWorkload::start() {
  workload_->start();
}

bool EmulatedWorkload::wait(WorkloadExit& exit, bool block) {
  if (!workload_->wait(exit, block)) return false;
  if (read().processes == 0)
    throw Error(ErrorKind::Unsupported,
                "QEMU did not load perfmon's plugin and ran nothing (its message above says why): install the "
                "qemu-user that perfmon was built for.",
                ENOEXEC);
  return true;
}

void EmulatedWorkload::signal(int signo) const {
  workload_->signal(signo);
}

EmulatedCounts EmulatedWorkload::read() const noexcept {
  perfmon_emulate_counters& c = *counters_->mapping;
  EmulatedCounts counts;
  for (perfmon_emulate_slot& slot : c.slot) emulation::add_slot(counts, slot);
  // A followed exec starts a QEMU, which counts itself as a process and its thread: the same
  // process and thread as before the exec.
  counts.execs_followed = Counters::load(c.execs_followed);
  counts.processes = Counters::load(c.processes) - counts.execs_followed;
  counts.threads = Counters::load(c.threads) - counts.execs_followed;
  counts.execs_not_followed = Counters::load(c.execs_not_followed);
  return counts;
}

std::string EmulatedWorkload::first_exec_not_followed() const {
  const char* text = counters_->mapping->first_not_followed;
  if (std::atomic_ref<char>(*counters_->mapping->first_not_followed).load(std::memory_order_acquire) == '\0') return "";
  return std::string(text, strnlen(text, PERFMON_EMULATE_PATH_MAX));
}

perf_event_attr EmulatedWorkload::sample_attr() const {
  static_assert(PERFMON_EMULATE_SAMPLE_TYPE ==
                (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD));
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.sample_period = options_.sample_period;
  attr.sample_type = PERFMON_EMULATE_SAMPLE_TYPE | (options_.sample_callchains ? PERF_SAMPLE_CALLCHAIN : 0);
  attr.exclude_kernel = attr.exclude_hv = 1;  // all of it is user mode
  attr.sample_id_all = 1;
  attr.comm = attr.mmap = attr.mmap2 = 1;  // the side-band records the file has
  return attr;
}

namespace {

// A record's time: a sample's after its ip and pid/tid; a side-band record's in its sample_id
// trailer (pid/tid, time), last.
std::uint64_t record_time(const perf_event_header& header) {
  std::uint64_t time = 0;
  const char* at = reinterpret_cast<const char*>(&header);
  std::memcpy(&time, header.type == PERF_RECORD_SAMPLE ? at + 24 : at + header.size - 8, sizeof time);
  return time;
}

}  // namespace

std::uint64_t EmulatedWorkload::read_samples(const std::function<void(const perf_event_header&)>& handler) const {
  if (!samples_) return 0;
  struct stat status {};
  if (::fstat(samples_->fd.get(), &status) != 0)
    throw Error(ErrorKind::Limit, std::string("cannot read the emulated CPU's samples: ") + std::strerror(errno) + ".",
                errno);
  if (status.st_size == 0) return 0;
  const std::optional<kernel::FileMapping> mapping = kernel::FileMapping::map(samples_->path);
  if (!mapping)
    throw Error(ErrorKind::Limit, std::string("cannot map the emulated CPU's samples: ") + std::strerror(errno) + ".",
                errno);
  const char* bytes = mapping->bytes().data();
  // The records of each thread are in time order, those of different threads interleaved a buffer at a
  // time: sorted by time, side-band records before the samples that need them. A record cut short
  // (a full disk) ends the file.
  std::vector<std::pair<std::uint64_t, std::size_t>> order;  // time, offset
  const std::size_t size = mapping->bytes().size();
  for (std::size_t at = 0; at + sizeof(perf_event_header) <= size;) {
    perf_event_header header;
    std::memcpy(&header, bytes + at, sizeof header);
    const bool known =
        header.type == PERF_RECORD_SAMPLE || header.type == PERF_RECORD_COMM || header.type == PERF_RECORD_MMAP2;
    if (!known || header.size < 32 || header.size % 8 != 0 || header.size > size - at) break;
    order.emplace_back(record_time(*reinterpret_cast<const perf_event_header*>(bytes + at)), at);
    at += header.size;
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::uint64_t samples = 0;
  for (const auto& [time, offset] : order) {
    const auto& record = *reinterpret_cast<const perf_event_header*>(bytes + offset);
    samples += record.type == PERF_RECORD_SAMPLE;
    handler(record);
  }
  return samples;
}

EmulatorOptions EmulatorOptions::enabled_for(const std::vector<EventGroup>& groups) const {
  EmulatorOptions options = *this;
  for (const EventGroup& group : groups)
    for (const Event& event : group.events)
      if (bool EmulatorOptions::*needs = emulation::emulated_option(event); needs != nullptr) options.*needs = true;
  return options;
}

namespace emulation {

std::vector<std::string> emulated_summary(const EmulatedWorkload& workload) {
  std::vector<std::string> lines;
  const EmulatedCounts counts = workload.read();
  auto count = [](std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  lines.push_back("(emulated): counted on QEMU's emulated " + workload.architecture() + " CPU (" + workload.qemu() +
                  "), not the host's: user mode only, " + count(counts.processes, "process", "processes") + ", " +
                  count(counts.threads, "thread", "threads") + "; compare emulated counts with emulated counts.");
  const EmulatorOptions& options = workload.options();
  if (options.branches)
    lines.push_back("(emulated): branches by kind: " + std::to_string(counts.conditional_branches) + " conditional, " +
                    std::to_string(counts.direct_branches) + " direct, " + std::to_string(counts.indirect_branches) +
                    " indirect (returns included).");
  if (options.caches) {
    const CacheHierarchy& caches = options.cache_hierarchy;
    lines.push_back("(emulated): cache model (LRU, one per thread): L1I " + caches.l1i.describe() + "; L1D " +
                    caches.l1d.describe() + "; LL " + caches.ll.describe() + " (" + caches.source + ").");
  }
  if (counts.execs_not_followed > 0)
    lines.push_back("warning: " + count(counts.execs_not_followed, "exec", "execs") +
                    " of the command ran natively, uncounted; the first: " + workload.first_exec_not_followed() + ".");
  return lines;
}

}  // namespace emulation

}  // namespace perfmon
