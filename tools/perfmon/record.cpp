// SPDX-License-Identifier: Apache-2.0
// perfmon record: sample a command into a perf.data file that perf report and perf script read.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "event_arguments.hpp"
#include "options.hpp"
#include "output.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/emulated.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/probe.hpp"
#include "perfmon/recording.hpp"
#include "perfmon/sampler.hpp"
#include "perfmon/symbols.hpp"
#include "perfmon/target.hpp"
#include "perfmon/workload.hpp"
#include "targets.hpp"
#include "waited_signals.hpp"

namespace perfmon::cli {

namespace {

constexpr const char* kSynopsis = "perfmon record [<options>] [--] [<command> [<args>]]";
constexpr long kDefaultFrequency = 4000;  // perf record's
// A new perf.data is its maker's alone, as perf makes it: it holds command lines, file paths and
// kernel addresses.
constexpr mode_t kPerfDataMode = 0600;
// On the emulated CPU: about perf's 4000 samples a second of a CPU that runs 0.4 instructions
// a nanosecond, and a few thousand samples for a second of emulation.
constexpr long kDefaultEmulatedPeriod = 100'000;

struct RecordOptions {
  EventArguments events;
  TargetChoice target;
  long period = 0;
  long frequency = 0;
  std::string output = "perf.data";
  bool inherit = true;
  bool thread_counts = false;  // -s
  // --switch-output: a new file on SIGUSR2, or after so many bytes of records or so long.
  struct SwitchOutput {
    enum class When { Never, Signal, Size, Time } when = When::Never;
    std::uint64_t bytes = 0;
    std::chrono::milliseconds every{0};
    long max_files = 0;  // --switch-max-files: the newest kept (0: all)
  } switching;
  bool quiet = false;
  bool verbose = false;
  CallGraphChoice call_graph;
  std::size_t ring_pages = 0;            // 0: the sampler's default
  std::uint64_t branch_sample_type = 0;  // -b, -j
  bool data_addresses = false;           // -d
  bool emulate = false;
  std::vector<std::string> command;
};

// -j/--branch-filter any,u,...: perf's names of PERF_SAMPLE_BRANCH_* bits. Without a privilege
// level (u, k, hv) the kernel takes the event's own.
std::uint64_t parse_branch_filter(std::string_view text) {
  static constexpr std::pair<std::string_view, std::uint64_t> kNames[] = {
      {"u", PERF_SAMPLE_BRANCH_USER},
      {"k", PERF_SAMPLE_BRANCH_KERNEL},
      {"hv", PERF_SAMPLE_BRANCH_HV},
      {"any", PERF_SAMPLE_BRANCH_ANY},
      {"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
      {"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
      {"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
      {"abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX},
      {"in_tx", PERF_SAMPLE_BRANCH_IN_TX},
      {"no_tx", PERF_SAMPLE_BRANCH_NO_TX},
      {"cond", PERF_SAMPLE_BRANCH_COND},
      {"call_stack", PERF_SAMPLE_BRANCH_CALL_STACK},
      {"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
      {"call", PERF_SAMPLE_BRANCH_CALL},
      {"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
  };
  std::uint64_t bits = 0;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view name = text.substr(at, comma - at);
    const auto* known =
        std::find_if(std::begin(kNames), std::end(kNames), [&](const auto& n) { return n.first == name; });
    if (known == std::end(kNames))
      throw UsageError(
          "-j takes branch types separated by commas (any, any_call, any_ret, ind_call, ind_jmp, call, "
          "cond, call_stack, in_tx, no_tx, abort_tx, save_type) and privilege levels (u, k, hv), such as "
          "-j any,u; not '" +
          std::string(name) + "'");
    bits |= known->second;
    at = comma + 1;
  }
  if ((bits & ~(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)) == 0)
    throw UsageError("-j needs a branch type besides the privilege levels, such as -j any,u");
  return bits;
}

// --switch-output's argument, as perf takes it: signal, a size (B, K, M, G) or a time (s, m, h, d).
void parse_switch_output(std::string_view text, RecordOptions::SwitchOutput& switching) {
  using When = RecordOptions::SwitchOutput::When;
  if (text.empty() || text == "signal") {
    switching.when = When::Signal;
    return;
  }
  std::uint64_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  auto refuse = [&]() -> void {
    throw UsageError(
        "--switch-output takes signal, a size such as 100M (B, K, M, G) or a time such as 30s (s, m, "
        "h, d); not '" +
        printable(text) + "'");
  };
  if (error != std::errc() || number == 0 || unit.size() != 1) refuse();
  // perf's tags: B, K, M, G for sizes; s, m, h, d for times (M is megabytes, m minutes).
  constexpr std::pair<char, int> kSizes[] = {{'B', 0}, {'b', 0}, {'K', 10}, {'k', 10}, {'M', 20}, {'G', 30}, {'g', 30}};
  constexpr std::pair<char, std::uint64_t> kTimes[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
  for (const auto& [tag, shift] : kSizes)
    if (unit[0] == tag) {
      switching.when = When::Size;
      switching.bytes = number << shift;
      return;
    }
  for (const auto& [tag, seconds] : kTimes)
    if (unit[0] == tag) {
      switching.when = When::Time;
      switching.every = std::chrono::seconds(number * seconds);
      return;
    }
  refuse();
}

std::vector<Option> record_options(RecordOptions& o) {
  std::vector<Option> options =
      o.events.options("event to sample, perf syntax; repeatable (default: cycles, or cpu-clock without a PMU)");
  options.push_back(o.events.group_option(0));
  for (Option& option : target_options(o.target, Measure::Sample)) options.push_back(std::move(option));
  for (Option& option : sampling_rate_options(o.period, o.frequency)) options.push_back(std::move(option));
  for (Option& option : call_graph_options(o.call_graph)) options.push_back(std::move(option));
  std::vector<Option> rest = {
      {'o', "output", "file",
       "the perf.data file to write (default perf.data), replaced only when complete; - : standard output, in perf's "
       "pipe layout (perf record -o -)",
       [&](std::string_view v) { o.output = std::string(v); }},
      {'b', "branch-any", "",
       "record the last branches taken with each sample (a PMU with a branch record: LBR, BRS, BRBE)",
       [&](std::string_view) { o.branch_sample_type = PERF_SAMPLE_BRANCH_ANY; }},
      {'j', "branch-filter", "types", "record the last branches of these types with each sample (perf's -j: any,u)",
       [&](std::string_view v) { o.branch_sample_type = parse_branch_filter(v); }},
      // perfmon2's random periods are exact only where the sampled thread takes each overflow itself
      // and sets the next period before counting goes on: a program sampling itself, not a command.
      {0, "random-period", "bits[,seed]", "refused: exact random periods are the library's (docs/sampling.md)",
       [&](std::string_view) -> void {
         throw UsageError(
             "--random-period cannot be exact for a command: the kernel restarts an event's count whenever its "
             "period changes, so only a program sampling itself can set each random period before counting goes "
             "on; use the library's random periods there (docs/sampling.md), or sample with a fixed -c");
       }},
      {'m', "mmap-pages", "pages",
       "data pages of each CPU's ring buffer, a power of two (default 64; --call-graph dwarf wants more)",
       [&](std::string_view v) {
         o.ring_pages = static_cast<std::size_t>(parse_long(v, "--mmap-pages", 1, 1L << 20));
         if (!std::has_single_bit(o.ring_pages))
           throw UsageError("--mmap-pages takes a power of two, such as 128; not " + std::string(v));
       }},
      {'i', "no-inherit", "", "do not sample threads and processes the command creates",
       [&](std::string_view) { o.inherit = false; }},
      {'s', "stat", "", "each thread the command creates records its counts when it exits (perfmon report -T)",
       [&](std::string_view) { o.thread_counts = true; }},
      {0, "switch-output", "signal|SIZE|TIME",
       "a file of its own for each part of the recording, named FILE.YYYYmmddHHMMSScc by when it began: a new "
       "one on SIGUSR2 (the default), after SIZE of records (100M, 2G) or after TIME (30s, 5m, 1h)",
       [&](std::string_view v) { parse_switch_output(v, o.switching); },
       [](std::string_view word) {
         return word == "signal" || (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])));
       }},
      {0, "switch-max-files", "n", "with --switch-output: keep the n newest files, removing older ones",
       [&](std::string_view v) { o.switching.max_files = parse_long(v, "--switch-max-files", 1, 1'000'000); }},
      {0, "emulate", "",
       "run the command on QEMU's emulated CPU and sample it every -c instructions (default 100000), "
       "exactly, without a PMU; -g takes callchains from the calls it executes (docs/emulated.md)",
       [&](std::string_view) { o.emulate = true; }},
      {'d', "data", "", "record each sample's data address (PERF_SAMPLE_ADDR: what memory events give)",
       [&](std::string_view) { o.data_addresses = true; }},
      {'T', "timestamp", "", "record each sample's time (always recorded: taken as perf takes it)",
       [](std::string_view) {}},
      {0, "sample-cpu", "", "record each sample's CPU (always recorded: taken as perf takes it)",
       [](std::string_view) {}},
      {'z', "compression-level", "", "refused: perfmon writes the records uncompressed",
       [](std::string_view) -> void {
         throw UsageError(
             "perf's -z compresses the records (zstd); perfmon record writes them uncompressed, which perf report "
             "and perfmon report read: compress the file afterwards where it must be smaller (zstd perf.data)");
       }},
      {'q', "quiet", "", "print nothing but errors", [&](std::string_view) { o.quiet = true; }},
      {'v', "verbose", "", "say when sampling has started", [&](std::string_view) { o.verbose = true; }},
  };
  for (Option& option : rest) options.push_back(std::move(option));
  return options;
}

void validate(const RecordOptions& o) {
  const int targets = targets_given(o.target);
  if (targets > 1) throw UsageError("choose one target: -p, -t, or -a/-C");
  if (o.command.empty() && targets == 0)
    throw UsageError("nothing to record: give a command, or a target with -p, -t, -a or -C");
  if (!o.command.empty() && (!o.target.pids.empty() || !o.target.tids.empty()))
    throw UsageError("-p and -t attach to running processes; they cannot be combined with a command");
  if (o.period != 0 && o.frequency != 0) throw UsageError("-c and -F exclude each other: a period or a frequency");
  if (o.thread_counts && !o.inherit)
    throw UsageError("-s records the counts of the threads the command creates: give it without --no-inherit");
  using When = RecordOptions::SwitchOutput::When;
  if (o.switching.when != When::Never && (o.output == "-" || o.emulate))
    throw UsageError("--switch-output writes a file for each part of the recording: give it without -o - or --emulate");
  if (o.switching.max_files != 0 && o.switching.when == When::Never)
    throw UsageError("--switch-max-files keeps the newest files of --switch-output: give that too");
  if (!o.emulate) return;
  if (o.command.empty() || targets > 0)
    throw UsageError("--emulate runs a command on the emulated CPU: give one, without -p, -t, -a or -C");
  if (o.frequency != 0)
    throw UsageError("--emulate samples every N instructions, exactly: give a period with -c, not a frequency");
  if (o.call_graph.user_stack_bytes != 0)
    throw UsageError(
        "--emulate takes callchains from the calls the emulated CPU executes: use -g (or --call-graph fp), not dwarf");
  if (o.events.only_ring == 'k')
    throw UsageError("--emulate runs user mode only: --all-kernel has nothing to sample there");
  if (o.branch_sample_type != 0 || !o.inherit || o.ring_pages != 0 || o.data_addresses || o.thread_counts)
    throw UsageError(
        "--emulate samples every thread and process of the command every -c instructions: it cannot be combined "
        "with -b, -j, -d, -s, --no-inherit or --mmap-pages");
}

// Where a recording goes: a perf.data file, replaced only when complete, the one before it kept as
// FILE.old (as perf record keeps perf.data.old: perfmon diff's default base); or, with -o -,
// standard output in perf's pipe layout, as perf record -o - writes it for perf report -i -.
class RecordOutput {
 public:
  explicit RecordOutput(const std::string& path) : path_(path) {
    if (path == "-") {
      if (::isatty(STDOUT_FILENO))
        throw Error(ErrorKind::InvalidArgument,
                    "-o - writes the recording to standard output, which is a terminal here; pipe it into a reader "
                    "(perfmon record -o - ... | perf report -i -) or give a file's name.",
                    EINVAL);
      // The stream keeps standard output's pipe; the command's own output (and anything else
      // printed there) goes to standard error instead, as perf record -o - sends it, so that it
      // cannot break the stream.
      stream_fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
      if (stream_fd_ < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        throw Error(ErrorKind::System,
                    std::string("cannot keep standard output for the recording: ") + std::strerror(errno) + ".", errno);
      return;
    }
    file_.emplace(path, nullptr, kPerfDataMode);
    file_->keep_replaced_as(".old");
  }
  ~RecordOutput() {
    if (stream_fd_ >= 0) ::close(stream_fd_);
  }
  RecordOutput(const RecordOutput&) = delete;
  RecordOutput& operator=(const RecordOutput&) = delete;
  // The descriptor to write through: a file's header is written last, in place.
  int fd() {
    if (!file_) return stream_fd_;
    const int fd = file_->seekable_fd();
    if (fd < 0)
      throw Error(ErrorKind::InvalidArgument,
                  "cannot write a perf.data file to '" + path_ +
                      "': its header is written last, in place, which needs a regular file; give a file's name, "
                      "or -o - for perf's pipe layout on standard output.",
                  EINVAL);
    return fd;
  }
  // The machine, for a pipe's beginning (a file takes it at the end).
  const PerfDataHost* stream_host(const PerfDataHost& host) const { return file_ ? nullptr : &host; }
  void commit() {
    if (file_) cli::commit(*file_);
  }
  std::string name() const { return file_ ? printable(path_) : "standard output"; }

 private:
  std::string path_;
  std::optional<OutputFile> file_;
  int stream_fd_ = -1;  // -o -: standard output's pipe
};

// record's part in a run: a line when it starts (-v), a progress line every tick.
class ProgressLine final : public RunHooks {
 public:
  ProgressLine(std::function<void()> on_start, std::function<void()> on_tick)
      : on_start_(std::move(on_start)), on_tick_(std::move(on_tick)) {}
  void started() override { on_start_(); }
  void tick(std::chrono::nanoseconds) override { on_tick_(); }

 private:
  std::function<void()> on_start_, on_tick_;
};

// --switch-output: the name of a part of the recording, FILE.YYYYmmddHHMMSScc (perf's, by the
// time the part began).
std::string part_name(const std::string& base) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  std::tm local{};
  localtime_r(&now.tv_sec, &local);
  char stamp[32];
  const std::size_t length = std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &local);
  std::snprintf(stamp + length, sizeof stamp - length, "%02ld", now.tv_nsec / 10'000'000);
  return base + "." + stamp;
}

// The parts of a --switch-output recording: each a file of its own, ended and committed when the
// next begins (on SIGUSR2, a size or a time), the oldest removed past --switch-max-files.
class SwitchedParts final : public RunHooks {
 public:
  SwitchedParts(const RecordOptions& o, const PerfDataHost& host) : o_(o), host_(host) { open_part(); }
  int fd() { return out_->fd(); }
  // The recording that writes the parts, and the hooks it would have had without them.
  void attach(Recording& recording, RunHooks& progress) {
    recording_ = &recording;
    progress_ = &progress;
    began_ = std::chrono::steady_clock::now();
  }
  void started() override { progress_->started(); }
  void tick(std::chrono::nanoseconds since_last) override {
    progress_->tick(since_last);
    using When = RecordOptions::SwitchOutput::When;
    if ((o_.switching.when == When::Size && recording_->file().data_bytes() >= o_.switching.bytes) ||
        (o_.switching.when == When::Time && std::chrono::steady_clock::now() - began_ >= o_.switching.every))
      next_part();
  }
  int signal_number() const noexcept override {
    return o_.switching.when == RecordOptions::SwitchOutput::When::Signal ? SIGUSR2 : 0;
  }
  void signalled(const siginfo_t&) override { next_part(); }
  // The last part, once the recording's finish() has ended it.
  void end(const std::string& lost) {
    out_->commit();
    said(name_, lost);
  }

 private:
  void open_part() {
    std::string name = part_name(o_.output);
    // Two parts begun in one hundredth of a second: the later one's name made apart.
    for (int n = 1; name == name_ || std::find(written_.begin(), written_.end(), name) != written_.end(); ++n)
      name = part_name(o_.output) + "-" + std::to_string(n);
    name_ = name;
    out_ = std::make_unique<RecordOutput>(name_);
  }
  void next_part() {
    const std::unique_ptr<RecordOutput> ended = std::move(out_);
    const std::string ended_name = name_;
    open_part();
    const std::string lost = recording_->switch_file(out_->fd(), host_).sentence();
    ended->commit();
    said(ended_name, lost);
    began_ = std::chrono::steady_clock::now();
  }
  void said(const std::string& name, const std::string& lost) {
    written_.push_back(name);
    while (o_.switching.max_files != 0 && written_.size() > static_cast<std::size_t>(o_.switching.max_files)) {
      std::filesystem::remove(written_.front());
      written_.pop_front();
    }
    if (o_.quiet) return;
    const std::uint64_t samples = recording_->sampler().stats().samples;
    std::fprintf(stderr, "[ perfmon record: wrote %llu samples to %s%s ]\n",
                 static_cast<unsigned long long>(samples - samples_before_), printable(name).c_str(),
                 lost.empty() ? "" : (", " + lost).c_str());
    samples_before_ = samples;
  }

  const RecordOptions& o_;
  const PerfDataHost& host_;
  RunHooks* progress_ = nullptr;
  Recording* recording_ = nullptr;
  std::unique_ptr<RecordOutput> out_;
  std::string name_;
  std::deque<std::string> written_;
  std::uint64_t samples_before_ = 0;
  std::chrono::steady_clock::time_point began_;
};

// The directory a file goes to: where the samples wait, on the same disk as the file they make.
std::string directory_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// --emulate: the command on QEMU's emulated CPU, sampled every -c instructions by perfmon's plugin,
// whose records become the file's data once the command has exited.
int record_emulated(const RecordOptions& o, std::vector<std::string> command_line) {
  EventCatalog catalog;
  std::vector<const Event*> events;
  std::vector<EventGroup> groups;
  try {
    groups = o.events.lists.empty() ? catalog.parse("instructions:u") : o.events.parse(catalog);
  } catch (const Error& error) {
    return report_event_error("record", error);
  }
  for (const EventGroup& group : groups)
    for (const Event& event : group.events) events.push_back(&event);
  if (events.size() != 1 || events[0]->attr.type != PERF_TYPE_HARDWARE ||
      events[0]->attr.config != PERF_COUNT_HW_INSTRUCTIONS)
    return report_error("record",
                        Error(ErrorKind::InvalidArgument,
                              "the emulated CPU samples one event, instructions: give -e instructions, or no -e."),
                        129);
  if (events[0]->attr.exclude_user)
    return report_error("record",
                        Error(ErrorKind::InvalidArgument,
                              "the emulated CPU runs user mode only: sample instructions or instructions:u."),
                        129);

  RecordOutput out(o.output);
  const int fd = out.fd();
  EmulatorOptions options;
  options.sample_period = static_cast<std::uint64_t>(o.period != 0 ? o.period : kDefaultEmulatedPeriod);
  options.sample_callchains = o.call_graph.callchains;
  options.samples_directory = directory_of(o.output);
  EmulatedWorkload workload(o.command, options);
  CommandOf<EmulatedWorkload> command(workload);
  command.start();
  if (o.verbose) std::fprintf(stderr, "perfmon: recording started on %s\n", workload.qemu().c_str());
  const bool live = !o.quiet && ::isatty(STDERR_FILENO);
  ProgressLine progress([] {},
                        [&] {
                          if (live)
                            std::fprintf(stderr, "\r[ perfmon record: %llu samples on the emulated CPU ]",
                                         static_cast<unsigned long long>(workload.read().samples));
                        });
  RunOptions every_100ms;
  every_100ms.tick = std::chrono::milliseconds(100);
  RunResult run;
  wait_until_done(&command, Target::emulated(workload), progress, every_100ms, run);
  const WorkloadExit exit = run.exit.value_or(WorkloadExit{});

  PerfDataHost host = describe_this_host(std::move(command_line));
  host.arch = workload.architecture();  // the samples' machine
  PerfDataWriter file(fd, {{"instructions:u (emulated)", workload.sample_attr(), {}}}, out.stream_host(host));
  const std::uint64_t written = workload.read_samples([&](const perf_event_header& record) { file.write(record); });
  file.finish(host);
  out.commit();
  const EmulatedCounts counts = workload.read();
  if (!o.quiet) {
    if (live) std::fputc('\n', stderr);
    // Lost: those the samples file could not take, and those a process still buffered when a
    // signal killed it.
    const std::uint64_t lost = counts.samples - std::min(written, counts.samples);
    const std::string lost_text = lost != 0 ? ", " + std::to_string(lost) + " lost" : "";
    std::fprintf(stderr, "[ perfmon record: wrote %llu samples of the emulated CPU (%.3f MB) to %s%s ]\n",
                 static_cast<unsigned long long>(written), static_cast<double>(file.data_bytes()) / 1e6,
                 out.name().c_str(), lost_text.c_str());
  }
  return exit.exit_code();
}

// After a recording whose events may sample the kernel: the kernel's symbols kept for the report
// that follows it (docs/cli.md), once per boot, after the run and its summary.
void keep_kernel_symbols_for(const std::vector<EventGroup>& groups) {
  for (const EventGroup& group : groups)
    for (const Event& event : group.events)
      if (!event.attr.exclude_kernel) return SymbolTables::keep_kernel_symbols_now();
}

// `command_line` is perfmon's own, for the file's CMDLINE section.
int record(const RecordOptions& o, std::vector<std::string> command_line) {
  const bool switching = o.switching.when != RecordOptions::SwitchOutput::When::Never;
  std::optional<RecordOutput> out;
  if (!switching) out.emplace(o.output);  // first: a terminal behind -o - is refused before anything is said
  EventCatalog catalog;
  std::vector<EventGroup> groups;
  try {
    std::string why;
    groups = o.events.lists.empty() ? catalog.parse(default_sampled_event(catalog, why)) : o.events.parse(catalog);
    if (!why.empty() && !o.quiet) std::fprintf(stderr, "perfmon record: %s\n", why.c_str());
    o.events.group_all(groups);
    o.events.restrict_rings(groups);
  } catch (const Error& error) {
    return report_event_error("record", error);
  }

  const PerfDataHost host = describe_this_host(std::move(command_line));
  std::optional<SwitchedParts> parts;
  if (switching) parts.emplace(o, host);
  // SIGUSR2 waits for the run, which starts the next part (the command's own mask is its own).
  if (parts && parts->signal_number() != 0) {
    sigset_t switch_signal;
    sigemptyset(&switch_signal);
    sigaddset(&switch_signal, SIGUSR2);
    sigprocmask(SIG_BLOCK, &switch_signal, nullptr);
  }
  const int fd = parts ? parts->fd() : out->fd();

  std::optional<Workload> workload;
  std::optional<CommandOf<Workload>> command;
  if (!o.command.empty()) command.emplace(workload.emplace(o.command));
  const Target target = make_target(o.target, workload ? &*workload : nullptr);
  SamplingOptions options;
  options.period = static_cast<std::uint64_t>(o.period);
  options.frequency = o.period == 0 ? static_cast<std::uint64_t>(o.frequency ? o.frequency : kDefaultFrequency) : 0;
  options.inherit = o.inherit;
  options.thread_counts = o.thread_counts;
  options.task_records = true;
  if (o.call_graph.callchains) options.sample_type |= PERF_SAMPLE_CALLCHAIN;
  if (o.data_addresses) options.sample_type |= PERF_SAMPLE_ADDR;
  options.user_stack_bytes = o.call_graph.user_stack_bytes;
  options.branch_sample_type = o.branch_sample_type;
  if (o.ring_pages != 0) options.ring_pages = o.ring_pages;
  // A tracepoint's fields, as perf records them, for perf script to print.
  for (const EventGroup& group : groups)
    for (const Event& event : group.events)
      if (event.attr.type == PERF_TYPE_TRACEPOINT) options.sample_type |= PERF_SAMPLE_RAW;
  // What already runs gets the records the kernel gave it before the recording: its threads' names
  // and its mappings (every process, system-wide).
  std::vector<pid_t> described = o.target.pids;
  described.insert(described.end(), o.target.tids.begin(), o.target.tids.end());
  Recording recording(fd, groups, target, options, described, out ? out->stream_host(host) : nullptr);
  for (const std::string& note : recording.sampler().notes())
    std::fprintf(stderr, "perfmon record: %s\n", note.c_str());

  const bool live = !o.quiet && ::isatty(STDERR_FILENO);
  ProgressLine progress(
      [&] {
        if (o.verbose) std::fprintf(stderr, "perfmon: recording started\n");
      },
      [&] {
        if (live)
          std::fprintf(stderr, "\r[ perfmon record: %llu samples, %llu records lost ]",
                       static_cast<unsigned long long>(recording.sampler().stats().samples),
                       static_cast<unsigned long long>(recording.sampler().stats().lost_records));
      });
  RunHooks* hooks = &progress;
  if (parts) {
    parts->attach(recording, progress);
    hooks = &*parts;
  }
  const RunResult run = recording.record(command ? &*command : nullptr, *hooks);
  const WorkloadExit exit = run.exit.value_or(WorkloadExit{});
  const std::string lost_sentence = recording.finish(host).sentence();
  const PerfDataWriter& file = recording.file();
  const Sampler& sampler = recording.sampler();
  if (parts) {
    if (live && !o.quiet) std::fputc('\n', stderr);
    parts->end(lost_sentence);
    keep_kernel_symbols_for(groups);
    return workload ? exit.exit_code() : 0;
  }
  out->commit();
  if (!o.quiet) {
    if (live) std::fputc('\n', stderr);
    const std::string lost = lost_sentence.empty() ? "" : ", " + lost_sentence;
    std::fprintf(stderr, "[ perfmon record: wrote %llu samples (%.3f MB) to %s%s ]\n",
                 static_cast<unsigned long long>(sampler.stats().samples), static_cast<double>(file.data_bytes()) / 1e6,
                 out->name().c_str(), lost.c_str());
  }
  keep_kernel_symbols_for(groups);
  return workload ? exit.exit_code() : 0;
}

}  // namespace

int run_record(std::span<char* const> args) {
  RecordOptions o;
  if (auto status = parse_command_line(args, "record", kSynopsis, record_options(o), o.command,
                                       [&](const std::vector<std::string>&) { validate(o); }))
    return *status;
  try {
    WaitedSignals waited;
    std::vector<std::string> command_line = {"perfmon", "record"};
    command_line.insert(command_line.end(), args.begin(), args.end());
    return o.emulate ? record_emulated(o, std::move(command_line)) : record(o, std::move(command_line));
  } catch (const Error& error) {
    return report_run_error("record", error);
  }
}

}  // namespace perfmon::cli
