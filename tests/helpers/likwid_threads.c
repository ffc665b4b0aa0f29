/* SPDX-License-Identifier: Apache-2.0 */
/* likwid's Marker API as HPC codes use it with pthreads: 8 threads, made before LIKWID_MARKER_INIT,
 * each with its own exact count of getppid calls in "work" (100 × its number), nested regions,
 * and misuse that likwid warns about and goes on (a region started twice, one stopped unstarted).
 * With the argument "odd-tags", one thread instead: a region named in Latin-1 ("café", 7 calls), a
 * plain one ("plain", 3 calls), and a region started and stopped with a NULL tag. */
#include <likwid-marker.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_barrier_t go;

static void calls(long n) {
  for (long i = 0; i < n; ++i) syscall(SYS_getppid);
}

static void* work(void* number) {
  const long n = (long)number;
  pthread_barrier_wait(&go); /* after LIKWID_MARKER_INIT */
  LIKWID_MARKER_THREADINIT;
  LIKWID_MARKER_START("work");
  calls(100 * n);
  LIKWID_MARKER_STOP("work");
  LIKWID_MARKER_START("outer");
  calls(1);
  LIKWID_MARKER_START("inner");
  calls(2);
  LIKWID_MARKER_STOP("inner");
  calls(4);
  LIKWID_MARKER_STOP("outer");
  return NULL;
}

static int odd_tags(void) {
  LIKWID_MARKER_INIT;
  LIKWID_MARKER_START("caf\xe9");
  calls(7);
  LIKWID_MARKER_STOP("caf\xe9");
  LIKWID_MARKER_START("plain");
  calls(3);
  LIKWID_MARKER_STOP("plain");
  likwid_markerStartRegion(NULL);
  likwid_markerStopRegion(NULL);
  LIKWID_MARKER_CLOSE;
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "odd-tags") == 0) return odd_tags();
  enum { kThreads = 8 };
  pthread_t threads[kThreads];
  pthread_barrier_init(&go, NULL, kThreads + 1);
  for (long t = 0; t < kThreads; ++t) pthread_create(&threads[t], NULL, work, (void*)(t + 1));
  LIKWID_MARKER_INIT;
  pthread_barrier_wait(&go);
  for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);

  LIKWID_MARKER_START("twice");
  calls(5);
  LIKWID_MARKER_START("twice"); /* warns; counts from here */
  calls(3);
  LIKWID_MARKER_STOP("twice");
  LIKWID_MARKER_STOP("never"); /* warns */
  int nevents = 4, count = 0;
  double events[4] = {0}, time = 0;
  LIKWID_MARKER_GET("twice", &nevents, events, &time, &count);
  printf("twice: %d events, first %.0f, %d calls\n", nevents, events[0], count);
  LIKWID_MARKER_CLOSE;
  return 0;
}
