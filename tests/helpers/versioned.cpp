// SPDX-License-Identifier: Apache-2.0
// A shared library with two versions of one function, for the symbol reader's tests: the old one
// hidden (named "versioned_function@PERFMON_1" by nm -D and perf), the default one plain. And a
// function with one hidden version alone, as libgcc_s's __cpu_indicator_init@GCC_4.8.0: perf
// names it plainly. And two names of one function that rank alike (bound, sized and spelled
// alike): perf names it by the first in the symbol table.
#include <cstdint>

extern "C" {

__attribute__((used, noinline)) int64_t versioned_function_v1(int64_t x) {
  return x + 1;
}
__attribute__((used, noinline)) int64_t versioned_function_v2(int64_t x) {
  return x + 2;
}
__asm__(".symver versioned_function_v1, versioned_function@PERFMON_1");
__asm__(".symver versioned_function_v2, versioned_function@@PERFMON_2");

__attribute__((used, noinline)) int64_t only_hidden_function_v1(int64_t x) {
  return x + 3;
}
__asm__(".symver only_hidden_function_v1, only_hidden_function@PERFMON_1");

__attribute__((used, noinline)) int64_t alias_alike_a(int64_t x) {
  return x + 4;
}
int64_t alias_alike_b(int64_t x) __attribute__((alias("alias_alike_a"), used));
}
