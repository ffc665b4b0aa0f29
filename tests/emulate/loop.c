/* A static program that runs the loop of exactly 2N instructions (N its first argument), in each
 * of T threads (its second argument, default 1: the main thread only): what the emulated CPU's
 * counts are checked on. Static, so that little runs before main (no dynamic loader), which is
 * where an emulator and valgrind differ (they pick other CPU-specific routines). */
#include <pthread.h>
#include <stdlib.h>

#include "../helpers/exact_loop.h"

static void* run_loop(void* iterations) {
  exact_loop(*(unsigned long*)iterations);
  return NULL;
}

int main(int argc, char** argv) {
  unsigned long iterations = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
  const long threads = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
  if (threads <= 1) {
    run_loop(&iterations);
    return 0;
  }
  pthread_t ids[64];
  for (long t = 0; t < threads && t < 64; ++t)
    if (pthread_create(&ids[t], NULL, run_loop, &iterations) != 0) return 1;
  for (long t = 0; t < threads && t < 64; ++t) pthread_join(ids[t], NULL);
  return 0;
}
