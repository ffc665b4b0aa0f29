/* SPDX-License-Identifier: Apache-2.0 */
/* Example 1 of the seed (solaris-cpc_bind_event.3cpc.txt), as Solaris printed it, built against
 * perfmon's libcpc. Its include is the man page's own, <libcpc.h> (pkg-config libcpc adds the
 * directory of the seeds' header names). What differs from the man page, and why (docs/compat.md):
 *   - the braces that the man page's HTML conversion lost, and `int` before main;
 *   - <errno.h> and <string.h>, which the example uses without including;
 *   - error(), which the man page assumes the program provides;
 *   - `iter != 21`: the man page's `iter != 20` fails after 20 good iterations;
 *   - the computation: `iter` thousand getppid calls, so that the counts are known exactly. */
/* clang-format off: the man page's own layout. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <libcpc.h>

static void error(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  vfprintf(stderr, format, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

static void computation(int iter) {
  for (int i = 0; i < iter * 1000; i++) syscall(SYS_getppid);
}

int
main(int argc, char *argv[])
{
	int cpuver, iter;
	char *setting = NULL;
	cpc_event_t event;

	(void) argc;
	(void) argv;
	if (cpc_version(CPC_VER_CURRENT) != CPC_VER_CURRENT)
		error("application:library cpc version mismatch!");

	if ((cpuver = cpc_getcpuver()) == -1)
		error("no performance counter hardware!");

	if ((setting = getenv("PERFEVENTS")) == NULL)
		setting = "pic0=EC_ref,pic1=EC_hit";

	if (cpc_strtoevent(cpuver, setting, &event) != 0)
		error("can't measure '%s' on this processor", setting);
	setting = cpc_eventtostr(&event);

	if (cpc_access() == -1)
		error("can't access perf counters: %s", strerror(errno));

	if (cpc_bind_event(&event, 0) == -1)
		error("can't bind lwp%d: %s", _lwp_self(), strerror(errno));

	for (iter = 1; iter <= 20; iter++) {
		cpc_event_t before, after;

		if (cpc_take_sample(&before) == -1)
			break;

		/* ==> Computation to be measured goes here <== */
		computation(iter);

		if (cpc_take_sample(&after) == -1)
			break;
		(void) printf("%3d: %" PRId64 " %" PRId64 "\n", iter,
		    after.ce_pic[0] - before.ce_pic[0],
		    after.ce_pic[1] - before.ce_pic[1]);
	}

	if (iter != 21)
		error("can't sample '%s': %s", setting, strerror(errno));

	return (0);
}
