// perfmon: count and sample CPU performance events (perf's conventions, perfmon2's features).
#include <cstdio>
#include <new>
#include <span>
#include <string_view>

#include "commands.hpp"
#include "errors.hpp"

namespace {

constexpr const char* kUsage =
    "usage: perfmon <command> [<options>]\n"
    "\n"
    "  stat    count events while a command runs, or on processes, threads, CPUs or a cgroup\n"
    "  record  sample a command into a perf.data file (read by perf report and perf script)\n"
    "  report  show where a perf.data file's samples landed: table, JSON, folded stacks, flame graph\n"
    "  script  print each sample of a perf.data file\n"
    "  list    list the events this machine can resolve, and whether they can be counted here\n"
    "  info    report what this machine and kernel allow (PMUs, permissions, limits) and why\n"
    "  encode  show an event's encodings: PERFEVTSEL value, fixed counter, perf attr\n"
    "  decode  show the fields of a PERFEVTSEL value and the event it names\n"
    "\n"
    "Run 'perfmon <command> --help' for a command's options.\n";

}  // namespace

namespace {

int run_command(std::string_view command, std::span<char* const> rest) {
  if (command == "stat") return perfmon::cli::run_stat(rest);
  if (command == "record") return perfmon::cli::run_record(rest);
  if (command == "script") return perfmon::cli::run_script(rest);
  if (command == "report") return perfmon::cli::run_report(rest);
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

}  // namespace

int main(int argc, char** argv) {
  std::span<char* const> args(argv, static_cast<std::size_t>(argc));
  if (args.size() < 2) {
    std::fprintf(stderr, "perfmon: no command given.\n%s", kUsage);
    return 129;
  }
  const std::string_view command = args[1];
  try {
    return run_command(command, args.subspan(2));
  } catch (const std::bad_alloc&) {
    // Whatever was being written is left as it was: outputs are replaced only once complete.
    std::fprintf(stderr,
                 "perfmon %s: out of memory; raise the memory limit (ulimit -v, the cgroup's) or give it a smaller "
                 "input.\n",
                 perfmon::printable(command).c_str());
    return 1;
  }
}
