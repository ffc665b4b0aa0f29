// SPDX-License-Identifier: Apache-2.0
// Measure one scope of your own program with perfmon's RAII helper.
#include <perfmon/catalog.hpp>
#include <perfmon/error.hpp>
#include <perfmon/scope.hpp>
#include <perfmon/session.hpp>

#include <cstdio>
#include <vector>

int main() try {
  perfmon::EventCatalog catalog;
  perfmon::SessionOptions options;
  options.inherit = false;  // this thread only
  perfmon::CounterSession session(catalog.parse("{task-clock,page-faults,context-switches},instructions"),
                                  perfmon::Target::self(), options);
  std::vector<char> memory;
  {
    perfmon::ScopedMeasurement measure(session);  // reset + start here
    memory.resize(64 << 20, 1);                   // 64 MiB of fresh pages
  }                                               // stop + read here
  for (std::size_t i = 0; i < session.event_count(); ++i) {
    if (!session.supported(i)) {
      std::printf("%-18s not supported: %s\n", session.event(i).name.c_str(), session.unsupported_reason(i).c_str());
      continue;
    }
    perfmon::CounterValue value = session.value(i);
    std::printf("%-18s %14.0f  (ran %.0f%% of the time)\n", session.event(i).name.c_str(), value.scaled(),
                100 * value.running_fraction());
  }
  return 0;
} catch (const perfmon::Error& error) {
  std::fprintf(stderr, "scope_counter: %s\n", error.what());
  return 1;
}
