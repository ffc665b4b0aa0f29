/* SPDX-License-Identifier: Apache-2.0 */
/* /dev/pctr inside the process: one set of four counters, programmed through any writable
 * descriptor of the device and read through any, as OpenBSD's device is one per machine. */
#define _GNU_SOURCE
#include "device.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "perfmon/compat/pctr.h"
#include "perfmon/perfmon.h"

#define MAX_DESCRIPTORS 64
/* The bits of a function word that select what to count; the rest (the interrupt enable, pin
 * control and any-thread bits) are the kernel's, and a word with them is refused (EINVAL). */
#define PCTR_ALLOWED_BITS \
  (0xFFu | 0xFFu << PCTR_UM_SHIFT | PCTR_U | PCTR_K | PCTR_E | PCTR_EN | PCTR_I | 0xFFu << PCTR_CM_SHIFT)

/* Recursive: opening a counter reads sysfs, whose close() comes back here. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
/* A descriptor of the device: its number and the memfd it is, since dup2() or close_range() can
 * put another file at the number without a close() that libpctr sees. */
static struct {
  int fd, writable;
  dev_t dev;
  ino_t ino;
} descriptors[MAX_DESCRIPTORS];
static int descriptor_count;
static perfmon_catalog* catalog;
static unsigned int functions[PCTR_NUM];
static perfmon_session* counters[PCTR_NUM]; /* NULL: not programmed, or counting nothing */

int pctr_is_device_path(const char* path) {
  return path != NULL && strcmp(path, "/dev/pctr") == 0;
}

void pctr_device_opened(int fd, int flags) {
  struct stat status;
  if (fstat(fd, &status) != 0) return;
  pthread_mutex_lock(&lock);
  if (descriptor_count < MAX_DESCRIPTORS) {
    descriptors[descriptor_count].fd = fd;
    descriptors[descriptor_count].writable = (flags & 3) != 0; /* O_WRONLY or O_RDWR */
    descriptors[descriptor_count].dev = status.st_dev;
    descriptors[descriptor_count].ino = status.st_ino;
    ++descriptor_count;
  }
  pthread_mutex_unlock(&lock);
}

static void release_counters(void) {
  for (int c = 0; c < PCTR_NUM; ++c) {
    perfmon_session_close(counters[c]);
    counters[c] = NULL;
    functions[c] = 0;
  }
}

/* The device descriptor `fd` is (its own, or a dup of one), or -1. An entry whose number now holds
 * another file was closed behind libpctr's back: it is dropped, and the counters with the last. */
static int find(int fd) {
  struct stat status;
  const int stated = fstat(fd, &status) == 0;
  int found = -1;
  for (int k = 0; k < descriptor_count;) {
    const int same_file = stated && descriptors[k].dev == status.st_dev && descriptors[k].ino == status.st_ino;
    if (descriptors[k].fd == fd && !same_file) {
      descriptors[k] = descriptors[--descriptor_count];
      if (descriptor_count == 0) release_counters();
      continue;
    }
    if (same_file && (found < 0 || descriptors[k].fd == fd)) found = k;
    ++k;
  }
  return found;
}

int pctr_is_device_fd(int fd) {
  if (descriptor_count == 0) return 0; /* the common case, without the lock */
  pthread_mutex_lock(&lock);
  const int found = find(fd) >= 0;
  pthread_mutex_unlock(&lock);
  return found;
}

/* Counting follows counter 0's enable bit, as on the CPUs the seed describes. */
static void apply_enable(void) {
  const int enabled = (functions[0] & PCTR_EN) != 0;
  for (int c = 0; c < PCTR_NUM; ++c) {
    if (counters[c] == NULL) continue;
    if (enabled)
      perfmon_session_start(counters[c]);
    else
      perfmon_session_stop(counters[c]);
  }
}

