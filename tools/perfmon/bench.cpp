// SPDX-License-Identifier: Apache-2.0
// perfmon bench: a command's counts as benchmark results a CI job keeps and compares — exact and
// the same every run on the emulated CPU (the default), or the PMU's user-space counts (--native);
// the whole command one benchmark, each region the program marks one (--markers for likwid's
// Marker API, --papi for PAPI's high-level API), or each benchmark of a Google Benchmark binary
// one, its timed loop counted alone (--google-benchmark); saved in
// Bencher's Metric Format, compared with a baseline, and a gate that fails where a measure grew
// past its threshold; and why it grew: the functions whose instructions changed, from a recording
// of each build on the emulated CPU (--record, --explain) (docs/bench.md).
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "output.hpp"
#include "perfmon/bench_results.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/emulated.hpp"
#include "perfmon/error.hpp"
#include "perfmon/measurement.hpp"
#include "perfmon/output_file.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/report_diff.hpp"
#include "perfmon/report_output.hpp"
#include "perfmon/workload.hpp"
#include "profile_reading.hpp"
#include "stat_markers.hpp"
#include "temporary_directory.hpp"
#include "waited_signals.hpp"

namespace perfmon::cli {

namespace {

constexpr const char* kSynopsis = "perfmon bench [<options>] [--] <command> [<args>]";
// A recording's samples: about this many, the period the instructions over it.
constexpr std::uint64_t kSamplesPerRecording = 100'000;
// The functions --explain lists.
constexpr std::size_t kExplainedFunctions = 10;
// What every benchmark reports: instructions, branches, and the models' (or the PMU's) misses.
constexpr const char* kMeasures = "instructions,branches,branch-misses,L1-dcache-load-misses,LLC-load-misses";
constexpr int kRegressionStatus = 2;  // the gate failed: a measure grew past its threshold
// The region libperfmon-gbench makes of a Google Benchmark's timed loop (compat/libgbench/loops.c).
constexpr const char* kGoogleBenchmarkRegion = "google-benchmark-loop";
// Each benchmark's loop run once, or as often as the benchmark itself says (->Iterations(n)):
// libbenchmark 1.7 takes the first run that lasts min_time (libbenchmark 1.8 and later take "0" too,
// with a warning that it wants a unit).
constexpr const char* kOneIteration = "--benchmark_min_time=0";

struct BenchOptions {
  std::vector<std::string> events;   // -e: more measures
  std::string measures = kMeasures;  // --measures: the measures, in place of the defaults
  long runs = 0;                     // -r; 0: 1 on the emulated CPU (exact), 5 on the PMU
  bool native = false;
  std::string name;
  bool markers = false;
  bool papi = false;              // --papi: PAPI's high-level regions
  bool google_benchmark = false;  // --google-benchmark: each benchmark of a Google Benchmark binary
  std::string save, compare, markdown, junit;
  std::string record, explain, flame_graph;  // perf.data of this run; the base's; a differential flame graph
  bool keep_environment = false;             // --keep-env: the command gets the whole environment
  std::string threshold;
  bool json = false;
  std::vector<std::string> command;
};

// A list of named entries in the order first met: the entry of `name`, made where there is none.
template <typename Value>
Value& entry(std::vector<std::pair<std::string, Value>>& list, const std::string& name) {
  const auto found = std::find_if(list.begin(), list.end(), [&](const auto& named) { return named.first == name; });
  return found != list.end() ? found->second : list.emplace_back(name, Value{}).second;
}

// Each benchmark's values of each measure, a run at a time, in the order first met.
class Collected {
 public:
  void add(const std::string& benchmark, const std::string& measure, double value) {
    entry(entry(benchmarks_, benchmark), measure).push_back(value);
  }
  // The mean of each, with the least and the most.
  BenchResults results() const {
    BenchResults out;
    for (const auto& [benchmark, measures] : benchmarks_) {
      BenchResult& result = out.emplace_back();
      result.benchmark = benchmark;
      for (const auto& [measure, values] : measures) {
        double sum = 0;
        for (const double value : values) sum += value;
        const auto [least, most] = std::minmax_element(values.begin(), values.end());
        result.measures.push_back({measure, sum / static_cast<double>(values.size()), *least, *most});
      }
    }
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::vector<double>>>>> benchmarks_;
};

// A measure's name: the event's, without the ":u" the PMU's are counted with, so that a baseline
// counted one way reads the same names as one counted the other.
std::string measure_name(std::string event) {
  if (event.ends_with(":u")) event.resize(event.size() - 2);
  return event;
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

// A command's name as a benchmark: its program's file name and its arguments ("gzip -9 data"),
// the same wherever the project is checked out.
std::string benchmark_name(std::vector<std::string> command) {
  command.front() = std::filesystem::path(command.front()).filename().string();
  return joined(command);
}

// What runs as one benchmark: its name, and the command that runs it.
struct Benchmarked {
  std::string name;
  std::vector<std::string> command;
};

// What `command` prints on its standard output (its standard error and input /dev/null); nothing
// where it exits with other than 0. Throws where it cannot be run.
std::optional<std::string> output_of(const std::vector<std::string>& command) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0)
    throw Error(ErrorKind::System, "cannot make a pipe to list the benchmarks.", errno);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO);
  ::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  ::posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  pid_t child = 0;
  const int spawned = ::posix_spawnp(&child, argv[0], &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(ends[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t got = 0;
       spawned == 0 && ((got = ::read(ends[0], buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR));)
    if (got > 0) text.append(buffer, static_cast<std::size_t>(got));
  ::close(ends[0]);
  if (spawned != 0) throw cannot_run(command.front(), spawned);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return text;
}

// A benchmark's name as a regular expression that matches it alone.
std::string matching_only(const std::string& name) {
  std::string pattern = "^";
  for (const char c : name) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) pattern += '\\';
    pattern += c;
  }
  return pattern + "$";
}

// Each benchmark of a Google Benchmark binary (--benchmark_list_tests), run by itself, its loop once.
std::vector<Benchmarked> google_benchmarks(const std::vector<std::string>& command) {
  std::vector<std::string> listing = command;
  listing.emplace_back("--benchmark_list_tests=true");
  const std::optional<std::string> names = output_of(listing);
  if (!names)
    throw Error(ErrorKind::InvalidArgument, "'" + printable(joined(listing)) +
                                                "' failed: --google-benchmark runs a Google Benchmark binary (one "
                                                "built with libbenchmark and BENCHMARK_MAIN), which lists its "
                                                "benchmarks so; leave out --google-benchmark for other programs.");
  std::vector<Benchmarked> benchmarks;
  std::size_t from = 0;
  for (std::size_t end; (end = names->find('\n', from)) != std::string::npos; from = end + 1) {
    const std::string name = names->substr(from, end - from);
    if (name.empty()) continue;
    Benchmarked& one = benchmarks.emplace_back(Benchmarked{name, command});
    one.command.push_back("--benchmark_filter=" + matching_only(name));
    one.command.emplace_back(kOneIteration);
  }
  if (benchmarks.empty())
    throw Error(ErrorKind::InvalidArgument, "'" + printable(joined(listing)) +
                                                "' lists no benchmark: register some with BENCHMARK(), or check "
                                                "--benchmark_filter among the arguments.");
  return benchmarks;
}

// libperfmon-gbench (compat/libgbench): $PERFMON_GBENCH_PRELOAD, in the tree this perfmon is
// installed in (bin/../lib/perfmon/), where it was installed, or where it was built.
std::string gbench_preload() {
  if (const char* path = std::getenv("PERFMON_GBENCH_PRELOAD"); path != nullptr && *path != '\0') return path;
  std::vector<std::filesystem::path> candidates;
  std::error_code unknown;
  if (const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", unknown); !unknown)
    candidates.push_back(self.parent_path() / ".." / PERFMON_INSTALL_LIBDIR / "perfmon" / "libperfmon-gbench.so");
  candidates.emplace_back(PERFMON_GBENCH_INSTALLED);
  candidates.emplace_back(PERFMON_GBENCH_BUILT);
  for (const std::filesystem::path& candidate : candidates)
    if (::access(candidate.c_str(), R_OK) == 0) return candidate.lexically_normal().string();
  throw Error(ErrorKind::Unsupported,
              "--google-benchmark needs libperfmon-gbench.so, which is not beside this perfmon (lib/perfmon/): "
              "reinstall perfmon, or set PERFMON_GBENCH_PRELOAD to the library.");
}

// The dynamic linker's settings for a program whose regions are benchmarks, while it runs:
// LD_BIND_NOW, so that no region pays for binding a symbol at its first call (a thread's first
// region, and of two threads the first to finish, would count some 800 instructions more each);
// with --google-benchmark, libperfmon-gbench preloaded. On the emulated CPU through QEMU's
// QEMU_SET_ENV, which sets the guest's environment alone (QEMU itself is no benchmark).
class RegionLinking {
 public:
  RegionLinking(bool regions, bool google_benchmark, bool native) {
    if (!regions) return;
    std::vector<std::pair<std::string, std::string>> settings{{"LD_BIND_NOW", "1"}};
    if (google_benchmark) {
      const std::string library = gbench_preload();
      if (!native && library.find(',') != std::string::npos)
        throw Error(ErrorKind::InvalidArgument, "QEMU cannot be given a library whose path holds a comma (" +
                                                    printable(library) + "): install perfmon under another prefix.");
      const char* preloaded = std::getenv("LD_PRELOAD");  // the caller's own, kept after it
      settings.emplace_back(
          "LD_PRELOAD", library + (native && preloaded != nullptr && *preloaded != '\0' ? ":" + std::string(preloaded)
                                                                                        : std::string()));
    }
    if (native) {
      for (const auto& [name, value] : settings) set(name, value);
      return;
    }
    const char* others = std::getenv("QEMU_SET_ENV");
    std::string guest = others != nullptr ? others : "";
    for (const auto& [name, value] : settings) guest += (guest.empty() ? "" : ",") + name + "=" + value;
    set("QEMU_SET_ENV", guest);
  }
  ~RegionLinking() {
    for (const auto& [name, before] : saved_)
      if (before)
        ::setenv(name.c_str(), before->c_str(), 1);
      else
        ::unsetenv(name.c_str());
  }
  RegionLinking(const RegionLinking&) = delete;
  RegionLinking& operator=(const RegionLinking&) = delete;

 private:
  void set(const std::string& name, const std::string& value) {
    const char* before = std::getenv(name.c_str());
    saved_.emplace_back(name, before != nullptr ? std::optional<std::string>(before) : std::nullopt);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A Google Benchmark's own output while it runs, kept aside: its timings of one iteration (on the
// emulated CPU, of QEMU's) are no result, and perfmon bench's table is. Shown where it fails.
class CapturedOutput {
 public:
  explicit CapturedOutput(bool on) {
    if (!on) return;
    std::fflush(stdout);
    std::fflush(stderr);
    file_ = ::memfd_create("perfmon bench: a benchmark's output", MFD_CLOEXEC);
    if (file_ < 0) throw Error(ErrorKind::System, "cannot make a file for a benchmark's output", errno);
    saved_out_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    saved_err_ = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    ::dup2(file_, STDOUT_FILENO);
    ::dup2(file_, STDERR_FILENO);
  }
  ~CapturedOutput() { restore(); }
  CapturedOutput(const CapturedOutput&) = delete;
  CapturedOutput& operator=(const CapturedOutput&) = delete;

  // Standard output and error back as they were; what the benchmark wrote copied to standard error.
  void show() {
    if (file_ < 0) return;
    restore();
    std::string text;
    char buffer[4096];
    for (off_t at = 0;;) {
      const ssize_t got = ::pread(file_, buffer, sizeof buffer, at);
      if (got <= 0) break;
      text.append(buffer, static_cast<std::size_t>(got));
      at += got;
    }
    std::fputs(text.c_str(), stderr);
  }

 private:
  void restore() {
    if (saved_out_ < 0) return;
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(saved_out_, STDOUT_FILENO);
    ::dup2(saved_err_, STDERR_FILENO);
    ::close(saved_out_);
    ::close(saved_err_);
    saved_out_ = saved_err_ = -1;
  }
  int file_ = -1, saved_out_ = -1, saved_err_ = -1;
};

// Each region's count of each measure, summed over its threads and instances, in the order first
// met: one run's values of the benchmarks a program's regions are.
class RegionSums {
 public:
  void add(const std::string& region, const std::string& measure, double value) {
    entry(entry(sums_, region), measure_name(measure)) += value;
  }
  // A marked region's values of the events `names`: those its counters never ran for (an event the
  // marker library could not open, as on a machine without a PMU) are left out, never a zero.
  void add_counted(const std::string& region, const std::vector<std::string>& names,
                   const std::vector<CounterValue>& values) {
    for (std::size_t e = 0; e < values.size() && e < names.size(); ++e)
      if (values[e].counted())
        add(region, names[e], values[e].scaled());
      else if (std::find(uncounted_.begin(), uncounted_.end(), names[e]) == uncounted_.end())
        uncounted_.push_back(names[e]);
  }
  bool empty() const noexcept { return sums_.empty(); }
  void into(Collected& collected) const {
    for (const auto& [region, measures] : sums_)
      for (const auto& [measure, value] : measures) collected.add(region, measure, value);
  }
  // The events that no region counted.
  std::vector<std::string> never_counted() const {
    std::vector<std::string> names;
    for (const std::string& name : uncounted_)
      if (std::none_of(sums_.begin(), sums_.end(), [&](const auto& region) {
            return std::any_of(region.second.begin(), region.second.end(),
                               [&](const auto& measure) { return measure.first == measure_name(name); });
          }))
        names.push_back(name);
    return names;
  }

 private:
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> sums_;
  std::vector<std::string> uncounted_;
};

// PAPI's high-level library's results (libperfmon-papi's, or PAPI's own): PAPI_EVENTS and
// PAPI_OUTPUT_DIRECTORY set for the command, a directory of perfmon's own read back once it ran.
class PapiRegions {
 public:
  PapiRegions(bool on, const std::string& events) {
    if (!on) return;
    dir_.emplace("PAPI's results");
    ::setenv("PAPI_OUTPUT_DIRECTORY", dir_->path().c_str(), 1);
    ::setenv("PAPI_EVENTS", events.c_str(), 1);
  }
  ~PapiRegions() {
    if (!dir_) return;
    ::unsetenv("PAPI_OUTPUT_DIRECTORY");
    ::unsetenv("PAPI_EVENTS");
  }
  PapiRegions(const PapiRegions&) = delete;
  PapiRegions& operator=(const PapiRegions&) = delete;

  // Each region's value of each event; a note where the program wrote none.
  RegionSums sums(const std::vector<std::string>& events, std::vector<std::string>& notes) const {
    RegionSums out;
    std::error_code missing;
    for (const auto& file : std::filesystem::directory_iterator(dir_->path() / "papi_hl_output", missing)) {
      std::ifstream in(file.path());
      const nlohmann::json rank = nlohmann::json::parse(in, nullptr, false);
      if (!rank.is_object() || !rank.contains("threads") || !rank["threads"].is_object()) continue;
      for (const auto& thread : rank["threads"].items()) {
        if (!thread.value().is_object() || !thread.value().contains("regions")) continue;
        for (const auto& entry : thread.value()["regions"].items()) {
          const nlohmann::json& region = entry.value();
          if (!region.is_object() || !region.contains("name") || !region["name"].is_string()) continue;
          for (const std::string& event : events) {
            if (!region.contains(event)) continue;
            const nlohmann::json& value = region[event].is_object() ? region[event]["region_value"] : region[event];
            // PAPI writes every number as a string.
            out.add(region["name"].get<std::string>(), event,
                    value.is_string() ? std::strtod(value.get<std::string>().c_str(), nullptr) : 0);
          }
        }
      }
    }
    if (out.empty())
      notes.push_back(
          "the program wrote no PAPI high-level results: link it with -lperfmon-papi (or PAPI's "
          "libpapi), mark its regions with PAPI_hl_region_begin and _end, and let it exit normally "
          "(docs/regions.md).");
    return out;
  }

 private:
  std::optional<TemporaryDirectory> dir_;
};

// The command's environment while it is benchmarked: the caller's cleared but for what a run needs
// and what does not vary between a job's runs, so that a CI job's own variables (a branch's name,
// a commit's hash) do not change what the program's start-up executes (callgrind-based tools clear
// it too). Kept: PATH, HOME, LANG, LC_ALL, TMPDIR, LD_LIBRARY_PATH, LD_PRELOAD, LD_BIND_NOW, and the variables of
// perfmon, likwid, PAPI, QEMU and OpenMP (PERFMON_, LIKWID_, PAPI_, QEMU_, OMP_).
class BenchEnvironment {
 public:
  explicit BenchEnvironment(bool keep_all) {
    if (keep_all) return;
    saved_ = environ;
    for (char** entry = environ; *entry != nullptr; ++entry)
      if (kept(*entry)) kept_.push_back(*entry);
    kept_.push_back(nullptr);
    environ = kept_.data();
  }
  ~BenchEnvironment() {
    if (saved_ != nullptr) environ = saved_;
  }
  BenchEnvironment(const BenchEnvironment&) = delete;
  BenchEnvironment& operator=(const BenchEnvironment&) = delete;

 private:
  static bool kept(std::string_view entry) {
    const std::string_view name = entry.substr(0, entry.find('='));
    for (const std::string_view exact :
         {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "LD_LIBRARY_PATH", "LD_PRELOAD", "LD_BIND_NOW"})
      if (name == exact) return true;
    for (const std::string_view prefix : {"PERFMON_", "LIKWID_", "PAPI_", "QEMU_", "OMP_"})
      if (name.starts_with(prefix)) return true;
    return false;
  }
  char** saved_ = nullptr;
  std::vector<char*> kept_;
};

void write_file(const std::string& path, const std::string& text) {
  OutputFile out(path, nullptr);
  out.write(text);
  commit(out);
}

// The command run once more on the emulated CPU, its instructions sampled every `period` with the
// calls they were in, into a perf.data file at `path` (as perfmon record --emulate -g writes it);
// `quiet`: its output kept aside.
void record_instructions(const std::vector<std::string>& command, std::uint64_t period, const std::string& path,
                         bool keep_environment, bool quiet) {
  EmulatorOptions options;
  options.sample_period = period;
  options.sample_callchains = true;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  options.samples_directory = parent.empty() ? "." : parent.string();
  const CapturedOutput output(quiet);
  std::optional<BenchEnvironment> environment(std::in_place, keep_environment);
  EmulatedWorkload workload(command, options);
  environment.reset();
  CommandOf<EmulatedWorkload> run(workload);
  run.start();
  RunHooks hooks;
  RunResult result;
  wait_until_done(&run, Target::emulated(workload), hooks, RunOptions{}, result);
  OutputFile out(path, nullptr);
  PerfDataHost host = describe_this_host(command);
  host.arch = workload.architecture();
  PerfDataWriter file(out.seekable_fd(), {{"instructions:u (emulated)", workload.sample_attr(), {}}});
  workload.read_samples([&](const perf_event_header& record) { file.write(record); });
  file.finish(host);
  commit(out);
}

// Where the instructions changed between two recordings: each function's sampled instructions in
// both (samples times the period), the largest growth first. Functions are compared by name alone:
// the two builds' programs may lie at other paths.
std::string explained(const Profile& base, const Profile& now) {
  DiffOptions options;
  options.sort = {ReportKey::Symbol};
  std::vector<DiffRow> rows = diff_rows(base, 0, now, 0, options);
  auto growth = [](const DiffRow& row) {
    return static_cast<double>(row.new_period) - static_cast<double>(row.base_period);
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const DiffRow& a, const DiffRow& b) { return growth(a) > growth(b); });
  BenchResults base_side, now_side;
  for (std::size_t r = 0; r < rows.size() && r < kExplainedFunctions; ++r) {
    const DiffRow& row = rows[r];
    const double before = static_cast<double>(row.base_period), after = static_cast<double>(row.new_period);
    if (row.baseline) base_side.push_back({row.symbol, {{"instructions", before, before, before}}});
    if (row.now) now_side.push_back({row.symbol, {{"instructions", after, after, after}}});
  }
  return bench_functions_table(compare_bench_results(base_side, now_side, BenchThresholds{}));
}

class Bench {
 public:
  explicit Bench(BenchOptions& options) : o_(options) {}

  int execute() {
    // The bases first: a mistake in them is said before anything runs, and --save may replace
    // --compare's file (a baseline brought up to date) only once it has been read.
    const std::optional<BenchResults> base =
        o_.compare.empty() ? std::nullopt : std::optional(read_bench_results_file(o_.compare));
    std::optional<PerfDataReader> base_recording;
    if (!o_.explain.empty()) {
      base_recording.emplace(o_.explain);
      if (base_recording->events().empty() || base_recording->events().front().attr.sample_period == 0)
        throw Error(ErrorKind::InvalidArgument, printable(o_.explain) +
                                                    " holds no sampled instructions: give a recording perfmon bench "
                                                    "--record wrote of the base build.");
    }
    EventCatalog catalog;
    std::string events;
    for (const std::string& measure : comma_list(o_.measures))
      events += (events.empty() ? "" : ",") + measure + (o_.native && !measure.ends_with(":u") ? ":u" : "");
    for (const std::string& list : o_.events) events += (events.empty() ? "" : ",") + list;
    const std::vector<EventGroup> groups = catalog.parse(events);
    const long runs = o_.runs > 0 ? o_.runs : o_.native ? 5 : 1;
    const std::vector<Benchmarked> benchmarked =
        o_.google_benchmark
            ? google_benchmarks(o_.command)
            : std::vector<Benchmarked>{{o_.name.empty() ? benchmark_name(o_.command) : o_.name, o_.command}};
    std::string counted_on;
    for (long run = 0; run < runs; ++run)
      for (const Benchmarked& one : benchmarked) counted_on = run_once(one, events, groups);
    const BenchResults results = collected_.results();
    note_left_out();
    if (results.empty() && (o_.markers || o_.papi) && !regions_marked_)
      throw Error(ErrorKind::InvalidArgument,
                  (notes_.empty() ? std::string("the program marked no region") : notes_.front()) +
                      (notes_.empty() ? ": mark its benchmarks with perfmon::ProgramRegion or likwid's Marker API "
                                        "(docs/regions.md), or leave out --markers."
                                      : ""));
    if (results.empty())
      throw Error(
          ErrorKind::Unsupported,
          "none of the measures can be counted here" +
              (notes_.empty() ? std::string()
                              : " (" + notes_.front().substr(0, notes_.front().find_last_not_of('.') + 1) + ")") +
              (o_.native ? ": leave out --native, and perfmon bench counts on the emulated CPU." : "."));
    const std::string title =
        "perfmon bench: '" + printable(joined(o_.command)) + "' " +
        (o_.native ? "on this CPU's PMU, user space" : "on the emulated CPU (" + counted_on + ")") + ", " +
        std::to_string(runs) + (runs == 1 ? " run" : " runs");
    const bool varied = std::ranges::any_of(results, [](const BenchResult& result) {
      return std::ranges::any_of(result.measures, [](const BenchMeasure& m) { return m.upper != m.lower; });
    });
    if (varied && !o_.native)
      notes_.push_back(
          "The counts varied between runs: the emulated CPU counts exactly what runs, and the program's "
          "threads did not run the same instructions each time (they interleave, wait and spin "
          "differently); a single thread's counts do not vary.");
    if (!o_.save.empty()) write_file(o_.save, bench_results_json(results));
    // This build recorded as the base was (its period), or about kSamplesPerRecording samples.
    const std::uint64_t period =
        base_recording ? base_recording->events().front().attr.sample_period : period_of(results);
    if (!o_.record.empty())
      record_instructions(recorded_command(), period, o_.record, o_.keep_environment, o_.google_benchmark);
    std::vector<BenchChange> changes;
    if (base)
      changes = compare_bench_results(*base, results,
                                      o_.threshold.empty() ? BenchThresholds{} : parse_bench_thresholds(o_.threshold));
    OutputFile out("", stdout);
    if (o_.json) {
      out.write(bench_results_json(results));
    } else {
      out.write(title + "\n\n" + bench_results_table(results));
      if (base) out.write("\nAgainst " + printable(o_.compare) + ":\n\n" + bench_changes_table(changes));
      if (base_recording && !bench_regressions(changes).empty()) out.write(explain(*base_recording, period));
      for (const std::string& note : notes_) out.write("\n" + note + "\n");
    }
    commit(out);
    if (!o_.markdown.empty())
      write_file(o_.markdown, base ? bench_changes_markdown(changes)
                                   : "### perfmon bench\n\n```\n" + bench_results_table(results) + "```\n");
    if (!o_.junit.empty()) write_file(o_.junit, bench_junit(results, changes));
    return gate(changes);
  }

 private:
  // One run of one benchmark, its counts collected; says what counted them ("/usr/bin/qemu-x86_64").
  std::string run_once(const Benchmarked& one, const std::string& events, const std::vector<EventGroup>& groups) {
    StatMarkers markers(o_.markers || o_.google_benchmark, {{events}});
    const PapiRegions papi(o_.papi, events);
    const RegionLinking linking(o_.markers || o_.papi || o_.google_benchmark, o_.google_benchmark, o_.native);
    const BenchEnvironment environment(o_.keep_environment);  // after the markers' and PAPI's variables are set
    MeasurementRequest request;
    request.groups = groups;
    request.command = one.command;
    request.emulate = !o_.native;
    CapturedOutput output(o_.google_benchmark);  // before the command is started: it inherits where they go
    std::unique_ptr<Measurement> measurement = measure(request);
    std::string counted_on = measurement->counting_on();  // " on /usr/bin/qemu-x86_64"
    if (counted_on.starts_with(" on ")) counted_on.erase(0, 4);
    RunHooks hooks;
    const RunResult result = perfmon::run(*measurement, hooks);
    if (result.interrupted) throw Error(ErrorKind::System, "interrupted: no results kept.");
    if (result.exit && result.exit->exit_code() != 0) {
      output.show();
      throw Error(ErrorKind::CommandFailed,
                  "'" + printable(joined(one.command)) + "' exited with status " +
                      std::to_string(result.exit->exit_code()) +
                      ": a benchmark's counts are kept only from a run that succeeds (fix the command first).");
    }
    if (o_.papi)
      papi.sums(comma_list(events), notes_).into(collected_);
    else if (o_.google_benchmark)
      collect_loop(one.name, markers, result.reading);
    else
      collect(one.name, result.reading, markers);
    return counted_on;
  }

  // What --record and --explain record: the command, or a Google Benchmark binary's every benchmark
  // with its loop once.
  std::vector<std::string> recorded_command() const {
    std::vector<std::string> command = o_.command;
    if (o_.google_benchmark) command.emplace_back(kOneIteration);
    return command;
  }

  // A Google Benchmark's run: its timed loop's counts (libperfmon-gbench's region), summed over the
  // benchmark's threads.
  void collect_loop(const std::string& benchmark, const StatMarkers& markers, const Reading& whole) {
    const std::optional<MarkerResults> results = markers.results(notes_);
    std::size_t threads = 0;
    std::uint64_t loops = 0;
    RegionSums sums;
    if (results && !results->groups.empty())
      for (const MarkedRegionResult& region : results->regions) {
        if (region.tag != kGoogleBenchmarkRegion) continue;
        ++threads;
        loops += region.count;
        regions_marked_ = true;
        sums.add_counted(benchmark, results->groups.front(), region.values);
      }
    if (threads == 0)
      throw Error(ErrorKind::InvalidArgument,
                  "benchmark " + printable(benchmark) +
                      " ran no timed loop that perfmon saw: --google-benchmark needs the program linked with "
                      "libbenchmark.so (-lbenchmark, not its static archive), whose calls it intercepts.");
    if (loops > threads)
      notes_.push_back(printable(benchmark) + " ran its loop " + std::to_string(loops) + " times in " +
                       std::to_string(threads) + (threads == 1 ? " thread" : " threads") +
                       " (its own MinTime or Repetitions): its counts are their sum.");
    sums.into(collected_);
    left_out_of_regions(sums, whole);
  }

  // The run's counts: the whole command's, or each marked region's summed over its threads.
  void collect(const std::string& benchmark, const Reading& reading, const StatMarkers& markers) {
    if (!o_.markers) {
      std::vector<std::string> taken;  // an event named twice is one measure
      for (const ReadingEvent& event : reading.events) {
        const std::string measure = measure_name(event.event.name);
        if (std::find(taken.begin(), taken.end(), measure) != taken.end()) continue;
        taken.push_back(measure);
        if (event.supported) {
          collected_.add(benchmark, measure, event.value.scaled());
        } else {
          left_out(event.event.name, event.unsupported_reason);
        }
      }
      return;
    }
    const std::optional<MarkerResults> results = markers.results(notes_);
    if (!results || results->groups.empty()) return;
    const std::vector<std::string>& names = results->groups.front();
    RegionSums sums;
    for (const MarkedRegionResult& region : results->regions) sums.add_counted(region.tag, names, region.values);
    regions_marked_ = regions_marked_ || !results->regions.empty();
    sums.into(collected_);
    left_out_of_regions(sums, reading);
  }

  // An event this machine cannot count, noted once with the others left out for the same reason.
  void left_out(const std::string& name, const std::string& reason) {
    auto same =
        std::find_if(left_out_.begin(), left_out_.end(), [&](const auto& entry) { return entry.first == reason; });
    if (same == left_out_.end()) same = left_out_.insert(left_out_.end(), {reason, {}});
    if (std::find(same->second.begin(), same->second.end(), name) == same->second.end()) same->second.push_back(name);
  }

  // The events no marked region counted, with the reason the run's own measurement of them gives.
  void left_out_of_regions(const RegionSums& sums, const Reading& whole) {
    for (const std::string& name : sums.never_counted()) {
      std::string reason = "the program's marker library could not count it.";
      for (const ReadingEvent& event : whole.events)
        if (event.event.name == name && !event.supported) reason = event.unsupported_reason;
      left_out(name, reason);
    }
  }

  // The left-out events' notes, first among the notes: "a, b and c are left out: why".
  void note_left_out() {
    std::vector<std::string> notes;
    for (const auto& [reason, names] : left_out_) {
      std::string list;
      for (std::size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
      notes.push_back(list + (names.size() == 1 ? " is" : " are") + " left out: " + reason);
    }
    notes_.insert(notes_.begin(), notes.begin(), notes.end());
  }

  // The sample period of a recording of about kSamplesPerRecording samples of the first benchmark.
  static std::uint64_t period_of(const BenchResults& results) {
    for (const BenchMeasure& measure : results.front().measures)
      if (measure.name == "instructions")
        return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(measure.value) / kSamplesPerRecording);
    return 1000;
  }

  // --explain: the functions whose instructions changed between the base's recording and this
  // build's (--record's, or one made now), largest growth first; with --flame-graph, the
  // differential flame graph.
  std::string explain(const PerfDataReader& base_file, std::uint64_t period) const {
    std::optional<TemporaryDirectory> scratch;  // where this build's recording goes without --record
    if (o_.record.empty()) scratch.emplace("this build's recording");
    const std::string now_path = scratch ? (scratch->path() / "now.data").string() : o_.record;
    if (scratch) record_instructions(recorded_command(), period, now_path, o_.keep_environment, o_.google_benchmark);
    const PerfDataReader now_file(now_path);
    const std::unique_ptr<Profile> base = read_profile(base_file, ProfileOptions{}, 0);
    const std::unique_ptr<Profile> now = read_profile(now_file, ProfileOptions{}, 0);
    if (!o_.flame_graph.empty()) {
      const FlameGraphBase against{*base, 0};
      write_file(o_.flame_graph,
                 format_flame_graph(*now, 0, "perfmon bench: instructions against " + printable(o_.explain), &against));
    }
    return "\nWhere the instructions changed (each function's sampled instructions, " + printable(o_.explain) +
           " against this build):\n\n" + explained(*base, *now);
  }

  // Exit 2 with one sentence where a measure grew past its threshold.
  static int gate(const std::vector<BenchChange>& changes) {
    const std::string grew = bench_regressions(changes);
    if (grew.empty()) return 0;
    std::fprintf(stderr, "perfmon bench: %s\n", grew.c_str());
    return kRegressionStatus;
  }

  BenchOptions& o_;
  Collected collected_;
  std::vector<std::string> notes_;
  bool regions_marked_ = false;  // a marked region's results came back, counted or not
  std::vector<std::pair<std::string, std::vector<std::string>>> left_out_;  // events by the reason
};

}  // namespace

int run_bench(std::span<char* const> args) {
  BenchOptions o;
  std::vector<Option> options = {
      {'e', "event", "events",
       "more measures, as perf's event list: the emulated CPU's or the PMU's events (the defaults: instructions, "
       "branches, branch-misses, L1-dcache-load-misses, LLC-load-misses)",
       [&](std::string_view v) { o.events.emplace_back(v); }},
      {0, "measures", "events",
       "the measures in place of the defaults (--measures instructions: the emulated CPU counts only what it is asked "
       "for, and instructions alone cost least)",
       [&](std::string_view v) { o.measures = std::string(v); }},
      {'r', "repeat", "n",
       "run the command n times (default 1 on the emulated CPU, whose counts do not vary; 5 with --native)",
       [&](std::string_view v) { o.runs = parse_long(v, "-r", 1, 100000); }},
      {0, "native", "", "count on this CPU's PMU, in user space (:u), instead of the emulated CPU",
       [&](std::string_view) { o.native = true; }},
      {0, "name", "name", "the benchmark's name (default: the command line)",
       [&](std::string_view v) { o.name = std::string(v); }},
      {0, "keep-env", "",
       "give the command the whole environment (by default it gets PATH, HOME, LANG, LC_ALL, TMPDIR, "
       "LD_LIBRARY_PATH, LD_PRELOAD, LD_BIND_NOW and the PERFMON_, LIKWID_, PAPI_, QEMU_ and OMP_ variables only, so "
       "that a CI job's own variables do not change the counts)",
       [&](std::string_view) { o.keep_environment = true; }},
      {0, "markers", "",
       "each region the program marks (perfmon::ProgramRegion, likwid's Marker API) a benchmark, its threads summed",
       [&](std::string_view) { o.markers = true; }},
      {0, "papi", "",
       "each region the program marks with PAPI's high-level API (PAPI_hl_region_begin, linked with -lperfmon-papi) a "
       "benchmark, its threads and instances summed",
       [&](std::string_view) { o.papi = true; }},
      {0, "google-benchmark", "",
       "each benchmark of a Google Benchmark binary (libbenchmark, linked dynamically) a benchmark: run by itself, "
       "its timed loop once (or its own Iterations), counted alone",
       [&](std::string_view) { o.google_benchmark = true; }},
      {0, "save", "file", "write the results to FILE in Bencher's Metric Format (BMF JSON)",
       [&](std::string_view v) { o.save = std::string(v); }},
      {0, "compare", "file",
       "compare with results saved before (BMF): a table of changes, and exit status 2 where a measure grew past "
       "its threshold",
       [&](std::string_view v) { o.compare = std::string(v); }},
      {0, "threshold", "pct",
       "how much a measure may grow: a percent for all ('0.05%'; default 0.1%), or MEASURE=PCT pairs "
       "('instructions=0.01%,branch-misses=1%')",
       [&](std::string_view v) { o.threshold = std::string(v); }},
      {0, "record", "file",
       "also record the command's instructions on the emulated CPU, sampled with their calls, into FILE (perf.data): "
       "the base --explain compares with",
       [&](std::string_view v) { o.record = std::string(v); }},
      {0, "explain", "file",
       "with --compare, where a measure regressed: record this build as the base's FILE was recorded and list the "
       "functions whose instructions grew most",
       [&](std::string_view v) { o.explain = std::string(v); }},
      {0, "flame-graph", "file",
       "with --explain: write the differential flame graph (SVG) of this build against the base",
       [&](std::string_view v) { o.flame_graph = std::string(v); }},
      {0, "json", "", "print the results in Bencher's Metric Format instead of the table",
       [&](std::string_view) { o.json = true; }},
      {0, "markdown", "file", "write the results, or with --compare the changes, as GitHub-flavoured Markdown",
       [&](std::string_view v) { o.markdown = std::string(v); }},
      {0, "junit", "file", "write JUnit XML: each benchmark a test case, failed where a measure regressed",
       [&](std::string_view v) { o.junit = std::string(v); }},
  };
  if (auto status =
          parse_command_line(args, "bench", kSynopsis, options, o.command, [&](const std::vector<std::string>& words) {
            if (words.empty())
              throw UsageError("nothing to benchmark: give a command (perfmon bench -- ./my-benchmark)");
            if (!o.threshold.empty() && o.compare.empty())
              throw UsageError("--threshold applies to --compare's changes: give --compare BASE too");
            if (!o.explain.empty() && o.compare.empty())
              throw UsageError("--explain says why a measure grew against --compare's base: give --compare BASE too");
            if (!o.flame_graph.empty() && o.explain.empty())
              throw UsageError("--flame-graph draws --explain's two recordings: give --explain BASE.data too");
            if (o.markers + o.papi + o.google_benchmark > 1)
              throw UsageError(
                  "--markers, --papi and --google-benchmark each say what a benchmark is: give one of them");
            if (o.google_benchmark && !o.name.empty())
              throw UsageError("--name names the whole command's benchmark: --google-benchmark names each by its own");
            if ((!o.record.empty() || !o.explain.empty()) && o.native)
              throw UsageError("--record and --explain sample the emulated CPU: leave out --native");
          }))
    return *status;
  try {
    if (!o.threshold.empty()) (void)parse_bench_thresholds(o.threshold);  // a mistake said before anything runs
    WaitedSignals waited;
    Bench bench(o);
    return bench.execute();
  } catch (const Error& error) {
    // A command that ran and failed: 1 (126 and 127 say it could not be run).
    if (error.kind() == ErrorKind::CommandFailed)
      return error.errnum() == 0 ? report_error("bench", error, 1) : report_run_error("bench", error);
    return report_event_error("bench", error);  // 129 for what the command line got wrong, else 1
  }
}

}  // namespace perfmon::cli
