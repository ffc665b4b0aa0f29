/* What the compat libraries that write JSON share: a name as a JSON string. */
#ifndef PERFMON_COMPAT_JSON_STRING_H
#define PERFMON_COMPAT_JSON_STRING_H

#include <stdio.h>

/* `text` quoted, its quotes, backslashes and control characters escaped. */
static inline void write_json_string(FILE* out, const char* text) {
  fputc('"', out);
  for (const unsigned char* c = (const unsigned char*)text; *c != '\0'; ++c) {
    if (*c == '"' || *c == '\\')
      fprintf(out, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(out, "\\u%04x", *c);
    else
      fputc(*c, out);
  }
  fputc('"', out);
}

#endif
