/* SPDX-License-Identifier: Apache-2.0 */
/* libpctr serves /dev/pctr from inside the program: its open, openat, ioctl and close see the
 * device's path and descriptors first and pass everything else to libc. Linked as libpctr.so (or
 * preloaded), they come before libc's in the program's lookup order; in libpctr.a they are
 * __wrap_ functions, and programs link with -Wl,--wrap=open,... (pkg-config --static libpctr). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device.h"

typedef int (*open_fn)(const char*, int, ...);
typedef int (*openat_fn)(int, const char*, int, ...);
typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef int (*close_fn)(int);

#ifdef PCTR_STATIC_ARCHIVE
int __real_open(const char*, int, ...);
int __real_open64(const char*, int, ...);
int __real_openat(int, const char*, int, ...);
int __real_ioctl(int, unsigned long, ...);
int __real_close(int);
static open_fn real_open = __real_open, real_open64 = __real_open64;
static openat_fn real_openat = __real_openat;
static ioctl_fn real_ioctl = __real_ioctl;
static close_fn real_close = __real_close;
static void find_real(void) {}
#define WRAPPED(name) __wrap_##name
#else
static open_fn real_open, real_open64;
static openat_fn real_openat;
static ioctl_fn real_ioctl;
static close_fn real_close;
/* POSIX: dlsym's answer is the function's address. */
#define FIND(variable, name)               \
  do {                                     \
    void* next = dlsym(RTLD_NEXT, name);   \
    memcpy(&variable, &next, sizeof next); \
  } while (0)
static void find_real(void) {
  FIND(real_open, "open");
  FIND(real_open64, "open64");
  FIND(real_openat, "openat");
  FIND(real_ioctl, "ioctl");
  FIND(real_close, "close");
}
#define WRAPPED(name) name
#endif

static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* The descriptor an open of the device returns: a real one (memfd), so that close, dup and fcntl
 * work on it as on any descriptor. */
static int open_device(int flags) {
  const int fd = memfd_create("pctr", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
  if (fd >= 0) pctr_device_opened(fd, flags);
  return fd;
}

/* open's mode argument, present with O_CREAT or O_TMPFILE. */
#define MODE_OF(flags, mode)                 \
  do {                                       \
    if ((flags) & (O_CREAT | __O_TMPFILE)) { \
      va_list ap;                            \
      va_start(ap, flags);                   \
      mode = va_arg(ap, mode_t);             \
      va_end(ap);                            \
    }                                        \
  } while (0)

int WRAPPED(open)(const char* path, int flags, ...) {
  mode_t mode = 0;
  MODE_OF(flags, mode);
  if (pctr_is_device_path(path)) return open_device(flags);
  pthread_once(&real_once, find_real);
  return real_open(path, flags, mode);
}

int WRAPPED(open64)(const char* path, int flags, ...) {
  mode_t mode = 0;
  MODE_OF(flags, mode);
  if (pctr_is_device_path(path)) return open_device(flags);
  pthread_once(&real_once, find_real);
  return real_open64(path, flags, mode);
}

int WRAPPED(openat)(int directory, const char* path, int flags, ...) {
  mode_t mode = 0;
  MODE_OF(flags, mode);
  if (pctr_is_device_path(path)) return open_device(flags); /* an absolute path ignores the directory */
  pthread_once(&real_once, find_real);
  return real_openat(directory, path, flags, mode);
}

int WRAPPED(ioctl)(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* argument = va_arg(ap, void*);
  va_end(ap);
  if (pctr_is_device_fd(fd)) return pctr_device_ioctl(fd, request, argument);
  pthread_once(&real_once, find_real);
  return real_ioctl(fd, request, argument);
}

int WRAPPED(close)(int fd) {
  if (pctr_is_device_fd(fd)) pctr_device_closed(fd);
  pthread_once(&real_once, find_real);
  return real_close(fd);
}
