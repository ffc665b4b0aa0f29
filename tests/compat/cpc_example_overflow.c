/* SPDX-License-Identifier: Apache-2.0 */
/* Example 2 of the seed (solaris-cpc_bind_event.3cpc.txt): the overflow handler that re-presets
 * and re-binds, and its setup, built against perfmon's libcpc. What differs from the man page, and
 * why (docs/compat.md): the lost braces; error(); the headers it uses without
 * including; `%pc`/`%sp` read from Linux's ucontext (gregs[REG_RIP]/[REG_RSP] on x86-64, pc/sp on
 * arm64) where Solaris names them gregs[PC]/[USP]; the computation, 1000 getppid calls, so that
 * counter zero, preset 1000 short of overflowing, overflows exactly once per iteration. */
/* clang-format off: the man page's own layout. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ucontext.h>
#include <unistd.h>
#include <libcpc.h>

#define PRESET0        (UINT64_MAX - UINT64_C(999))
#define PRESET1        0

static void error(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  vfprintf(stderr, format, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

#if defined(__x86_64__)
#define UC_PC(uap) ((uap)->uc_mcontext.gregs[REG_RIP])
#define UC_SP(uap) ((uap)->uc_mcontext.gregs[REG_RSP])
#else
#define UC_PC(uap) ((uap)->uc_mcontext.pc)
#define UC_SP(uap) ((uap)->uc_mcontext.sp)
#endif

static int overflows;

static void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	ucontext_t *uap = arg;
	cpc_event_t sample;

	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		psignal(sig, "example");
		psiginfo(sip, "example");
		return;
	}

	(void) printf("lwp%d - si_addr %p ucontext: %%pc %p %%sp %p\n",
	    _lwp_self(), (void *)sip->si_addr,
	    (void *)UC_PC(uap),
	    (void *)UC_SP(uap));

	if (cpc_take_sample(&sample) == -1)
		error("can't sample: %s", strerror(errno));

	(void) printf("0x%" PRIx64 " 0x%" PRIx64 "\n",
	    sample.ce_pic[0], sample.ce_pic[1]);
	(void) fflush(stdout);
	++overflows;

	sample.ce_pic[0] = PRESET0;
	sample.ce_pic[1] = PRESET1;
	if (cpc_bind_event(&sample, CPC_BIND_EMT_OVF) == -1)
		error("cannot bind lwp%d: %s", _lwp_self(), strerror(errno));
}

int
main(void)
{
	int cpuver, iter;
	char *setting = NULL;
	cpc_event_t event;

	if ((cpuver = cpc_getcpuver()) == -1)
		error("no performance counter hardware!");
	if ((setting = getenv("PERFEVENTS")) == NULL)
		setting = "pic0=EC_ref,pic1=EC_hit";
	if (cpc_strtoevent(cpuver, setting, &event) != 0)
		error("can't measure '%s' on this processor", setting);

	struct sigaction act;
	act.sa_sigaction = emt_handler;
	bzero(&act.sa_mask, sizeof (act.sa_mask));
	act.sa_flags = SA_RESTART|SA_SIGINFO;
	if (sigaction(SIGEMT, &act, NULL) == -1)
		error("sigaction: %s", strerror(errno));
	event.ce_pic[0] = PRESET0;
	event.ce_pic[1] = PRESET1;
	if (cpc_bind_event(&event, CPC_BIND_EMT_OVF) == -1)
		error("cannot bind lwp%d: %s", _lwp_self(), strerror(errno));

	for (iter = 1; iter <= 20; iter++) {
		/* ==> Computation to be measured goes here <== */
		for (int i = 0; i < 1000; i++) syscall(SYS_getppid);
	}

	cpc_bind_event(NULL, 0);	/* done */
	printf("%d overflows in %d iterations\n", overflows, iter - 1);
	return (0);
}
