/* SPDX-License-Identifier: Apache-2.0 */
/* A static program whose counts are known exactly, what the emulated CPU's counts are checked on:
 *   loop N [T]      the loop of exactly 2N instructions and N branches, in each of T threads
 *                   (default 1: the main thread only; at most 1024), all started before any loops
 *   memory N        a loop of N iterations of one load, one store and one branch each
 *   wide-memory N   the same with 16-byte loads and stores
 *   random-branches N   N iterations of a branch on a pseudo-random bit (and the loop's own)
 *   strided-loads BYTES P   P passes over the first BYTES (at most 4 MiB) of a 64-byte aligned
 *                   array, loading one word of each 64-byte line and nothing else
 *   signals         prints whether SIGHUP and SIGUSR1 are ignored and SIGUSR2 blocked
 *   ignore-block-exec PROGRAM ARGS...   ignores SIGUSR1, blocks SIGUSR2, and execs PROGRAM
 * Static, so that little runs before main (no dynamic loader), which is where an emulator and
 * valgrind differ (they pick other CPU-specific routines). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../helpers/exact_loop.h"

static unsigned long iterations;
static pthread_barrier_t all_started;

static void* run_loop(void* in_a_thread) {
  /* The threads run at once: each has started before any runs its loop. */
  if (in_a_thread != NULL) pthread_barrier_wait(&all_started);
  exact_loop(iterations);
  return NULL;
}

/* N iterations of: load a word, store it back, count down, branch. */
__attribute__((noinline)) static void memory_loop(unsigned long n) {
  static unsigned long word;
  unsigned long* address = &word;
  if (n == 0) return;
#if defined(__x86_64__)
  __asm__ volatile("1: mov (%1), %%rax\n\tmov %%rax, (%1)\n\tdec %0\n\tjnz 1b"
                   : "+r"(n)
                   : "r"(address)
                   : "rax", "memory");
#elif defined(__aarch64__)
  __asm__ volatile("1: ldr x2, [%1]\n\tstr x2, [%1]\n\tsubs %0, %0, #1\n\tb.ne 1b"
                   : "+r"(n)
                   : "r"(address)
                   : "x2", "cc", "memory");
#endif
}

/* N iterations of: load 16 bytes, store them back, count down, branch. */
__attribute__((noinline)) static void wide_memory_loop(unsigned long n) {
  static _Alignas(16) unsigned char bytes[16];
  unsigned char* address = bytes;
  if (n == 0) return;
#if defined(__x86_64__)
  __asm__ volatile("1: movdqu (%1), %%xmm0\n\tmovdqu %%xmm0, (%1)\n\tdec %0\n\tjnz 1b"
                   : "+r"(n)
                   : "r"(address)
                   : "xmm0", "memory");
#elif defined(__aarch64__)
  __asm__ volatile("1: ldr q0, [%1]\n\tstr q0, [%1]\n\tsubs %0, %0, #1\n\tb.ne 1b"
                   : "+r"(n)
                   : "r"(address)
                   : "v0", "cc", "memory");
#endif
}

/* P passes, each a load from every 64-byte line of `bytes` bytes of the array. */
__attribute__((noinline)) static void strided_loads(unsigned long bytes, unsigned long passes) {
  static _Alignas(64) unsigned char array[4 << 20];
  const unsigned long lines = (bytes < sizeof array ? bytes : sizeof array) / 64;
  if (lines == 0 || passes == 0) return;
#if defined(__x86_64__)
  __asm__ volatile(
      "1: mov %2, %%rsi\n\tmov %3, %%rcx\n"
      "2: mov (%%rsi), %%rax\n\tadd $64, %%rsi\n\tdec %%rcx\n\tjnz 2b\n\tdec %0\n\tjnz 1b"
      : "+r"(passes)
      : "m"(array), "r"(array), "r"(lines)
      : "rax", "rcx", "rsi", "cc", "memory");
#elif defined(__aarch64__)
  __asm__ volatile(
      "1: mov x3, %2\n\tmov x4, %3\n"
      "2: ldr x2, [x3]\n\tadd x3, x3, #64\n\tsubs x4, x4, #1\n\tb.ne 2b\n\tsubs %0, %0, #1\n\tb.ne 1b"
      : "+r"(passes)
      : "m"(array), "r"(array), "r"(lines)
      : "x2", "x3", "x4", "cc", "memory");
#endif
}

/* N iterations of a branch on the top bit of a linear congruential sequence, which no predictor
 * learns: about half of them mispredicted. */
__attribute__((noinline)) static void random_branch_loop(unsigned long n) {
  unsigned long x = 1;
  const unsigned long multiplier = 6364136223846793005UL;
  if (n == 0) return;
#if defined(__x86_64__)
  __asm__ volatile("1: imul %2, %1\n\tadd $1, %1\n\ttest %1, %1\n\tjns 2f\n\tnop\n2: dec %0\n\tjnz 1b"
                   : "+r"(n), "+r"(x)
                   : "r"(multiplier)
                   : "cc");
#elif defined(__aarch64__)
  __asm__ volatile("1: mul %1, %1, %2\n\tadd %1, %1, #1\n\ttbz %1, #63, 2f\n\tnop\n2: subs %0, %0, #1\n\tb.ne 1b"
                   : "+r"(n), "+r"(x)
                   : "r"(multiplier)
                   : "cc");
#endif
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "signals") == 0) {
    struct sigaction hup, usr1;
    sigset_t blocked;
    sigaction(SIGHUP, NULL, &hup);
    sigaction(SIGUSR1, NULL, &usr1);
    sigprocmask(SIG_BLOCK, NULL, &blocked);
    printf("SIGHUP %s, SIGUSR1 %s, SIGUSR2 %s\n", hup.sa_handler == SIG_IGN ? "ignored" : "not ignored",
           usr1.sa_handler == SIG_IGN ? "ignored" : "not ignored",
           sigismember(&blocked, SIGUSR2) ? "blocked" : "not blocked");
    return 0;
  }
  if (argc > 2 && strcmp(argv[1], "ignore-block-exec") == 0) {
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    sigprocmask(SIG_BLOCK, &usr2, NULL);
    signal(SIGUSR1, SIG_IGN);
    execv(argv[2], argv + 2);
    return 127;
  }
  if (argc > 2 && strcmp(argv[1], "random-branches") == 0) {
    random_branch_loop(strtoul(argv[2], NULL, 10));
    return 0;
  }
  if (argc > 2 && strcmp(argv[1], "memory") == 0) {
    memory_loop(strtoul(argv[2], NULL, 10));
    return 0;
  }
  if (argc > 3 && strcmp(argv[1], "strided-loads") == 0) {
    strided_loads(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
    return 0;
  }
  if (argc > 2 && strcmp(argv[1], "wide-memory") == 0) {
    wide_memory_loop(strtoul(argv[2], NULL, 10));
    return 0;
  }
  iterations = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
  const long threads = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
  if (threads <= 1) {
    run_loop(NULL);
    return 0;
  }
  static pthread_t ids[1024];
  if (threads > 1024) return 1;
  pthread_barrier_init(&all_started, NULL, (unsigned)threads);
  for (long t = 0; t < threads; ++t)
    if (pthread_create(&ids[t], NULL, run_loop, &all_started) != 0) return 1;
  for (long t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  return 0;
}
