/* SPDX-License-Identifier: Apache-2.0 */
/* /dev/pctr inside the process (device.c): its descriptors, counters and ioctls. */
#ifndef PERFMON_COMPAT_LIBPCTR_DEVICE_H
#define PERFMON_COMPAT_LIBPCTR_DEVICE_H

/* Whether `path` names the device. */
int pctr_is_device_path(const char* path);
/* Registers `fd`, a descriptor libpctr made for an open of the device with `flags`. */
void pctr_device_opened(int fd, int flags);
/* Whether `fd` is one of the device's descriptors. */
int pctr_is_device_fd(int fd);
/* The device's ioctl: 0, or -1 with errno. */
int pctr_device_ioctl(int fd, unsigned long request, void* argument);
/* Forgets `fd`; the counters go with the last descriptor. */
void pctr_device_closed(int fd);

#endif
