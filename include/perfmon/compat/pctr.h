/* SPDX-License-Identifier: Apache-2.0 */
/* OpenBSD pctr(4) on Linux (docs/compat.md): /dev/pctr, its ioctls, and the rdtsc() and rdpmc()
 * macros, for programs written for OpenBSD's <machine/pctr.h>.
 *
 * Linux has no /dev/pctr. libpctr serves that path inside the program: linked with -lpctr (or
 * preloaded with LD_PRELOAD=libpctr.so), it answers open("/dev/pctr"), its ioctls and its close;
 * every other path and descriptor goes to libc untouched. Counter function words are the P6 layout
 * the seed gives (event byte, unit mask << PCTR_UM_SHIFT, the PCTR_* flags, counter mask <<
 * PCTR_CM_SHIFT); on arm64 the event byte is a PMUv3 event number. The counters count the thread
 * that programs them, and rdpmc(ctr) reads counter ctr in user mode through perf's user page,
 * without a system call, where the kernel allows it.
 *
 * Link with -lpctr (pkg-config libpctr, whose flags also let an OpenBSD program keep its own
 * #include <machine/pctr.h>: docs/compat.md).
 */
#ifndef PERFMON_COMPAT_PCTR_H
#define PERFMON_COMPAT_PCTR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCTR_NUM 4

typedef uint64_t pctrval;

struct pctrst {
  unsigned int pctr_fn[PCTR_NUM]; /* each counter's function, as PCIOCSn set it */
  pctrval pctr_tsc;               /* the time-stamp counter, read with the counters */
  pctrval pctr_hwc[PCTR_NUM];     /* the counters (64-bit here; OpenBSD's are 40-bit) */
};

/* The ioctls (numbered for Linux: the names are the interface). */
#define PCIOCRD _IOR('c', 1, struct pctrst)
#define PCIOCS0 _IOW('c', 8, unsigned int)
#define PCIOCS1 _IOW('c', 9, unsigned int)
#define PCIOCS2 _IOW('c', 10, unsigned int)
#define PCIOCS3 _IOW('c', 11, unsigned int)

/* The function word: P6 and later. */
#define PCTR_U 0x010000  /* count user mode */
#define PCTR_K 0x020000  /* count kernel mode */
#define PCTR_E 0x040000  /* count edges */
#define PCTR_EN 0x400000 /* enable: must be set in counter 0's function for any counter to count */
#define PCTR_I 0x800000  /* invert the counter mask's sense */
#define PCTR_UM_SHIFT 8
#define PCTR_CM_SHIFT 24
#define PCTR_UM_M 0x08 /* unit mask bits, shifted by PCTR_UM_SHIFT: cache line states */
#define PCTR_UM_E 0x04
#define PCTR_UM_S 0x02
#define PCTR_UM_I 0x01
#define PCTR_UM_MESI (PCTR_UM_M | PCTR_UM_E | PCTR_UM_S | PCTR_UM_I)
#define PCTR_UM_A 0x20 /* every bus agent's events */

/* libpctr's: counter `ctr`'s value, read in user mode where the kernel allows it (else with one
 * read(2)); 0 for a counter not programmed. */
pctrval pctr_read_counter(int ctr);
/* libpctr's: 1 when the last read of counter `ctr` took it in user mode, without a system call. */
size_t pctr_user_mode_reads(int ctr);

/* The time-stamp counter (x86) or the virtual counter (arm64), read in user mode. */
static inline pctrval pctr_rdtsc(void) {
#if defined(__x86_64__) || defined(__i386__)
  uint32_t low, high;
  __asm__ volatile("rdtsc" : "=a"(low), "=d"(high));
  return (pctrval)high << 32 | low;
#elif defined(__aarch64__)
  pctrval ticks;
  __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(ticks));
  return ticks;
#else
#error "pctr: no user-mode cycle counter on this architecture"
#endif
}

#define rdtsc() pctr_rdtsc()
#define rdpmc(ctr) pctr_read_counter(ctr)

#ifdef __cplusplus
}
#endif

#endif /* PERFMON_COMPAT_PCTR_H */
