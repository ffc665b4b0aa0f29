/* SPDX-License-Identifier: Apache-2.0 */
/* What the compat libraries that write JSON share: a name as a JSON string. */
#ifndef PERFMON_COMPAT_JSON_STRING_H
#define PERFMON_COMPAT_JSON_STRING_H

#include <stddef.h>
#include <stdio.h>

/* The length of the well-formed UTF-8 sequence at `c` (Unicode's table 3-7), 0 where there is none. */
static inline size_t json_utf8_length(const unsigned char* c) {
  const unsigned b = c[0];
#define JSON_IN(x, low, high) ((x) >= (low) && (x) <= (high))
  if (b <= 0x7f) return 1;
  if (JSON_IN(b, 0xc2, 0xdf)) return JSON_IN(c[1], 0x80, 0xbf) ? 2 : 0;
  if (b == 0xe0) return JSON_IN(c[1], 0xa0, 0xbf) && JSON_IN(c[2], 0x80, 0xbf) ? 3 : 0;
  if (JSON_IN(b, 0xe1, 0xec) || JSON_IN(b, 0xee, 0xef))
    return JSON_IN(c[1], 0x80, 0xbf) && JSON_IN(c[2], 0x80, 0xbf) ? 3 : 0;
  if (b == 0xed) return JSON_IN(c[1], 0x80, 0x9f) && JSON_IN(c[2], 0x80, 0xbf) ? 3 : 0;
  if (b == 0xf0) return JSON_IN(c[1], 0x90, 0xbf) && JSON_IN(c[2], 0x80, 0xbf) && JSON_IN(c[3], 0x80, 0xbf) ? 4 : 0;
  if (JSON_IN(b, 0xf1, 0xf3))
    return JSON_IN(c[1], 0x80, 0xbf) && JSON_IN(c[2], 0x80, 0xbf) && JSON_IN(c[3], 0x80, 0xbf) ? 4 : 0;
  if (b == 0xf4) return JSON_IN(c[1], 0x80, 0x8f) && JSON_IN(c[2], 0x80, 0xbf) && JSON_IN(c[3], 0x80, 0xbf) ? 4 : 0;
  return 0;
#undef JSON_IN
}

/* `text` quoted, its quotes, backslashes and control characters escaped. JSON is UTF-8: a byte
 * that is not part of a well-formed sequence (a name in Latin-1, say) is written as U+FFFD, so that
 * one odd name never makes the whole file unreadable. The bytes after the NUL are never read: a
 * sequence cut short by it is malformed at its NUL. */
static inline void write_json_string(FILE* out, const char* text) {
  fputc('"', out);
  for (const unsigned char* c = (const unsigned char*)text; *c != '\0';) {
    const size_t length = json_utf8_length(c);
    if (length == 0) {
      fputs("\\ufffd", out);
      ++c;
    } else if (*c == '"' || *c == '\\') {
      fprintf(out, "\\%c", *c++);
    } else if (*c < 0x20) {
      fprintf(out, "\\u%04x", *c++);
    } else {
      fwrite(c, 1, length, out);
      c += length;
    }
  }
  fputc('"', out);
}

#endif
