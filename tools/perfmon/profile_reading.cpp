// SPDX-License-Identifier: Apache-2.0
#include "profile_reading.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "perfmon/error.hpp"
#include "perfmon/printable.hpp"

namespace perfmon::cli {

bool unwind_copied_stacks(const PerfDataReader& file, const std::function<bool(std::size_t, std::uint64_t)>& unwind) {
  for (std::size_t e = 0; e < file.events().size(); ++e) {
    const perf_event_attr& attr = file.events()[e].attr;
    const std::uint64_t copied = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    if ((attr.sample_type & copied) != copied || unwind(e, attr.sample_regs_user)) continue;
    std::fprintf(stderr,
                 "perfmon: '%s' was recorded with --call-graph dwarf, but this build cannot unwind its stacks (it "
                 "was built without libdw): its user frames show as the sampled address alone.\n",
                 printable(file.events()[e].name).c_str());
    return false;
  }
  return true;
}

Option row_keys_option(std::vector<ReportKey>& keys, std::string_view help, std::string takes) {
  return {'s', "sort", "keys", help, [&keys, takes = std::move(takes)](std::string_view v) {
            // The report's own refusal would offer srcline, which these commands do not take.
            try {
              keys = parse_report_keys(std::string(v));
            } catch (const Error&) {
              throw UsageError(takes + ", not '" + printable(v) + "'");
            }
            if (std::find(keys.begin(), keys.end(), ReportKey::SourceLine) != keys.end())
              throw UsageError(takes + ", not srcline");
          }};
}

std::unique_ptr<Profile> read_profile(const PerfDataReader& file, const ProfileOptions& options, long threads) {
  std::vector<std::string> names;
  for (const PerfDataEvent& event : file.events()) names.push_back(event.name);
  const auto symbols = std::make_shared<SymbolTables>(options.debug_root);
  symbols->expect_build_ids(file.build_ids());
  bool unwinding = true;  // said once where this build cannot
  std::unique_ptr<Profile> profile = read_merged<Profile>(file, threads, [&] {
    auto share = std::make_unique<Profile>(names, options, symbols);
    unwinding = unwinding && unwind_copied_stacks(file, [&share](std::size_t event, std::uint64_t registers) {
                  return share->unwind_user_stacks(event, registers);
                });
    return share;
  });
  say_changed_files(*symbols);
  return profile;
}

void say_changed_files(const SymbolTables& symbols) {
  for (const std::string& changed : symbols.changed_files())
    std::fprintf(stderr, "perfmon: %s.\n", printable(changed).c_str());
}

}  // namespace perfmon::cli
