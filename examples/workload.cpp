// SPDX-License-Identifier: Apache-2.0
// A small workload for `perfmon stat`: counts primes with a sieve, touching memory, and reports.
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const std::size_t limit = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 20'000'000;
  std::vector<bool> composite(limit + 1);
  std::size_t primes = 0;
  for (std::size_t n = 2; n <= limit; ++n) {
    if (composite[n]) continue;
    ++primes;
    for (std::size_t multiple = n * n; multiple <= limit; multiple += n) composite[multiple] = true;
  }
  std::printf("%zu primes up to %zu\n", primes, limit);
  return 0;
}
