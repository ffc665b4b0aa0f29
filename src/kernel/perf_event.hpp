// The perf_event_open(2) system call and its ioctls, held as the kernel defines them.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "kernel/fd.hpp"

namespace perfmon::kernel {

// perf_event_open(2). Returns the new fd, or -errno.
int perf_event_open_raw(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags) noexcept;

// perf_event_open(2), throwing perfmon::Error with a sentence that explains errno.
// `what` names the event in that sentence.
FileDescriptor open_event(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags,
                          std::string_view what);

// The sentence for a failed perf_event_open(2) of these arguments. After EINVAL it names the
// attribute the kernel refused, found by opening again with each set attribute cleared in turn.
std::string describe_open_failure(int errnum, const perf_event_attr& attr, pid_t pid, int cpu, int group_fd,
                                  unsigned long flags, std::string_view what);

// The ioctls. Each returns 0 or -errno. `group` applies it to the whole group of a leader.
int enable(int fd, bool group) noexcept;
int disable(int fd, bool group) noexcept;
int reset(int fd, bool group) noexcept;
int refresh(int fd, int count) noexcept;
int set_period(int fd, std::uint64_t period) noexcept;
int set_output(int fd, int target_fd) noexcept;
// The kernel's unique id of the event (PERF_EVENT_IOC_ID), or 0 on failure.
std::uint64_t event_id(int fd) noexcept;

// Run-time feature probes (cached): does the running kernel accept this?
bool supports_format_lost() noexcept;

}  // namespace perfmon::kernel
