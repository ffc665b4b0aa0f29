/* What the parts of libperfmon2 share (machine.h): the catalogue, the failing call's detail. */
#define _GNU_SOURCE
#include "machine.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

/* ---- What the parts share ---------------------------------------------------------------------- */

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
