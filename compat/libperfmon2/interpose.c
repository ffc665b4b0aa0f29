/* close() of a context's descriptor destroys the context (§3.1.15). libperfmon2's close comes
 * before libc's in the program's lookup order; in libperfmon2.a it is __wrap_close, and programs
 * link with -Wl,--wrap=close (pkg-config --static libperfmon2). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "context.h"

typedef int (*close_fn)(int);

#ifdef PERFMON2_STATIC_ARCHIVE
int __real_close(int);
static close_fn real_close = __real_close;
static void find_real(void) {}
#define WRAPPED(name) __wrap_##name
#else
static close_fn real_close;
static void find_real(void) {
  void* next = dlsym(RTLD_NEXT, "close");
  memcpy(&real_close, &next, sizeof next); /* POSIX: dlsym's answer is the function's address */
}
#define WRAPPED(name) name
#endif

static pthread_once_t real_once = PTHREAD_ONCE_INIT;

int WRAPPED(close)(int fd) {
  if (pfm2_is_context(fd)) pfm2_context_closed(fd);
  pthread_once(&real_once, find_real);
  return real_close(fd);
}
