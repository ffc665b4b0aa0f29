// SPDX-License-Identifier: Apache-2.0
// A program that measures one region of itself with perfmon's library, as a benchmark does:
//   region EVENTS N   counts EVENTS over a loop of exactly 2N instructions and N branches, in a
//                     session of the calling thread (calibrated), and prints for each event
//                     "NAME RAW NET" (NET: RAW less the empty region's count) or
//                     "NAME unsupported: REASON", then the session's notes as "note: ...".
// Run natively it counts with the kernel; run by perfmon stat --emulate, on the emulated CPU.
#include <cstdio>
#include <cstdlib>

#include "../helpers/exact_loop.h"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/scope.hpp"
#include "perfmon/session.hpp"

int main(int argc, char** argv) try {
  if (argc != 3) {
    std::fprintf(stderr, "usage: region EVENTS N\n");
    return 2;
  }
  perfmon::EventCatalog catalog;
  perfmon::SessionOptions options;
  options.inherit = false;
  perfmon::CounterSession session(catalog.parse(argv[1]), perfmon::Target::self(), options);
  session.calibrate();
  const unsigned long n = std::strtoul(argv[2], nullptr, 10);
  {
    perfmon::ScopedMeasurement measure(session);
    exact_loop(n);
  }
  for (std::size_t i = 0; i < session.event_count(); ++i) {
    if (!session.supported(i)) {
      std::printf("%s unsupported: %s\n", session.event(i).name.c_str(), session.unsupported_reason(i).c_str());
      continue;
    }
    std::printf("%s %llu %llu\n", session.event(i).name.c_str(), static_cast<unsigned long long>(session.value(i).raw),
                static_cast<unsigned long long>(session.value(i, perfmon::Overhead::Subtract).raw));
  }
  for (const std::string& note : session.notes()) std::printf("note: %s\n", note.c_str());
  return 0;
} catch (const perfmon::Error& error) {
  std::fprintf(stderr, "region: %s\n", error.what());
  return 1;
}
