// SPDX-License-Identifier: Apache-2.0
// The perf_event_open(2) system call and its ioctls, held as the kernel defines them. Every
// function returns what the kernel said (a value, or -errno); explaining it is diagnose/'s work.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>

namespace perfmon::kernel {

// perf_event_open(2), always with PERF_FLAG_FD_CLOEXEC. Returns the new fd, or -errno.
int perf_event_open(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags) noexcept;

// The ioctls. Each returns 0 or -errno. `group` applies it to the whole group of a leader.
int enable(int fd, bool group) noexcept;
int disable(int fd, bool group) noexcept;
int reset(int fd, bool group) noexcept;
int refresh(int fd, int count) noexcept;
int set_period(int fd, std::uint64_t period) noexcept;
int set_output(int fd, int target_fd) noexcept;
// A tracepoint's ftrace filter ("error_code & 2"): the event counts only what passes it.
int set_filter(int fd, const char* filter) noexcept;
// Raises signal `signo` in thread `tid` at each overflow of the event (fcntl F_SETOWN_EX, F_SETSIG
// and O_ASYNC); the signal's si_fd is the event's fd, its si_code POLL_IN, or POLL_HUP when a
// refresh() count ran out. Returns 0 or -errno.
int route_overflow_signal(int fd, pid_t tid, int signo) noexcept;
// The kernel's unique id of the event (PERF_EVENT_IOC_ID), or 0 on failure.
std::uint64_t event_id(int fd) noexcept;

// Run-time feature probe (cached): does the running kernel accept PERF_FORMAT_LOST (Linux 6.0)?
bool supports_format_lost() noexcept;

}  // namespace perfmon::kernel
