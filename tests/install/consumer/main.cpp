// SPDX-License-Identifier: Apache-2.0
// The smallest program a user writes against the installed perfmon.
#include <perfmon/catalog.hpp>
#include <perfmon/scope.hpp>
#include <perfmon/session.hpp>

#include <unistd.h>
#include <cstdio>

int main() {
  perfmon::EventCatalog catalog;
  perfmon::SessionOptions options;
  options.inherit = false;
  perfmon::CounterSession session(catalog.parse("task-clock,page-faults"), perfmon::Target::self(), options);
  {
    perfmon::ScopedMeasurement measure(session);
    for (int i = 0; i < 10; ++i) getppid();
  }
  std::printf("task-clock %llu ns\n", static_cast<unsigned long long>(session.value(0).raw));
  return session.value(0).counted() ? 0 : 1;
}
