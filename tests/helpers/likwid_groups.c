/* SPDX-License-Identifier: Apache-2.0 */
/* likwid's group-definition calls, built against Debian's likwid.h: LIKWID_EVENTS names likwid
 * groups (or an event set), LIKWID_MARKER_INIT opens them; per group, a region of 100 * (group + 1)
 * getppid calls, then what perfmon_getGroupName, _getEventName, _getCounterName, _getResult,
 * _getMetricName and _getMetric say of it; LIKWID_MARKER_SWITCH to the next; after
 * LIKWID_MARKER_CLOSE, the marker file read back with each region's metrics. */
#include <likwid-marker.h>
#include <likwid.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
  LIKWID_MARKER_INIT;
  const int groups = perfmon_getNumberOfGroups();
  for (int g = 0; g < groups; ++g) {
    LIKWID_MARKER_START("calls");
    for (int i = 0; i < 100 * (g + 1); ++i) getppid();
    LIKWID_MARKER_STOP("calls");
    const int gid = perfmon_getIdOfActiveGroup();
    printf("group %d %s: %d events, %d metrics\n", gid, perfmon_getGroupName(gid), perfmon_getNumberOfEvents(gid),
           perfmon_getNumberOfMetrics(gid));
    for (int e = 0; e < perfmon_getNumberOfEvents(gid); ++e) {
      const char* counter = perfmon_getCounterName(gid, e);
      printf("  %s on %s: %.0f\n", perfmon_getEventName(gid, e), counter != NULL ? counter : "-",
             perfmon_getResult(gid, e, 0));
    }
    for (int m = 0; m < perfmon_getNumberOfMetrics(gid); ++m)
      if (perfmon_getMetricName(gid, m)[0] != 'R') /* not the runtime, which varies */
        printf("  %s = %.3f\n", perfmon_getMetricName(gid, m), perfmon_getMetric(gid, m, 0));
    LIKWID_MARKER_SWITCH;
  }
  LIKWID_MARKER_CLOSE;
  if (perfmon_readMarkerFile(getenv("LIKWID_FILEPATH")) != 0) return 3;
  for (int r = 0; r < perfmon_getNumberOfRegions(); ++r) {
    const int gid = perfmon_getGroupOfRegion(r);
    printf("region %s in %s: %d metrics", perfmon_getTagOfRegion(r), perfmon_getGroupName(gid),
           perfmon_getMetricsOfRegion(r));
    for (int m = 0; m < perfmon_getMetricsOfRegion(r); ++m)
      if (perfmon_getMetricName(gid, m)[0] != 'R') printf(", %.3f", perfmon_getMetricOfRegionThread(r, m, 0));
    printf("\n");
  }
  perfmon_destroyMarkerResults();
  return 0;
}
