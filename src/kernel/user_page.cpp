#include "kernel/user_page.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "kernel/text_file.hpp"
#include "perfmon/error.hpp"

namespace perfmon::kernel {

namespace {

// clang-format off
#if defined(__x86_64__) || defined(__i386__)
inline std::uint64_t read_counter(std::uint32_t counter) noexcept {
  std::uint32_t low, high;
  asm volatile("rdpmc" : "=a"(low), "=d"(high) : "c"(counter));
  return low | (static_cast<std::uint64_t>(high) << 32);
}
inline std::uint64_t read_timestamp() noexcept { return __rdtsc(); }
#elif defined(__aarch64__)
// PMEVCNTR<n>_EL0 is named in the instruction, so each counter needs its own mrs.
#define PERFMON_READ_PMEVCNTR(n) case n: asm volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(value)); break;
inline std::uint64_t read_counter(std::uint32_t counter) noexcept {
  std::uint64_t value = 0;
  switch (counter) {
    case 31: asm volatile("mrs %0, pmccntr_el0" : "=r"(value)); break;
    PERFMON_READ_PMEVCNTR(0) PERFMON_READ_PMEVCNTR(1) PERFMON_READ_PMEVCNTR(2) PERFMON_READ_PMEVCNTR(3)
    PERFMON_READ_PMEVCNTR(4) PERFMON_READ_PMEVCNTR(5) PERFMON_READ_PMEVCNTR(6) PERFMON_READ_PMEVCNTR(7)
    PERFMON_READ_PMEVCNTR(8) PERFMON_READ_PMEVCNTR(9) PERFMON_READ_PMEVCNTR(10) PERFMON_READ_PMEVCNTR(11)
    PERFMON_READ_PMEVCNTR(12) PERFMON_READ_PMEVCNTR(13) PERFMON_READ_PMEVCNTR(14) PERFMON_READ_PMEVCNTR(15)
    PERFMON_READ_PMEVCNTR(16) PERFMON_READ_PMEVCNTR(17) PERFMON_READ_PMEVCNTR(18) PERFMON_READ_PMEVCNTR(19)
    PERFMON_READ_PMEVCNTR(20) PERFMON_READ_PMEVCNTR(21) PERFMON_READ_PMEVCNTR(22) PERFMON_READ_PMEVCNTR(23)
    PERFMON_READ_PMEVCNTR(24) PERFMON_READ_PMEVCNTR(25) PERFMON_READ_PMEVCNTR(26) PERFMON_READ_PMEVCNTR(27)
    PERFMON_READ_PMEVCNTR(28) PERFMON_READ_PMEVCNTR(29) PERFMON_READ_PMEVCNTR(30)
    default: break;
  }
  return value;
}
#undef PERFMON_READ_PMEVCNTR
inline std::uint64_t read_timestamp() noexcept {
  std::uint64_t value;
  asm volatile("isb; mrs %0, cntvct_el0" : "=r"(value));
  return value;
}
#else
#define PERFMON_NO_USER_READS 1
#endif
// clang-format on

// (value * mult) >> shift without overflowing, split as the kernel documents it.
inline std::uint64_t scale_time(std::uint64_t value, std::uint32_t mult, std::uint16_t shift) noexcept {
  const std::uint64_t quotient = value >> shift, remainder = value & ((std::uint64_t{1} << shift) - 1);
  return quotient * mult + ((remainder * mult) >> shift);
}

}  // namespace

UserPage::UserPage(int fd) {
  void* page = ::mmap(nullptr, static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)), PROT_READ, MAP_SHARED, fd, 0);
  if (page == MAP_FAILED) {
    int err = errno;
    throw Error(std::string("cannot map the counter's user page: ") + std::strerror(err) + ".", err);
  }
  page_ = static_cast<const volatile perf_event_mmap_page*>(page);
}

UserPage::UserPage(UserPage&& other) noexcept : page_(std::exchange(other.page_, nullptr)) {}

