// User-mode counter reads: the first page of a perf event's mmap (perf_event_mmap_page) tells
// which hardware counter holds the event and how to turn its raw value into the event's count;
// the counter is then read with rdpmc (x86) or mrs (arm64) without a system call.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>

namespace perfmon::kernel {

struct UserRead {
  std::uint64_t count = 0;
  std::uint64_t enabled = 0;
  std::uint64_t running = 0;
};

class UserPage {
 public:
  UserPage() = default;
  // Maps the event's user page read-only. Throws perfmon::Error.
  explicit UserPage(int fd);
  UserPage(UserPage&& other) noexcept;
  UserPage& operator=(UserPage&& other) noexcept;
  UserPage(const UserPage&) = delete;
  UserPage& operator=(const UserPage&) = delete;
  ~UserPage();

  bool mapped() const noexcept { return page_ != nullptr; }
  // Reads the counter in user mode under the kernel's seqlock. Returns false when the page says
  // it cannot be read from user mode now (index 0: not on a counter, or user access disabled).
  // The times are extrapolated to now only for a multiplexed event; otherwise they are the ones
  // the kernel last wrote (when the event was last scheduled in), which leaves scaling exact.
  bool read(UserRead& out) const noexcept;

 private:
  const volatile perf_event_mmap_page* page_ = nullptr;
};

// Sets what this architecture needs in an attr for user-mode reads (arm64: config1 bit 1, the
// "rdpmc" format term of armv8_pmuv3; nothing on x86).
void request_user_access(perf_event_attr& attr) noexcept;

// "" when the system lets user mode read counters; otherwise why not and how to allow it.
std::string user_access_unavailable_reason();

}  // namespace perfmon::kernel
