/* SPDX-License-Identifier: Apache-2.0 */
/* perfmon2's <perfmon/perfmon_dfl_smpl.h>: the default sampling format's structures are in
 * perfmon's libperfmon2 header. */
#include <perfmon/compat/perfmon2.h>
