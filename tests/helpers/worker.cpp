// SPDX-License-Identifier: Apache-2.0
// perfmon-test-worker: a workload whose system calls, page faults and function calls are known
// exactly, for tests that check perfmon's counts.
//
//   getppid N [--threads T] [--fork-child M] [--wait-stdin] [--pause-us U [--pause-every K]]
//       each of T threads (default 1: the main thread only) calls getppid() N times; with
//       --fork-child a child process calls it M times; --wait-stdin first waits for a line on stdin;
//       --pause-us sleeps U microseconds after each call of the main thread (a monitor keeps up),
//       or after every K-th call only (a monitor acts at every K-th, as event sets switch)
//   touch K      writes to K fresh pages (K page faults, plus the program's own)
//   call N       calls a function (not inlined) N times and prints its address
//   loop N       runs the assembly loop of exactly 2N + 1 instructions
//   tree N       main -> perfmon_branch_a -> perfmon_leaf(3N), then main -> perfmon_branch_b ->
//                perfmon_leaf(N): a call tree whose leaf spends 3/4 of its time under branch a
//   tree-getppid N [--wait-stdin]   the same tree, its leaf calling getppid: exactly 3N calls under
//                branch a, N under b (--wait-stdin: once a line arrives on stdin, after "ready PID")
//   inline-getppid N main -> perfmon_inline_caller, into which perfmon_inlined_getppid is inlined
//                and calls getppid N times: DWARF (not the symbol table) knows the inner function
//   annotate N   perfmon_annotated: N getppid system calls made by its own instruction, inlined
//                into one line, N/4 from another line
//   exec-after N PROGRAM [ARG...]   the call tree of tree-getppid N, then execs PROGRAM: the same
//                process maps other files, perhaps where this one's were
//   sleep MS     sleeps
//   spin MS      burns CPU
//   churn MS     for MS milliseconds, keeps starting threads that live a moment (prints "ready" first)
//   exit CODE    exits with CODE
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "spin.hpp"

