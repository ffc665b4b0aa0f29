// SPDX-License-Identifier: Apache-2.0
// perfmon's own program regions (perfmon/program_regions.hpp) around loops of exactly 2n
// instructions, for perfmon bench --markers and perfmon stat --markers (tests/cli/bench_test.cpp):
// "outer" runs 2n and holds "inner", which runs 4n; "threaded" runs 2n in each of two threads; the
// million iterations before them are in no region. Prints whether perfmon counts the regions.
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "exact_loop.h"
#include "perfmon/program_regions.hpp"

int main(int argc, char** argv) {
  const unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000;
  exact_loop(1'000'000);
  {
    perfmon::ProgramRegion outer("outer");
    exact_loop(n);
    perfmon::program_region_start("inner");
    exact_loop(2 * n);
    perfmon::program_region_stop("inner");
  }
  std::thread other([n] {
    perfmon::ProgramRegion region("threaded");
    exact_loop(n);
  });
  other.join();  // one thread at a time: their counts do not depend on how they interleave
  {
    perfmon::ProgramRegion region("threaded");
    exact_loop(n);
  }
  std::printf("%s\n", perfmon::program_regions_counted() ? "counted" : "not counted");
  return 0;
}
