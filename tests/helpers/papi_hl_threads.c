/* SPDX-License-Identifier: Apache-2.0 */
/* PAPI's high-level API as a program uses it, built against papi.h (Debian's libpapi-dev): 8
 * threads, each with a "work" region of its own exact number of getppid calls (100 × its number)
 * and a PAPI_hl_read inside, nested regions, and the main thread's own; with "unbalanced" as
 * argument, one region is left open (no output), with "deep", 11 nested begins (the 11th refused),
 * with "mismatch", an end that names another region. Prints each call's return code where it is
 * not PAPI_OK. */
#include <papi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void calls(long n) {
  for (long i = 0; i < n; ++i) syscall(SYS_getppid);
}

static void check(const char* what, int status) {
  if (status != PAPI_OK) printf("%s: %d\n", what, status);
}

static void* work(void* number) {
  const long n = (long)number;
  check("begin work", PAPI_hl_region_begin("work"));
  calls(100 * n);
  check("read work", PAPI_hl_read("work"));
  calls(1);
  check("end work", PAPI_hl_region_end("work"));
  check("begin outer", PAPI_hl_region_begin("outer"));
  calls(1);
  check("begin inner", PAPI_hl_region_begin("inner"));
  calls(2);
  check("end inner", PAPI_hl_region_end("inner"));
  check("end outer", PAPI_hl_region_end("outer"));
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  check("end before begin", PAPI_hl_region_end("none"));
  pthread_t threads[8];
  for (long t = 0; t < 8; ++t) pthread_create(&threads[t], NULL, work, (void*)(t + 1));
  for (int t = 0; t < 8; ++t) pthread_join(threads[t], NULL);
  check("begin main", PAPI_hl_region_begin("main"));
  calls(5);
  if (strcmp(mode, "mismatch") == 0) check("end other", PAPI_hl_region_end("other"));
  if (strcmp(mode, "deep") == 0) {
    int refused = 0;
    for (int depth = 0; depth < 10; ++depth) refused += PAPI_hl_region_begin("deep") != PAPI_OK;
    printf("deep: %d refused\n", refused);
    for (int depth = 0; depth < 10 - refused; ++depth) PAPI_hl_region_end("deep");
  }
  if (strcmp(mode, "unbalanced") != 0) check("end main", PAPI_hl_region_end("main"));
  return 0;
}
