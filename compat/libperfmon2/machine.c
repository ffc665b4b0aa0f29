/* SPDX-License-Identifier: Apache-2.0 */
/* What the parts of libperfmon2 share (machine.h): the catalogue, the failing call's detail. */
#define _GNU_SOURCE
#include "machine.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- What the parts share ---------------------------------------------------------------------- */

pthread_mutex_t pfm2_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
struct context* pfm2_contexts;

pid_t pfm2_gettid(void) {
  return (pid_t)syscall(SYS_gettid);
}

pid_t pfm2_thread_group_of(pid_t tid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
  FILE* status = fopen(path, "re");
  if (status == NULL) return -1;
  char line[256];
  int tgid = -1;
  while (fgets(line, sizeof line, status) != NULL)
    if (sscanf(line, "Tgid: %d", &tgid) == 1) break;
  fclose(status);
  return tgid;
}

static perfmon_catalog* catalog;
static pthread_once_t catalog_once = PTHREAD_ONCE_INIT;
static void make_catalog(void) {
  catalog = perfmon_catalog_new();
}
const perfmon_catalog* pfm2_catalog(void) {
  pthread_once(&catalog_once, make_catalog);
  return catalog;
}

static __thread char detail[512];
int pfm2_fail(int err, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(detail, sizeof detail, format, ap);
  va_end(ap);
  errno = err;
  return -1;
}
const char* pfm_strerror_detail(void) {
  return detail;
}
