/* SPDX-License-Identifier: Apache-2.0 */
/* libpmc beyond pmcstat: the software class counted exactly (page faults split into reads and
 * writes), pmc_write/pmc_rw/pmc_detach semantics, the TSC, names, CPU information and libpmc's
 * errors. Exits non-zero, saying what failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perfmon/compat/pmc.h>

#include "../helpers/c_checks.h"

/* Writes (or reads) one byte of each of `pages` fresh pages: one page fault each. Not
 * instrumented, so that AddressSanitizer does not fault in shadow pages as well. */
__attribute__((noinline, no_sanitize_address)) static void touch(char* memory, size_t pages, size_t page, int write) {
  for (size_t i = 0; i < pages; ++i) {
    if (write)
      *(volatile char*)(memory + i * page) = 1;
    else
      (void)*(volatile char*)(memory + i * page);
  }
}

static char* fresh_pages(size_t pages, size_t page) {
  char* memory = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  madvise(memory, pages * page, MADV_NOHUGEPAGE);
  return memory;
}

static int has_page_fault_tracepoints(void) {
  return access("/sys/kernel/tracing/events/exceptions/page_fault_user", F_OK) == 0;
}

int main(void) {
  require_getppid_tracepoint();
  pmc_id_t id;
  CHECK(pmc_allocate("PAGE_FAULT.ALL", PMC_MODE_TC, 0, PMC_CPU_ANY, &id) == -1 && errno == ENXIO); /* before init */
  CHECK(pmc_init() == 0);
  CHECK(pmc_ncpu() >= 1 && pmc_npmc(0) >= 1 && pmc_npmc(-1) == -1);
  const struct pmc_cpuinfo* info;
  CHECK(pmc_cpuinfo(&info) == 0 && info->pm_nclass >= 1 && info->pm_classes[0].pm_class == PMC_CLASS_SOFT);
  CHECK(strcmp(pmc_name_of_class(PMC_CLASS_SOFT), "SOFT") == 0);
  CHECK(strcmp(pmc_name_of_mode(PMC_MODE_TC), "process-counting") == 0);
  CHECK(strcmp(pmc_name_of_event(PMC_EV_SOFT_PAGE_FAULT_WRITE), "PAGE_FAULT.WRITE") == 0);
  CHECK(strcmp(pmc_name_of_capability(PMC_CAP_READ), "READ") == 0 && pmc_name_of_capability(3) == NULL);
  CHECK(pmc_name_of_cputype(info->pm_cputype) != NULL);
  const char** names;
  int count;
  CHECK(pmc_event_names_of_class(PMC_CLASS_SOFT, &names, &count) == 0 && count == 6 &&
        strcmp(names[3], "PAGE_FAULT.ALL") == 0);
  free(names);
  CHECK(pmc_event_names_of_class(PMC_CLASS_IAP, &names, &count) == 0 && count > 100); /* pmc.core's table */
  free(names);

  /* libpmc's errors. */
  setenv("PMC_QUIET", "1", 1);
  CHECK(pmc_allocate("NO_SUCH_EVENT", PMC_MODE_TC, 0, PMC_CPU_ANY, &id) == -1 && errno == EINVAL);
  CHECK(pmc_allocate("CLOCK.STAT", PMC_MODE_TC, 0, PMC_CPU_ANY, &id) == -1 && errno == EOPNOTSUPP);
  CHECK(pmc_allocate("TSC", PMC_MODE_TC, 0, PMC_CPU_ANY, &id) == -1 && errno == EINVAL); /* system modes only */
  CHECK(pmc_allocate("PAGE_FAULT.ALL", PMC_MODE_SC, 0, PMC_CPU_ANY, &id) == -1 && errno == EINVAL); /* a CPU */
  CHECK(pmc_allocate("PAGE_FAULT.ALL", PMC_MODE_TC, 0x40000000, PMC_CPU_ANY, &id) == -1 &&
        errno == EINVAL); /* no such flag */
  CHECK(pmc_start(12345) == -1 && errno == EINVAL);
  unsetenv("PMC_QUIET");

  /* A process-virtual PMC on this process: exact, and written while stopped only. */
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  CHECK(pmc_allocate("syscalls:sys_enter_getppid", PMC_MODE_TC, 0, PMC_CPU_ANY, &id) == 0);
  uint32_t caps = 0, width = 0;
  CHECK(pmc_capabilities(id, &caps) == 0 && (caps & PMC_CAP_READ) && (caps & PMC_CAP_WRITE));
  CHECK(pmc_width(id, &width) == 0 && width == 64);
  CHECK(pmc_start(id) == 0); /* not attached: attached to this process, as hwpmc does */
  call_getppid(400);
  pmc_value_t value = 0, old = 0;
  CHECK(pmc_read(id, &value) == 0 && value == 400);
  CHECK(pmc_write(id, 5) == -1 && errno == EBUSY);
  CHECK(pmc_stop(id) == 0);
  CHECK(pmc_rw(id, 1000, &old) == 0 && old == 400);
  CHECK(pmc_start(id) == 0);
  call_getppid(25);
  CHECK(pmc_stop(id) == 0 && pmc_read(id, &value) == 0 && value == 1025);
  CHECK(pmc_attach(id, 0) == -1 && errno == EEXIST);
  CHECK(pmc_detach(id, 0) == 0 && pmc_read(id, &value) == 0 && value == 1025); /* kept after detaching */
  CHECK(pmc_release(id) == 0 && pmc_read(id, &value) == -1);

  /* The software class: page faults, split into writes and reads by the tracepoints' error code. */
  pmc_id_t all, reads, writes;
  CHECK(pmc_allocate("PAGE_FAULT.ALL", PMC_MODE_TC, 0, PMC_CPU_ANY, &all) == 0);
  if (has_page_fault_tracepoints()) {
    CHECK(pmc_allocate("page_fault.read", PMC_MODE_TC, 0, PMC_CPU_ANY, &reads) == 0); /* any case */
    CHECK(pmc_allocate("PAGE_FAULT.WRITE", PMC_MODE_TC, 0, PMC_CPU_ANY, &writes) == 0);
  }
  char* written = fresh_pages(100, page);
  char* read = fresh_pages(50, page);
  touch(fresh_pages(1, page), 1, page, 1); /* the first call of touch, out of the counts */
  /* A first round with nothing between start and stop faults in what starting and stopping touch
   * (under AddressSanitizer, shadow pages too); then the PMCs are written back to 0. */
  const int split = has_page_fault_tracepoints();
  for (int round = 0; round < 2; ++round) {
    CHECK(pmc_start(all) == 0);
    if (split) CHECK(pmc_start(reads) == 0 && pmc_start(writes) == 0);
    if (round == 1) {
      touch(written, 100, page, 1);
      touch(read, 50, page, 0);
    }
    if (split) CHECK(pmc_stop(writes) == 0 && pmc_stop(reads) == 0);
    CHECK(pmc_stop(all) == 0);
    if (round == 0)
      CHECK(pmc_write(all, 0) == 0 && (!split || (pmc_write(reads, 0) == 0 && pmc_write(writes, 0) == 0)));
  }
  CHECK(pmc_read(all, &value) == 0 && value == 150);
  if (split) {
    CHECK(pmc_read(reads, &value) == 0 && value == 50);
    CHECK(pmc_read(writes, &value) == 0 && value == 100);
    pmc_release(reads);
    pmc_release(writes);
  } else {
    printf("PAGE_FAULT.READ and .WRITE not tested: no exceptions:page_fault_user tracepoint here\n");
  }
  pmc_release(all);

  /* The TSC, system-wide on CPU 0. */
  if (pmc_allocate("TSC", PMC_MODE_SC, 0, 0, &id) == 0) {
    CHECK(pmc_start(id) == 0);
    usleep(1000);
    CHECK(pmc_stop(id) == 0 && pmc_read(id, &value) == 0 && value > 0);
    CHECK(pmc_attach(id, 0) == -1 && errno == EINVAL); /* a system-mode PMC is not attached */
    pmc_release(id);
  } else {
    printf("TSC not tested: %s\n", strerror(errno));
  }

  /* A sampling PMC needs the log. */
  setenv("PMC_QUIET", "1", 1);
  CHECK(pmc_allocate("page-faults", PMC_MODE_TS, 0, PMC_CPU_ANY, &id) == 0);
  CHECK(pmc_read(id, &value) == -1 && errno == EINVAL);
  CHECK(pmc_set(id, 0) == -1 && pmc_set(id, 10) == 0);
  CHECK(pmc_start(id) == -1 && errno == EINVAL); /* no log file */
  pmc_release(id);

  return checks_result();
}
