// perfmon: count and sample CPU performance events (perf's conventions, perfmon2's features).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <span>
#include <string>
#include <string_view>

#include "commands.hpp"
#include "errors.hpp"

namespace {

constexpr const char* kUsage =
    "usage: perfmon <command> [<options>]\n"
    "\n"
    "  stat      count events while a command runs, or on processes, threads, CPUs or a cgroup\n"
    "  record    sample a command into a perf.data file (read by perf report and perf script)\n"
    "  report    show where a perf.data file's samples landed: table, JSON, folded stacks, flame graph\n"
    "  script    print each sample of a perf.data file\n"
    "  diff      compare two perf.data files: each function's share in both, and the change\n"
    "  annotate  show a function's source lines and instructions with the samples on each\n"
    "  top       show where the machine spends its samples now, refreshed live\n"
    "  serve     count events on every CPU and answer Prometheus' scrapes at /metrics\n"
    "  list      list the events this machine can resolve, and whether they can be counted here\n"
    "  info      report what this machine and kernel allow (PMUs, permissions, limits) and why\n"
    "  encode    show an event's encodings: PERFEVTSEL value, fixed counter, perf attr\n"
    "  decode    show the fields of a PERFEVTSEL value and the event it names\n"
    "\n"
    "Run 'perfmon <command> --help' for a command's options.\n";

}  // namespace

namespace {

int run_command(std::string_view command, std::span<char* const> rest) {
  if (command == "stat") return perfmon::cli::run_stat(rest);
  if (command == "record") return perfmon::cli::run_record(rest);
  if (command == "script") return perfmon::cli::run_script(rest);
  if (command == "report") return perfmon::cli::run_report(rest);
  if (command == "diff") return perfmon::cli::run_diff(rest);
  if (command == "annotate") return perfmon::cli::run_annotate(rest);
  if (command == "top") return perfmon::cli::run_top(rest);
  if (command == "serve") return perfmon::cli::run_serve(rest);
  if (command == "list") return perfmon::cli::run_list(rest);
  if (command == "info") return perfmon::cli::run_info(rest);
  if (command == "encode") return perfmon::cli::run_encode(rest);
  if (command == "decode") return perfmon::cli::run_decode(rest);
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "--version") {
    std::puts("perfmon " PERFMON_VERSION);
    return 0;
  }
  std::fprintf(stderr, "perfmon: unknown command '%s'.\n%s", perfmon::printable(command).c_str(), kUsage);
  return 129;
}

// What a command printed must have reached its reader: a full disk or a closed pipe behind
// standard output (or standard error, where stat's counts go) fails the command.
int finish_standard_streams(std::string_view command) {
  for (std::FILE* stream : {stdout, stderr}) {
    errno = 0;
    if (std::fflush(stream) == 0 && !std::ferror(stream)) continue;
    // errno names the cause only when this flush failed; an earlier write's may be long gone.
    const std::string cause = errno != 0 ? std::strerror(errno) : "it was cut short";
    std::fprintf(stderr, "perfmon %s: cannot write all of its %s (%s); free some space or write elsewhere.\n",
                 perfmon::printable(command).c_str(), stream == stdout ? "output" : "messages", cause.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::span<char* const> args(argv, static_cast<std::size_t>(argc));
  if (args.size() < 2) {
    std::fprintf(stderr, "perfmon: no command given.\n%s", kUsage);
    return 129;
  }
  const std::string_view command = args[1];
  try {
    const int status = run_command(command, args.subspan(2));
    return status == 0 ? finish_standard_streams(command) : status;
  } catch (const std::bad_alloc&) {
    // Whatever was being written is left as it was: outputs are replaced only once complete.
    std::fprintf(stderr,
                 "perfmon %s: out of memory; raise the memory limit (ulimit -v, the cgroup's) or give it a smaller "
                 "input.\n",
                 perfmon::printable(command).c_str());
    return 1;
  }
}
