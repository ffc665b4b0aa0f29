/* SPDX-License-Identifier: Apache-2.0 */
/* perfmonctl(): the spec's single entry point (§3.1), dispatched to the calls of §6.1. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "machine.h"
#include "perfmon/compat/perfmon2.h"

static int one(void* arg, int narg, const char* command) {
  if (arg == NULL || narg != 1) return pfm2_fail(EINVAL, "%s takes one argument (narg 1)", command);
  return 0;
}

int perfmonctl(int fd, int cmd, void* arg, int narg) {
  switch (cmd) {
    case PFM_CREATE_CONTEXT:
      return one(arg, narg, "PFM_CREATE_CONTEXT") ? -1 : pfm_create_context(arg, narg);
    case PFM_WRITE_PMCS:
      return pfm_write_pmcs(fd, arg, narg);
    case PFM_WRITE_PMDS:
      return pfm_write_pmds(fd, arg, narg);
    case PFM_READ_PMDS:
      return pfm_read_pmds(fd, arg, narg);
    case PFM_START:
      if ((arg == NULL) != (narg == 0)) return pfm2_fail(EINVAL, "PFM_START takes no argument (narg 0) or one (1)");
      return pfm_start(fd, arg);
    case PFM_STOP:
      return pfm_stop(fd);
    case PFM_LOAD_CONTEXT:
      return one(arg, narg, "PFM_LOAD_CONTEXT") ? -1 : pfm_load_context(fd, arg);
    case PFM_UNLOAD_CONTEXT:
      return pfm_unload_context(fd);
    case PFM_RESTART:
      return pfm_restart(fd);
    case PFM_CREATE_EVTSETS:
      return pfm_create_evtsets(fd, arg, narg);
    case PFM_DELETE_EVTSETS:
      return pfm_delete_evtsets(fd, arg, narg);
    case PFM_GETINFO_EVTSETS:
      return pfm_getinfo_evtsets(fd, arg, narg);
    case PFM_GETINFO_PMCS:
      return pfm_getinfo_pmcs(arg, narg);
    case PFM_GETINFO_PMDS:
      return pfm_getinfo_pmds(arg, narg);
    case PFM_SET_CONFIG:
      return one(arg, narg, "PFM_SET_CONFIG") ? -1 : pfm_set_config(arg);
    case PFM_GET_CONFIG:
      return one(arg, narg, "PFM_GET_CONFIG") ? -1 : pfm_get_config(arg);
    default:
      return pfm2_fail(EINVAL, "perfmonctl has no command %d", cmd);
  }
}
