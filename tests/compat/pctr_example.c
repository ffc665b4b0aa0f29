/* SPDX-License-Identifier: Apache-2.0 */
/* The seed's usage of pctr(4) (openbsd-pctr.4.txt), built against perfmon's libpctr: timing a
 * subroutine with rdtsc(), then counting it with a programmed counter, read with rdpmc() in user
 * mode and with the PCIOCRD ioctl. It includes what pctr(4) asks for
 * (<sys/types.h>, <machine/cpu.h>, <machine/pctr.h>, from pkg-config libpctr's directory of the
 * seeds' header names); what differs from an OpenBSD program is linking with -lpctr.
 *
 *   pctr_example [FUNCTION [N]]   FUNCTION: a counter function word (default: the TSC part only)
 *
 * functionx(n) runs a loop of exactly 2n instructions, so that the counts of n and 2n differ by 2n. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <sys/types.h>
#include <machine/cpu.h>
#include <machine/pctr.h>

#include "../helpers/exact_loop.h"

__attribute__((noinline)) static void functionx(unsigned long n) { exact_loop(n); }

int main(int argc, char** argv) {
  pctrval tsc;

  tsc = rdtsc();
  functionx(1000000);
  tsc = rdtsc() - tsc;
  printf("Functionx took %llu cycles.\n", (unsigned long long)tsc);
  if (argc < 2) return 0;

  const unsigned int function = (unsigned int)strtoul(argv[1], NULL, 0);
  const unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000;
  int fd = open("/dev/pctr", O_RDWR);
  if (fd < 0 || ioctl(fd, PCIOCS0, &function) != 0) {
    printf("pctr: cannot count function 0x%x: %s\n", function, strerror(errno));
    return 0;
  }
  unsigned long long by_rdpmc[2], by_ioctl[2];
  for (int k = 0; k < 2; ++k) {
    const unsigned long iterations = n * (unsigned long)(k + 1);
    pctrval before = rdpmc(0);
    functionx(iterations);
    by_rdpmc[k] = rdpmc(0) - before;
    struct pctrst first, second;
    ioctl(fd, PCIOCRD, &first);
    functionx(iterations);
    ioctl(fd, PCIOCRD, &second);
    by_ioctl[k] = second.pctr_hwc[0] - first.pctr_hwc[0];
    printf("n=%lu: rdpmc %llu, PCIOCRD %llu (tsc %llu)\n", iterations, by_rdpmc[k], by_ioctl[k],
           (unsigned long long)(second.pctr_tsc - first.pctr_tsc));
  }
  printf("rdpmc difference %llu, PCIOCRD difference %llu, rdpmc %s\n", by_rdpmc[1] - by_rdpmc[0],
         by_ioctl[1] - by_ioctl[0], pctr_user_mode_reads(0) ? "in user mode" : "through read(2)");
  close(fd);
  return 0;
}
