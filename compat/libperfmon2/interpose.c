/* close() of a context's descriptor destroys the context (§3.1.15), and mmap() of it maps the
 * sampling buffer (§3.5.4). libperfmon2's close, mmap and munmap come before libc's in the
 * program's lookup order; in libperfmon2.a they are __wrap_ functions, and programs link with
 * -Wl,--wrap=close,--wrap=mmap,--wrap=mmap64,--wrap=munmap (pkg-config --static libperfmon2).
 * mmap and munmap reach the kernel directly otherwise: they run before anything is set up (the
 * dynamic loader's and malloc's calls), so they look nothing up. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

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

void* WRAPPED(mmap)(void* address, size_t length, int protection, int flags, int fd, off_t offset) {
  if (fd >= 0 && !(flags & MAP_ANONYMOUS) && pfm2_is_context(fd))
    return pfm2_context_mmap(fd, address, length, protection, flags, offset);
  return (void*)syscall(SYS_mmap, address, length, protection, flags, fd, offset);
}

void* WRAPPED(mmap64)(void* address, size_t length, int protection, int flags, int fd, off_t offset) {
  return WRAPPED(mmap)(address, length, protection, flags, fd, offset);
}

int WRAPPED(munmap)(void* address, size_t length) {
  const int result = (int)syscall(SYS_munmap, address, length);
  if (result == 0) pfm2_context_unmapped(address);
  return result;
}
