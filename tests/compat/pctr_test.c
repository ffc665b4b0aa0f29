/* SPDX-License-Identifier: Apache-2.0 */
/* libpctr: /dev/pctr's ioctls and errors as the seed gives them, served inside the process while
 * every other file goes to libc untouched. Runs without a PMU (a function counting neither user nor
 * kernel mode opens nothing; a real one is ENODEV there). Exits non-zero, saying what failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <perfmon/compat/pctr.h>

#include "../helpers/c_checks.h"

int main(void) {
  setenv("PCTR_QUIET", "1", 1);
  /* Read-only: PCIOCRD works, setting a function is EPERM. */
  int reader = open("/dev/pctr", O_RDONLY);
  CHECK(reader >= 0);
  unsigned int nothing = 0x3c; /* an event, neither PCTR_U nor PCTR_K: counts nothing */
  CHECK(ioctl(reader, PCIOCS0, &nothing) == -1 && errno == EPERM);
  struct pctrst state;
  memset(&state, 0xff, sizeof state);
  CHECK(ioctl(reader, PCIOCRD, &state) == 0 && state.pctr_fn[0] == 0 && state.pctr_hwc[0] == 0 && state.pctr_tsc > 0);
  CHECK(ioctl(reader, 0x1234, &state) == -1 && errno == ENOTTY);

  /* Writable: functions are kept and read back; the kernel's bits are refused. */
  int writer = openat(AT_FDCWD, "/dev/pctr", O_RDWR | O_CLOEXEC);
  CHECK(writer >= 0 && writer != reader);
  const unsigned int idle = 0x3c | PCTR_EN | (1u << PCTR_CM_SHIFT);
  CHECK(ioctl(writer, PCIOCS1, &idle) == 0);
  CHECK(ioctl(reader, PCIOCRD, &state) == 0 && state.pctr_fn[1] == idle && state.pctr_hwc[1] == 0);
  const unsigned int interrupt = 0x3c | PCTR_U | (1u << 20); /* the APIC interrupt bit */
  CHECK(ioctl(writer, PCIOCS2, &interrupt) == -1 && errno == EINVAL);
  CHECK(rdpmc(1) == 0 && rdpmc(7) == 0);
  const pctrval t0 = rdtsc();
  CHECK(rdtsc() >= t0);

  /* A real function: counted where there is a PMU, ENODEV where there is none (the seed's error). */
  const unsigned int instructions = 0xc0 | PCTR_U | PCTR_EN;
  const int counted = ioctl(writer, PCIOCS0, &instructions);
  CHECK(counted == 0 || errno == ENODEV);
  if (counted == 0) {
    call_getppid(10);
    CHECK(rdpmc(0) > 0);
  } else {
    printf("no PMU: PCIOCS0 is ENODEV, as the seed says for a CPU without counters\n");
  }

  /* Every other file is libc's. */
  int pipe_ends[2];
  CHECK(pipe(pipe_ends) == 0);
  CHECK(write(pipe_ends[1], "abc", 3) == 3);
  int waiting = 0;
  CHECK(ioctl(pipe_ends[0], FIONREAD, &waiting) == 0 && waiting == 3);
  CHECK(open("/nonexistent/pctr", O_RDONLY) == -1 && errno == ENOENT);
  int created = open("/tmp", O_TMPFILE | O_RDWR, 0600);
  CHECK(created >= 0 && fcntl(created, F_GETFL) >= 0);
  close(created);
  close(pipe_ends[0]);
  close(pipe_ends[1]);

  CHECK(close(writer) == 0);
  CHECK(ioctl(writer, PCIOCRD, &state) == -1 && errno == EBADF); /* closed: libc's EBADF */

  /* A bad address is the device's EFAULT, as the kernel's copyout and copyin say it, not a crash. */
  CHECK(ioctl(reader, PCIOCRD, (void*)16) == -1 && errno == EFAULT);
  const int setter = open("/dev/pctr", O_RDWR);
  CHECK(ioctl(setter, PCIOCS0, (void*)16) == -1 && errno == EFAULT);
  CHECK(ioctl(setter, PCIOCS0, NULL) == -1 && errno == EFAULT);
  /* A dup is the same device. */
  const int copy = dup(reader);
  CHECK(ioctl(copy, PCIOCRD, &state) == 0);
  CHECK(close(copy) == 0);
  CHECK(ioctl(reader, PCIOCRD, &state) == 0);

  /* dup2() and close_range() close a device descriptor without a close() libpctr sees: the file
   * then at that number (a pipe) is libc's, not the device. */
  CHECK(pipe(pipe_ends) == 0);
  CHECK(dup2(pipe_ends[0], reader) == reader);
  CHECK(ioctl(reader, FIONREAD, &waiting) == 0 && waiting == 0);
  CHECK(ioctl(reader, PCIOCRD, &state) == -1 && errno == ENOTTY);
  CHECK(close(reader) == 0);
  CHECK(close_range((unsigned)setter, (unsigned)setter, 0) == 0);
  CHECK(dup2(pipe_ends[1], setter) == setter);
  CHECK(ioctl(setter, PCIOCS0, &nothing) == -1 && errno == ENOTTY);
  close(setter);
  close(pipe_ends[0]);
  close(pipe_ends[1]);
  return checks_result();
}
