/* SPDX-License-Identifier: Apache-2.0 */
/* FreeBSD's <pmc.h>, for a program built with pkg-config libpmc's flags: perfmon's libpmc. */
#include <perfmon/compat/pmc.h>
