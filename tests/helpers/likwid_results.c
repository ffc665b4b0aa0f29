/* SPDX-License-Identifier: Apache-2.0 */
/* likwid's utilities and in-process results, built against Debian's likwid.h: the thread pinned to
 * CPU 1 and asked where it runs, a region of 100 getppid calls, the marker file written by
 * likwid_markerWriteFile (argv[1]) while the Marker API is on, then read back with
 * perfmon_readMarkerFile and the perfmon_get*OfRegion calls, as likwid's C-internalMarkerAPI.c does;
 * then, where argv[2] is given, what perfmon_readMarkerFile answers for it (a FIFO). */
#include <likwid-marker.h>
#include <likwid.h>
#include <stdio.h>
#include <unistd.h>

/* likwid 5.3's, not in Debian's 5.2 header. */
extern int likwid_markerWriteFile(const char* markerfile);

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) return 2;
  LIKWID_MARKER_INIT;
  const int pinned = likwid_pinThread(1);
  const int cpu = likwid_getProcessorId();
  LIKWID_MARKER_START("pinned");
  for (int i = 0; i < 100; ++i) getppid();
  LIKWID_MARKER_STOP("pinned");
  const int written = likwid_markerWriteFile(argv[1]);
  printf("pin %d cpu %d write %d\n", pinned, cpu, written);
  LIKWID_MARKER_CLOSE;
  if (perfmon_readMarkerFile(argv[1]) != 0) return 3;
  printf("regions %d\n", perfmon_getNumberOfRegions());
  for (int r = 0; r < perfmon_getNumberOfRegions(); ++r)
    printf("region %s group %d threads %d events %d count %d value %.0f\n", perfmon_getTagOfRegion(r),
           perfmon_getGroupOfRegion(r), perfmon_getThreadsOfRegion(r), perfmon_getEventsOfRegion(r),
           perfmon_getCountOfRegion(r, 0), perfmon_getResultOfRegionThread(r, 0, 0));
  perfmon_destroyMarkerResults();
  if (argc == 3) printf("read %s: %d\n", argv[2], perfmon_readMarkerFile(argv[2]));
  return 0;
}
