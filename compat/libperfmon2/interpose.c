/* SPDX-License-Identifier: Apache-2.0 */
/* close() of a context's descriptor destroys the context (§3.1.15), mmap() of it maps the
 * sampling buffer (§3.5.4), and read() of it takes whole messages: one smaller than a message
 * fails with EINVAL (§3.3.3) where the socket would cut the message short. libperfmon2's close,
 * read, mmap and munmap come before libc's in the program's lookup order; in libperfmon2.a they are
 * __wrap_ functions, and programs link with -Wl,--wrap=close,--wrap=read,--wrap=mmap,--wrap=mmap64,
 * --wrap=munmap (pkg-config --static libperfmon2).
 * mmap and munmap reach the kernel directly otherwise: they run before anything is set up (the
 * dynamic loader's and malloc's calls), so they look nothing up. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <perfmon/compat/perfmon2.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "context.h"

typedef int (*close_fn)(int);
typedef ssize_t (*read_fn)(int, void*, size_t);

#ifdef PERFMON2_STATIC_ARCHIVE
int __real_close(int);
ssize_t __real_read(int, void*, size_t);
static close_fn real_close = __real_close;
static read_fn real_read = __real_read;
static void find_real(void) {}
#define WRAPPED(name) __wrap_##name
#else
static close_fn real_close;
static read_fn real_read;
static void find_real(void) {
  /* POSIX: dlsym's answer is the function's address */
  void* next = dlsym(RTLD_NEXT, "close");
  memcpy(&real_close, &next, sizeof next);
  next = dlsym(RTLD_NEXT, "read");
  memcpy(&real_read, &next, sizeof next);
}
#define WRAPPED(name) name
#endif

static pthread_once_t real_once = PTHREAD_ONCE_INIT;

int WRAPPED(close)(int fd) {
  if (pfm2_is_context(fd)) pfm2_context_closed(fd);
  pthread_once(&real_once, find_real);
  return real_close(fd);
}

ssize_t WRAPPED(read)(int fd, void* buffer, size_t count) {
  if (count < sizeof(pfm_msg_t) && pfm2_is_context(fd)) {
    errno = EINVAL;
    return -1;
  }
  pthread_once(&real_once, find_real);
  return real_read(fd, buffer, count);
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
