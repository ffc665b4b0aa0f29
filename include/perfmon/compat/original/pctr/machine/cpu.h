/* SPDX-License-Identifier: Apache-2.0 */
/* OpenBSD's <machine/cpu.h>, which pctr(4) asks programs to include: nothing of it is needed on
 * Linux, where pctr's types and macros are all in <machine/pctr.h>. */
#include <perfmon/compat/pctr.h>
