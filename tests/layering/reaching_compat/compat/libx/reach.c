/* SPDX-License-Identifier: Apache-2.0 */
/* What compat_through_c_abi.cmake must refuse: a compat file calling the kernel's ioctl. */
#include <sys/ioctl.h>

void stop(int fd) {
  ioctl(fd, 0x2401, 0);
}
