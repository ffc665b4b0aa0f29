/* SPDX-License-Identifier: Apache-2.0 */
/* Solaris' <libpctx.h>: libcpc's pctx_capture and pctx_release are in perfmon's libcpc header. */
#include <perfmon/compat/libcpc.h>
