/* SPDX-License-Identifier: Apache-2.0 */
/* What the compat libraries' overflow handlers share: installing one, for a signal with its
 * siginfo_t (si_fd names the event that overflowed). */
#ifndef PERFMON_COMPAT_SIGNAL_HANDLER_H
#define PERFMON_COMPAT_SIGNAL_HANDLER_H

#include <errno.h>
#include <signal.h>
#include <string.h>

/* Installs `handler` for `signo`, with system calls restarted and `also_blocked` (0: none) blocked
 * while it runs. 0, or errno. */
static inline int install_siginfo_handler(int signo, void (*handler)(int, siginfo_t*, void*), int also_blocked) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (also_blocked != 0) sigaddset(&action.sa_mask, also_blocked);
  return sigaction(signo, &action, NULL) == 0 ? 0 : errno;
}

#endif
