/* SPDX-License-Identifier: Apache-2.0 */
/* likwid's Marker API for Fortran: the calls its `likwid` module (Debian's likwid.mod) makes, by
 * gfortran's convention: lower-case names with a trailing underscore, every argument by reference,
 * and each character argument's length passed after the others (a size_t since GCC 8). Fortran
 * pads a fixed-length string with blanks: a tag is the text before them. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fortran_string.h"

/* The C calls (marker.c). */
void likwid_markerInit(void);
void likwid_markerThreadInit(void);
void likwid_markerNextGroup(void);
void likwid_markerClose(void);
int likwid_markerRegisterRegion(const char* tag);
int likwid_markerStartRegion(const char* tag);
int likwid_markerStopRegion(const char* tag);
int likwid_markerResetRegion(const char* tag);
void likwid_markerGetRegion(const char* tag, int* nr_events, double* events, double* time, int* count);

void likwid_markerinit_(void) {
  likwid_markerInit();
}
void likwid_markerthreadinit_(void) {
  likwid_markerThreadInit();
}
void likwid_markernextgroup_(void) {
  likwid_markerNextGroup();
}
void likwid_markerclose_(void) {
  likwid_markerClose();
}

#define PERFMON_FORTRAN_TAG_CALL(fortran_name, c_call) \
  void fortran_name(const char* text, size_t length) { \
    char* tag = fortran_string(text, length);          \
    if (tag == NULL) return;                           \
    c_call(tag);                                       \
    free(tag);                                         \
  }
PERFMON_FORTRAN_TAG_CALL(likwid_markerregisterregion_, likwid_markerRegisterRegion)
PERFMON_FORTRAN_TAG_CALL(likwid_markerstartregion_, likwid_markerStartRegion)
PERFMON_FORTRAN_TAG_CALL(likwid_markerstopregion_, likwid_markerStopRegion)
PERFMON_FORTRAN_TAG_CALL(likwid_markerresetregion_, likwid_markerResetRegion)

void likwid_markergetregion_(const char* text, int* nr_events, double* events, double* time, int* count,
                             size_t length) {
  char* tag = fortran_string(text, length);
  if (tag == NULL) return;
  likwid_markerGetRegion(tag, nr_events, events, time, count);
  free(tag);
}
