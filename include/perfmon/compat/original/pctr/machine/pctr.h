/* SPDX-License-Identifier: Apache-2.0 */
/* OpenBSD's <machine/pctr.h>, for a program built with pkg-config libpctr's flags: perfmon's libpctr. */
#include <perfmon/compat/pctr.h>