namespace {

void call_getppid(long n) {
  for (long i = 0; i < n; ++i) syscall(SYS_getppid);  // the raw syscall: no libc caching
}

[[gnu::noinline]] void counted_function(volatile long* sink) {
  *sink = *sink + 1;
}

// With frame pointers (the worker is built with them), so that callchains name every caller. The
// empty asm after each call keeps it from becoming a jump that would leave the branch off the stack.
extern "C" [[gnu::noinline]] void perfmon_leaf(unsigned long n) {
  volatile unsigned long sink = 0;
  for (unsigned long i = 0; i < n; ++i) sink = sink + i;
}
extern "C" [[gnu::noinline]] void perfmon_getppid_leaf(unsigned long n) {
  for (unsigned long i = 0; i < n; ++i) syscall(SYS_getppid);
  asm volatile("");
}
extern "C" [[gnu::always_inline]] inline void perfmon_inlined_getppid(unsigned long n) {
  for (unsigned long i = 0; i < n; ++i) syscall(SYS_getppid);
}
extern "C" [[gnu::noinline]] void perfmon_inline_caller(unsigned long n) {
  perfmon_inlined_getppid(n);
  asm volatile("");
}
// Two levels of inlined calls where the system call is made.
extern "C" [[gnu::always_inline]] inline void perfmon_inlined_twice(unsigned long n) {
  perfmon_inlined_getppid(n);
}
extern "C" [[gnu::noinline]] void perfmon_inline_twice_caller(unsigned long n) {
  perfmon_inlined_twice(n);
  asm volatile("");
}
// The system call made by an instruction of this program (not libc's syscall()): a sample of
// sys_enter_getppid lands on the instruction after it, in the function that inlined this.
[[gnu::always_inline]] inline long perfmon_raw_getppid() {
#if defined(__x86_64__)
  long result;
  asm volatile("syscall" : "=a"(result) : "a"(static_cast<long>(SYS_getppid)) : "rcx", "r11", "memory");
  return result;
#elif defined(__aarch64__)
  register long number asm("x8") = SYS_getppid;
  register long result asm("x0");
  asm volatile("svc 0" : "=r"(result) : "r"(number) : "memory");
  return result;
#else
  return syscall(SYS_getppid);
#endif
}
// N system calls from the line marked hot, N/4 from the line marked quarter (perfmon annotate's tests).
extern "C" [[gnu::noinline]] long perfmon_annotated(unsigned long n) {
  long sum = 0;
  for (unsigned long i = 0; i < n; ++i) sum += perfmon_raw_getppid();      // annotate: hot
  for (unsigned long i = 0; i < n / 4; ++i) sum += perfmon_raw_getppid();  // annotate: quarter
  return sum;
}
using Leaf = void (*)(unsigned long);
extern "C" [[gnu::noinline]] void perfmon_branch_a(Leaf leaf, unsigned long n) {
  leaf(3 * n);
  asm volatile("");
}
extern "C" [[gnu::noinline]] void perfmon_branch_b(Leaf leaf, unsigned long n) {
  leaf(n);
  asm volatile("");
}

int usage() {
  std::fprintf(stderr,
               "usage: perfmon-test-worker getppid N [--threads T] [--fork-child M] [--wait-stdin] | "
               "touch K | call N | loop N | tree N | tree-getppid N [--wait-stdin] | inline-getppid N | inline-twice N "
               "| annotate N | "
               "exec-after N "
               "PROGRAM [ARG...] "
               "| sleep MS | spin MS | churn MS "
               "| exit CODE\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  std::string mode = argv[1];
  long n = std::strtol(argv[2], nullptr, 10);
  if (mode == "getppid") {
    long threads = 1, child_calls = -1, pause_us = 0, pause_every = 1;
    bool wait_stdin = false;
    for (int i = 3; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
        threads = std::strtol(argv[++i], nullptr, 10);
      else if (!std::strcmp(argv[i], "--fork-child") && i + 1 < argc)
        child_calls = std::strtol(argv[++i], nullptr, 10);
      else if (!std::strcmp(argv[i], "--wait-stdin"))
        wait_stdin = true;
      else if (!std::strcmp(argv[i], "--pause-us") && i + 1 < argc)
        pause_us = std::strtol(argv[++i], nullptr, 10);
      else if (!std::strcmp(argv[i], "--pause-every") && i + 1 < argc)
        pause_every = std::max(1L, std::strtol(argv[++i], nullptr, 10));
      else
        return usage();
    }
    // With --wait-stdin the threads exist before "ready" is printed, so that a monitor attaching
    // to the process (-p) sees them all, and they start when a line arrives on stdin.
    std::latch go(1);
    std::vector<std::thread> pool;
    for (long t = 0; threads > 1 && t < threads; ++t)
      pool.emplace_back([&go, n] {
        go.wait();
        call_getppid(n);
      });
    if (wait_stdin) {
      std::printf("ready %d\n", getpid());
      std::fflush(stdout);
      std::string line;
      std::getline(std::cin, line);
    }
    if (child_calls >= 0) {
      pid_t child = fork();
      if (child == 0) {
        call_getppid(child_calls);
        _exit(0);
      }
      int status;
      waitpid(child, &status, 0);
    }
    if (threads <= 1 && pause_us > 0) {
      for (long i = 1; i <= n; ++i) {
        call_getppid(1);
        if (i % pause_every == 0) usleep(static_cast<useconds_t>(pause_us));
      }
    } else if (threads <= 1) {
      call_getppid(n);
    }
    go.count_down();
    for (std::thread& thread : pool) thread.join();
    return 0;
  }
  if (mode == "touch") {
    long page = sysconf(_SC_PAGESIZE);
    auto* memory = static_cast<char*>(
        mmap(nullptr, static_cast<size_t>(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (memory == MAP_FAILED) return 1;
    for (long i = 0; i < n; ++i) memory[i * page] = 1;
    return 0;
  }
  if (mode == "loop") {
    perfmon_spin(static_cast<unsigned long>(n));
    return 0;
  }
  if (mode == "exec-after" && argc >= 4) {
    perfmon_branch_a(perfmon_getppid_leaf, static_cast<unsigned long>(n));
    perfmon_branch_b(perfmon_getppid_leaf, static_cast<unsigned long>(n));
    execv(argv[3], argv + 3);
    std::perror(argv[3]);
    return 127;
  }
  if (mode == "annotate") {
    std::printf("%ld\n", perfmon_annotated(static_cast<unsigned long>(n)) > 0 ? 1L : 0L);
    return 0;
  }
  if (mode == "inline-getppid") {
    perfmon_inline_caller(static_cast<unsigned long>(n));
    return 0;
  }
  if (mode == "inline-twice") {
    perfmon_inline_twice_caller(static_cast<unsigned long>(n));
    return 0;
  }
  if (mode == "tree" || mode == "tree-getppid") {
    if (argc > 3 && !std::strcmp(argv[3], "--wait-stdin")) {
      std::printf("ready %d\n", getpid());
      std::fflush(stdout);
      std::string line;
      std::getline(std::cin, line);
    }
    const Leaf leaf = mode == "tree" ? perfmon_leaf : perfmon_getppid_leaf;
    perfmon_branch_a(leaf, static_cast<unsigned long>(n));
    perfmon_branch_b(leaf, static_cast<unsigned long>(n));
    return 0;
  }
  if (mode == "call") {
    volatile long sink = 0;
    std::printf("%p\n", reinterpret_cast<void*>(&counted_function));
    std::fflush(stdout);
    for (long i = 0; i < n; ++i) counted_function(&sink);
    return 0;
  }
  if (mode == "sleep") {
    std::this_thread::sleep_for(std::chrono::milliseconds(n));
    return 0;
  }
  if (mode == "spin") {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(n);
    volatile unsigned long x = 0;
    while (std::chrono::steady_clock::now() < end) x = x + 1;
    return 0;
  }
  if (mode == "churn") {
    std::printf("ready %d\n", static_cast<int>(getpid()));
    std::fflush(stdout);
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(n);
    while (std::chrono::steady_clock::now() < end) {
      std::vector<std::thread> threads;
      for (int t = 0; t < 4; ++t) threads.emplace_back([] { call_getppid(100); });
      for (std::thread& thread : threads) thread.join();
    }
    return 0;
  }
  if (mode == "exit") return static_cast<int>(n);
  return usage();
}