/* PCIOCSn: program counter n. */
static int set_function(int counter, unsigned int function) {
  if ((function & ~PCTR_ALLOWED_BITS) != 0) return EINVAL;
  if (catalog == NULL && (catalog = perfmon_catalog_new()) == NULL) return ENOMEM;
  perfmon_session* session = NULL;
  /* A function with neither PCTR_U nor PCTR_K counts nothing, as the seed says; 0 frees the counter. */
  if ((function & (PCTR_U | PCTR_K)) != 0) {
    char event[64];
    snprintf(event, sizeof event, "pctr:0x%x", function & ~(unsigned)PCTR_EN);
    perfmon_session_options options;
    memset(&options, 0, sizeof options);
    options.no_inherit = 1;
    options.fail_unsupported = 1;
    options.user_space_reads = 1;
    const perfmon_target self = {PERFMON_TARGET_SELF, 0, NULL, 0};
    const int err = perfmon_session_open(catalog, event, &self, &options, &session);
    if (err != 0) {
      if (getenv("PCTR_QUIET") == NULL) fprintf(stderr, "libpctr: PCIOCS%d: %s\n", counter, perfmon_last_error());
      /* No counters on this CPU (no PMU) is the seed's ENODEV; a function this CPU refuses, EINVAL. */
      return err == ENOENT || err == EOPNOTSUPP || err == ENODEV ? ENODEV
             : err == EACCES || err == EPERM                     ? EPERM
                                                                 : EINVAL;
    }
  }
  perfmon_session_close(counters[counter]);
  counters[counter] = session;
  functions[counter] = function;
  apply_enable();
  return 0;
}

pctrval pctr_read_counter(int ctr) {
  if (ctr < 0 || ctr >= PCTR_NUM) return 0;
  pthread_mutex_lock(&lock); /* another thread may reprogram the counter meanwhile */
  perfmon_session* session = counters[ctr];
  perfmon_value value = {0, 0, 0, 0, 0.0};
  if (session != NULL && perfmon_session_read(session) == 0) perfmon_session_value(session, 0, &value);
  pthread_mutex_unlock(&lock);
  return value.raw;
}

size_t pctr_user_mode_reads(int ctr) {
  pthread_mutex_lock(&lock);
  const size_t reads = ctr >= 0 && ctr < PCTR_NUM ? perfmon_session_user_mode_reads(counters[ctr]) : 0;
  pthread_mutex_unlock(&lock);
  return reads;
}

/* The kernel's copyin and copyout: a bad address is EFAULT, not a crash. The process's own memory
 * through process_vm_readv/writev, which the kernel checks as it copies. */
static int copy_in(void* to, const void* from, size_t size) {
  struct iovec local = {to, size}, remote = {(void*)from, size};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size ? 0 : EFAULT;
}

static int copy_out(void* to, const void* from, size_t size) {
  struct iovec local = {(void*)from, size}, remote = {to, size};
  return process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size ? 0 : EFAULT;
}

/* PCIOCRD: every counter, and the TSC with them. */
static int read_all(struct pctrst* to) {
  struct pctrst state;
  memset(&state, 0, sizeof state);
  memcpy(state.pctr_fn, functions, sizeof functions);
  state.pctr_tsc = pctr_rdtsc();
  for (int c = 0; c < PCTR_NUM; ++c) {
    perfmon_value value = {0, 0, 0, 0, 0.0};
    if (counters[c] != NULL && perfmon_session_read(counters[c]) == 0) perfmon_session_value(counters[c], 0, &value);
    state.pctr_hwc[c] = value.raw;
  }
  return copy_out(to, &state, sizeof state);
}

int pctr_device_ioctl(int fd, unsigned long request, void* argument) {
  pthread_mutex_lock(&lock);
  const int k = find(fd);
  int err = 0;
  if (k < 0) {
    err = EBADF;
  } else if (request == PCIOCRD) {
    err = read_all(argument);
  } else if (request == PCIOCS0 || request == PCIOCS1 || request == PCIOCS2 || request == PCIOCS3) {
    const int counter = request == PCIOCS0 ? 0 : request == PCIOCS1 ? 1 : request == PCIOCS2 ? 2 : 3;
    unsigned int function = 0;
    if (!descriptors[k].writable)
      err = EPERM; /* the seed: setting a function needs a writable descriptor */
    else if ((err = copy_in(&function, argument, sizeof function)) == 0)
      err = set_function(counter, function);
  } else {
    err = ENOTTY;
  }
  pthread_mutex_unlock(&lock);
  if (err == 0) return 0;
  errno = err;
  return -1;
}

void pctr_device_closed(int fd) {
  pthread_mutex_lock(&lock);
  const int k = find(fd);
  if (k >= 0 && descriptors[k].fd == fd) { /* a dup of a device descriptor closes nothing of it */
    descriptors[k] = descriptors[--descriptor_count];
    if (descriptor_count == 0) release_counters();
  }
  pthread_mutex_unlock(&lock);
}
