/* SPDX-License-Identifier: Apache-2.0 */
/* Counting from C through perfmon's C ABI (perfmon/perfmon.h): the page faults and task-clock of
 * touching memory, with the error sentence when something is refused.
 *
 *   cc -std=c11 count_in_c.c $(pkg-config --cflags --libs perfmon-c) && ./a.out 'page-faults,task-clock'
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmon/perfmon.h"

int main(int argc, char** argv) {
  const char* events = argc > 1 ? argv[1] : "page-faults,task-clock";
  perfmon_catalog* catalog = perfmon_catalog_new();
  perfmon_target self = {PERFMON_TARGET_SELF, 0, NULL, 0};
  perfmon_session* session;
  if (catalog == NULL || perfmon_session_open(catalog, events, &self, NULL, &session) != 0) {
    fprintf(stderr, "count_in_c: %s\n", perfmon_last_error());
    return 1;
  }
  perfmon_session_start(session);
  size_t size = 64 << 20;
  char* memory = malloc(size);
  if (memory != NULL) memset(memory, 1, size); /* one page fault per page touched */
  perfmon_session_stop(session);
  perfmon_session_read(session);
  for (size_t i = 0; i < perfmon_session_event_count(session); ++i) {
    perfmon_value value;
    perfmon_session_value(session, i, &value);
    if (perfmon_session_supported(session, i))
      printf("%20.0f  %s\n", value.scaled, perfmon_session_event_name(session, i));
    else
      printf("%20s  %s: %s\n", "<not supported>", perfmon_session_event_name(session, i),
             perfmon_session_unsupported_reason(session, i));
  }
  free(memory);
  perfmon_session_close(session);
  perfmon_catalog_free(catalog);
  return 0;
}
