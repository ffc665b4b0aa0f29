/* SPDX-License-Identifier: Apache-2.0 */
/* What serving /dev/pctr inside the program costs (docs/benchmarks.md): libc calls on other files
 * with libpctr's open/ioctl/close in front of them, against the same calls without (this file is
 * built twice: pctr_bench with libpctr, pctr_bench_plain without), and the device's own ioctls.
 *
 *   pctr_bench [ITERATIONS]   prints nanoseconds per call, the median of 9 rounds
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifdef WITH_PCTR
#include <perfmon/compat/pctr.h>
#endif

#include "c_timing.h"

static void open_close(void* context) {
  (void)context;
  close(open("/dev/zero", O_RDONLY));
}

static void fionread(void* context) {
  int waiting;
  ioctl(*(int*)context, FIONREAD, &waiting);
}

#ifdef WITH_PCTR
static void pciocrd(void* context) {
  struct pctrst state;
  ioctl(*(int*)context, PCIOCRD, &state);
}

static void read_tsc(void* context) {
  *(volatile pctrval*)context = rdtsc();
}
#endif

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? atol(argv[1]) : 200000;
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return 1;
  printf("open+close of /dev/zero: %.1f ns\n", measure(open_close, NULL, iterations));
  printf("ioctl(FIONREAD) of a pipe: %.1f ns\n", measure(fionread, &pipe_ends[0], iterations));
#ifdef WITH_PCTR
  int device = open("/dev/pctr", O_RDONLY);
  printf("ioctl(FIONREAD) of a pipe, /dev/pctr open: %.1f ns\n", measure(fionread, &pipe_ends[0], iterations));
  printf("ioctl(PCIOCRD), no counter programmed: %.1f ns\n", measure(pciocrd, &device, iterations));
  pctrval sink;
  printf("rdtsc(): %.1f ns\n", measure(read_tsc, &sink, iterations));
  close(device);
#endif
  return 0;
}
