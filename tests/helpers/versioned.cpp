// A shared library with two versions of one function, for the symbol reader's tests: the old one
// hidden (named "versioned_function@PERFMON_1" by nm -D and perf), the default one plain.
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
}
