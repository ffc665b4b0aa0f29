// SPDX-License-Identifier: Apache-2.0
// perfmon: count and sample CPU performance events (perf's conventions, perfmon2's features).
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "perfmon/nearest_names.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/symbols.hpp"

namespace {

// perfmon's commands, in the order the usage lists them.
struct Subcommand {
  const char* name;
  const char* does;
  int (*run)(std::span<char* const> args);
};
constexpr Subcommand kCommands[] = {
    {"stat", "count events while a command runs, or on processes, threads, CPUs or a cgroup", perfmon::cli::run_stat},
    {"record", "sample a command into a perf.data file (read by perf report and perf script)",
     perfmon::cli::run_record},
    {"report", "show where a perf.data file's samples landed: table, JSON, folded stacks, flame graph",
     perfmon::cli::run_report},
    {"script", "print each sample of a perf.data file", perfmon::cli::run_script},
    {"diff", "compare two perf.data files: each function's share in both, and the change", perfmon::cli::run_diff},
    {"bench", "a command's exact counts as benchmark results: saved, compared with a baseline, a CI gate",
     perfmon::cli::run_bench},
    {"annotate", "show a function's source lines and instructions with the samples on each",
     perfmon::cli::run_annotate},
    {"top", "show where the machine spends its samples now, refreshed live", perfmon::cli::run_top},
    {"serve", "count events on every CPU and answer Prometheus' scrapes at /metrics", perfmon::cli::run_serve},
    {"list", "list the events this machine can resolve, and whether they can be counted here", perfmon::cli::run_list},
    {"info", "report what this machine and kernel allow (PMUs, permissions, limits) and why", perfmon::cli::run_info},
    {"encode", "show an event's encodings: PERFEVTSEL value, fixed counter, perf attr", perfmon::cli::run_encode},
    {"decode", "show the fields of a PERFEVTSEL value and the event it names", perfmon::cli::run_decode},
};

std::string usage() {
  std::string text = "usage: perfmon <command> [<options>]\n\n";
  for (const Subcommand& command : kCommands) {
    std::string name = command.name;
    name.resize(10, ' ');
    text += "  " + name + command.does + "\n";
  }
  return text + "\nRun 'perfmon help <command>' or 'perfmon <command> --help' for a command's options.\n";
}

const Subcommand* find_command(std::string_view name) {
  for (const Subcommand& command : kCommands)
    if (name == command.name) return &command;
  return nullptr;
}

// An unknown command, the nearest names offered.
int unknown_command(std::string_view name) {
  std::vector<std::string> names;
  for (const Subcommand& command : kCommands) names.emplace_back(command.name);
  std::fprintf(stderr, "perfmon: unknown command '%s'%s\n%s", perfmon::printable(name).c_str(),
               perfmon::did_you_mean(perfmon::nearest_names(name, names)).c_str(), usage().c_str());
  return 129;
}

// perf's pages of the same commands, for SEE ALSO.
constexpr std::string_view kPerfPages[] = {"stat", "record", "report", "script", "diff", "annotate", "top", "list"};

constexpr const char* kExitStatus =
    ".SH EXIT STATUS\n"
    "0 when it did what was asked; 1 when the machine, the kernel or the user's rights stood in the way (no PMU, no "
    "permission, an output that could not be written), in one sentence on standard error that says what to do; 129 "
    "when the command line was wrong (a bad option, a malformed or unknown event), as perf.\n";

// perfmon's manual pages, made by the build: `perfmon --man-page` is perfmon(1), `perfmon
// --man-page stat` perfmon-stat(1), whose SYNOPSIS and OPTIONS come from the option table that
// stat's --help prints.
int man_page(std::span<char* const> rest) {
  const std::string version = "perfmon " PERFMON_VERSION;
  if (rest.empty()) {
    std::string page = ".TH PERFMON 1 \"\" \"" + version +
                       "\" \"perfmon manual\"\n.SH NAME\nperfmon \\- count and sample CPU performance events\n"
                       ".SH SYNOPSIS\n.B perfmon\n.I command\n[\\fIoptions\\fR]\n.SH COMMANDS\n";
    for (const Subcommand& command : kCommands)
      page +=
          ".TP\n.BR perfmon\\-" + std::string(command.name) + " (1)\n" + perfmon::cli::roff_text(command.does) + "\n";
    page += std::string(kExitStatus) + ".SH SEE ALSO\n.BR perf (1)\n";
    std::fputs(page.c_str(), stdout);
    return 0;
  }
  const Subcommand* command = find_command(rest[0]);
  if (command == nullptr) return unknown_command(rest[0]);
  std::string upper = command->name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::printf(".TH PERFMON-%s 1 \"\" \"%s\" \"perfmon manual\"\n.SH NAME\nperfmon\\-%s \\- %s\n", upper.c_str(),
              version.c_str(), command->name, perfmon::cli::roff_text(command->does).c_str());
  std::fflush(stdout);
  static char sections[] = "--man-sections";
  char* const args[] = {sections};
  if (const int status = command->run(std::span<char* const>(args)); status != 0) return status;
  std::string see_also = ".BR perfmon (1)";
  for (std::string_view perf_page : kPerfPages)
    if (perf_page == command->name) see_also += ",\n.BR perf\\-" + std::string(perf_page) + " (1)";
  std::printf("%s.SH SEE ALSO\n%s\n", kExitStatus, see_also.c_str());
  return 0;
}

int run_command(std::string_view name, std::span<char* const> rest) {
  if (const Subcommand* command = find_command(name)) return command->run(rest);
  if (name == "--help" || name == "-h" || (name == "help" && rest.empty())) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (name == "help") {  // perf help stat: the command's own page (here, its --help)
    const Subcommand* command = find_command(rest[0]);
    if (command == nullptr) return unknown_command(rest[0]);
    static char help[] = "--help";
    char* const args[] = {help};
    return command->run(std::span<char* const>(args));
  }
  if (name == "--list-cmds") {  // perf's, for bash completion
    for (const Subcommand& command : kCommands) std::puts(command.name);
    return 0;
  }
  if (name == "--man-page") return man_page(rest);
  if (name == "--version") {
    std::puts("perfmon " PERFMON_VERSION);
    return 0;
  }
  return unknown_command(name);
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

// Where perfmon keeps what outlives a run (the kernel's symbols): $XDG_CACHE_HOME/perfmon, else
// ~/.cache/perfmon, as the XDG base directories say; "" where neither is known.
std::string cache_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/')
    return std::string(xdg) + "/perfmon";
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    return std::string(home) + "/.cache/perfmon";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  std::span<char* const> args(argv, static_cast<std::size_t>(argc));
  if (args.size() < 2) {
    std::fprintf(stderr, "perfmon: no command given.\n%s", usage().c_str());
    return 129;
  }
  const std::string_view command = args[1];
  perfmon::SymbolTables::keep_kernel_symbols_in(cache_directory());
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
