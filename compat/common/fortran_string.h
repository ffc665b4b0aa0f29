/* SPDX-License-Identifier: Apache-2.0 */
/* What the compat libraries with Fortran calls share: a Fortran string argument as a C string. */
#ifndef PERFMON_COMPAT_FORTRAN_STRING_H
#define PERFMON_COMPAT_FORTRAN_STRING_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Fortran pads a fixed-length string with blanks: the text before them, as a C string the caller
 * frees; NULL when memory runs out. */
static inline char* fortran_string(const char* text, size_t length) {
  while (length > 0 && text[length - 1] == ' ') --length;
  char* string = malloc(length + 1);
  if (string == NULL) return NULL;
  memcpy(string, text, length);
  string[length] = '\0';
  return string;
}

#endif