UserPage& UserPage::operator=(UserPage&& other) noexcept {
  if (this != &other) {
    this->~UserPage();
    page_ = std::exchange(other.page_, nullptr);
  }
  return *this;
}

UserPage::~UserPage() {
  if (page_ != nullptr)
    ::munmap(const_cast<perf_event_mmap_page*>(page_), static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
}

bool UserPage::read(UserRead& out) const noexcept {
#if defined(PERFMON_NO_USER_READS)
  (void)out;
  return false;
#else
  // The kernel's recipe (include/uapi/linux/perf_event.h, perf_event_mmap_page): retry until the
  // sequence count is unchanged across the reads.
  const volatile perf_event_mmap_page* pc = page_;
  std::uint32_t sequence, index;
  std::uint64_t count, enabled, running, pmc = 0, cycles = 0, time_offset = 0, time_cycles = 0, time_mask = ~0ull;
  std::uint32_t time_mult = 0;
  std::uint16_t time_shift = 0, width = 0;
  bool user_time = false, user_time_short = false;
  do {
    sequence = pc->lock;
    asm volatile("" ::: "memory");
    enabled = pc->time_enabled;
    running = pc->time_running;
    // Time is extrapolated only when the event has been multiplexed (enabled != running), as
    // the kernel's recipe does: otherwise the scaling factor is 1 whatever the times.
    user_time = pc->cap_user_time && enabled != running;
    if (user_time) {
      cycles = read_timestamp();
      time_offset = pc->time_offset;
      time_mult = pc->time_mult;
      time_shift = pc->time_shift;
      user_time_short = pc->cap_user_time_short;
      if (user_time_short) {
        time_cycles = pc->time_cycles;
        time_mask = pc->time_mask;
      }
    }
    index = pc->index;
    count = pc->offset;
    if (!pc->cap_user_rdpmc || index == 0) return false;
    width = pc->pmc_width;
    pmc = read_counter(index - 1);
    asm volatile("" ::: "memory");
  } while (pc->lock != sequence);
  if (width == 0 || width > 64) width = 64;
  // The counter is pmc_width bits wide: sign-extend it, then add the kernel's offset.
  count += static_cast<std::uint64_t>(static_cast<std::int64_t>(pmc << (64 - width)) >> (64 - width));
  if (user_time) {
    if (user_time_short) cycles = time_cycles + ((cycles - time_cycles) & time_mask);
    const std::uint64_t delta = time_offset + scale_time(cycles, time_mult, time_shift);
    enabled += delta;
    running += delta;  // index != 0: the event is on a counter now
  }
  out = {count, enabled, running};
  return true;
#endif
}

void request_user_access(perf_event_attr& attr) noexcept {
#if defined(__aarch64__)
  attr.config1 |= 2;  // armv8_pmuv3 format "rdpmc": config1:1
#else
  (void)attr;
#endif
}

std::string user_access_unavailable_reason() {
#if defined(PERFMON_NO_USER_READS)
  return "this architecture has no user-mode counter reads in perfmon";
#else
#if defined(__aarch64__)
  std::string access = read_first_line("/proc/sys/kernel/perf_user_access");
  if (access != "1")
    return "kernel.perf_user_access is " + (access.empty() ? std::string("missing (kernel older than 5.17)") : access) +
           ": user mode may not read counters; 'sysctl kernel.perf_user_access=1' allows it";
#else
  std::string rdpmc = read_first_line("/sys/bus/event_source/devices/cpu/rdpmc");
  if (rdpmc.empty()) rdpmc = read_first_line("/sys/bus/event_source/devices/cpu_core/rdpmc");
  if (rdpmc.empty()) return "no core PMU exposes an rdpmc setting (no hardware PMU here)";
  if (rdpmc == "0")
    return "/sys/bus/event_source/devices/cpu/rdpmc is 0: rdpmc is disabled; write 1 there (as root) to allow it";
#endif
  return "";
#endif
}

}  // namespace perfmon::kernel
