/* SPDX-License-Identifier: Apache-2.0 */
/* Solaris' <libcpc.h>, for a program built with pkg-config libcpc's flags: perfmon's libcpc. */
#include <perfmon/compat/libcpc.h>
