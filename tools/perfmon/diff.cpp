// SPDX-License-Identifier: Apache-2.0
// perfmon diff: two perf.data files compared as perf diff compares them — each file and function's
// share of its profile in the base and in the new file, and the change, largest first.
#include <unistd.h>

#include <future>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "output.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/report_diff.hpp"
#include "profile_reading.hpp"

namespace perfmon::cli {

namespace {
constexpr const char* kSynopsis =
    "perfmon diff [--sort comm,dso,sym] [-c delta-abs|delta|ratio|wdiff:W1,W2] [-p] [--stdio | --json] [BASE [NEW]]";
}  // namespace

int run_diff(std::span<char* const> args) {
  DiffOptions diff;
  bool json = false;
  long threads = 0;
  std::vector<std::string> files;
  std::vector<Option> options = {
      row_keys_option(diff.sort, "the columns rows are compared by: comm, dso, sym (default dso,sym, as perf diff)",
                      "perfmon diff compares by comm, dso and sym"),
      {'c', "compute", "how",
       "the column that compares the files, and the rows' order: delta-abs (the change in points, largest either "
       "way first; the default), delta (the change, growth first), ratio (new period / base period) or "
       "wdiff:W1,W2 (new period * W2 - base period * W1)",
       [&](std::string_view v) { parse_diff_compute(std::string(v), diff); }},
      {'p', "period", "", "each file's period (the event's count in the row) beside its column",
       [&](std::string_view) { diff.periods = true; }},
      {0, "stdio", "", "print perf diff's table (the default)", [&](std::string_view) { json = false; }},
      {0, "json", "", "print the rows as one JSON document", [&](std::string_view) { json = true; }},
      {0, "threads", "n", "read each file with n threads (default: as perfmon report chooses)",
       [&](std::string_view v) { threads = parse_long(v, "--threads", 1, 64); }},
  };
  if (auto status =
          parse_command_line(args, "diff", kSynopsis, options, files, [](const std::vector<std::string>& words) {
            if (words.size() > 2) throw UsageError("perfmon diff compares two files: BASE and NEW");
          }))
    return *status;
  // perf diff's defaults: perf.data.old against perf.data.
  const std::string base_path = files.size() == 2 ? files[0] : "perf.data.old";
  const std::string new_path = files.size() == 2 ? files[1] : files.size() == 1 ? files[0] : "perf.data";
  if (files.empty() && ::access(base_path.c_str(), F_OK) != 0)
    return report_error("diff",
                        Error(ErrorKind::InvalidArgument,
                              "there is no perf.data.old to compare perf.data with: perfmon record keeps the previous "
                              "perf.data as perf.data.old, so record again, or give two files (BASE NEW).",
                              ENOENT),
                        1);
  try {
    ProfileOptions looked_up;
    looked_up.stacks = false;  // rows only: each sample's leaf
    // The two files at once, the base on a thread of its own: neither waits for the other.
    const PerfDataReader base_file(base_path);
    const PerfDataReader new_file(new_path);
    std::future<std::unique_ptr<Profile>> base_read =
        std::async(std::launch::async, [&] { return read_profile(base_file, looked_up, threads); });
    const std::unique_ptr<Profile> now = read_profile(new_file, looked_up, threads);
    const std::unique_ptr<Profile> base = base_read.get();
    OutputFile out("", stdout);
    out.write(json ? format_diff_json(*base, *now, diff) : format_diff_table(*base, *now, diff));
    commit(out);
    return 0;
  } catch (const Error& error) {
    return report_error("diff", error, 1);
  }
}

}  // namespace perfmon::cli
