/* SPDX-License-Identifier: Apache-2.0 */
/* perfmon2's <perfmon/perfmon.h>, for a program built with pkg-config libperfmon2's flags:
 * perfmon's libperfmon2. (Elsewhere <perfmon/perfmon.h> is perfmon's own C header: see
 * perfmon/compat/original/README.md.) */
#include <perfmon/compat/perfmon2.h>
