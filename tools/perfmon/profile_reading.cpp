#include "profile_reading.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "perfmon/pprof.hpp"
#include "perfmon/printable.hpp"

namespace perfmon::cli {

template <typename Handler>
bool unwind_copied_stacks(const PerfDataReader& file, Handler& handler) {
  for (std::size_t e = 0; e < file.events().size(); ++e) {
    const perf_event_attr& attr = file.events()[e].attr;
    const std::uint64_t copied = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    if ((attr.sample_type & copied) != copied || handler.unwind_user_stacks(e, attr.sample_regs_user)) continue;
    std::fprintf(stderr,
                 "perfmon: '%s' was recorded with --call-graph dwarf, but this build cannot unwind its stacks (it "
                 "was built without libdw): its user frames show as the sampled address alone.\n",
                 printable(file.events()[e].name).c_str());
    return false;
  }
  return true;
}
template bool unwind_copied_stacks(const PerfDataReader&, Profile&);
template bool unwind_copied_stacks(const PerfDataReader&, PprofProfile&);

std::unique_ptr<Profile> read_profile(const PerfDataReader& file, const ProfileOptions& options, long threads) {
  std::vector<std::string> names;
  for (const PerfDataEvent& event : file.events()) names.push_back(event.name);
  // One profile per share of the file, each later one merged into the first.
  std::vector<std::unique_ptr<Profile>> shares;
  std::vector<SampleHandler*> handlers;
  const std::size_t count = threads > 0 ? static_cast<std::size_t>(threads) : file.threads_worth();
  const auto symbols = std::make_shared<SymbolTables>(options.debug_root);
  for (std::size_t k = 0; k < (count == 1 ? 1 : count * PerfDataReader::kSharesPerThread); ++k) {
    shares.push_back(std::make_unique<Profile>(names, options, symbols));
    handlers.push_back(shares.back().get());
  }
  for (const auto& share : shares)
    if (!unwind_copied_stacks(file, *share)) break;
  file.read_in_shares(handlers, count);
  for (std::size_t k = 1; k < shares.size(); ++k) shares.front()->merge(*shares[k]);
  return std::move(shares.front());
}

}  // namespace perfmon::cli
