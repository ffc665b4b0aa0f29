/* SPDX-License-Identifier: Apache-2.0 */
/* likwid's Marker API as perfmon's libperfmon-likwid provides it (docs/regions.md): the same macros
 * and functions as likwid's own <likwid-marker.h>, for machines without the likwid package. A
 * program built against either header links against -lperfmon-likwid and runs under
 * `perfmon stat --markers`. Without -DLIKWID_PERFMON every macro is empty. */
#ifndef PERFMON_LIKWID_MARKER_H
#define PERFMON_LIKWID_MARKER_H

#ifdef LIKWID_PERFMON
#ifdef __cplusplus
extern "C" {
#endif
void likwid_markerInit(void);
void likwid_markerThreadInit(void);
void likwid_markerNextGroup(void);
void likwid_markerClose(void);
int likwid_markerRegisterRegion(const char* regionTag);
int likwid_markerStartRegion(const char* regionTag);
int likwid_markerStopRegion(const char* regionTag);
int likwid_markerResetRegion(const char* regionTag);
void likwid_markerGetRegion(const char* regionTag, int* nr_events, double* events, double* time, int* count);
#ifdef __cplusplus
}
#endif
#define LIKWID_MARKER_INIT likwid_markerInit()
#define LIKWID_MARKER_THREADINIT likwid_markerThreadInit()
#define LIKWID_MARKER_SWITCH likwid_markerNextGroup()
#define LIKWID_MARKER_REGISTER(regionTag) likwid_markerRegisterRegion(regionTag)
#define LIKWID_MARKER_START(regionTag) likwid_markerStartRegion(regionTag)
#define LIKWID_MARKER_STOP(regionTag) likwid_markerStopRegion(regionTag)
#define LIKWID_MARKER_CLOSE likwid_markerClose()
#define LIKWID_MARKER_RESET(regionTag) likwid_markerResetRegion(regionTag)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count) \
  likwid_markerGetRegion(regionTag, nevents, events, time, count)
#else
#define LIKWID_MARKER_INIT
#define LIKWID_MARKER_THREADINIT
#define LIKWID_MARKER_SWITCH
#define LIKWID_MARKER_REGISTER(regionTag)
#define LIKWID_MARKER_START(regionTag)
#define LIKWID_MARKER_STOP(regionTag)
#define LIKWID_MARKER_CLOSE
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count)
#define LIKWID_MARKER_RESET(regionTag)
#endif

#endif
