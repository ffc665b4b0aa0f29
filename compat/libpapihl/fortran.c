/* SPDX-License-Identifier: Apache-2.0 */
/* PAPI's high-level API for Fortran (papif_hl_region_begin, _read, _end, _stop), as Debian's libpapi
 * has it and gfortran calls it: lower-case names with a trailing underscore, every argument by
 * reference, a character argument's length passed after the others (a size_t since GCC 8); the
 * status comes back in `check`. Fortran pads a fixed-length string with blanks: a region's name is
 * the text before them. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fortran_string.h"

/* papi.h's calls (papi_hl.c). */
int PAPI_hl_region_begin(const char* region);
int PAPI_hl_read(const char* region);
int PAPI_hl_region_end(const char* region);
int PAPI_hl_stop(void);

enum { kPapiEnomem = -2 };

#define PERFMON_PAPIF_REGION_CALL(fortran_name, c_call)            \
  void fortran_name(const char* text, int* check, size_t length) { \
    char* region = fortran_string(text, length);                   \
    *check = region == NULL ? kPapiEnomem : c_call(region);        \
    free(region);                                                  \
  }
PERFMON_PAPIF_REGION_CALL(papif_hl_region_begin_, PAPI_hl_region_begin)
PERFMON_PAPIF_REGION_CALL(papif_hl_read_, PAPI_hl_read)
PERFMON_PAPIF_REGION_CALL(papif_hl_region_end_, PAPI_hl_region_end)

void papif_hl_stop_(int* check) {
  *check = PAPI_hl_stop();
}
