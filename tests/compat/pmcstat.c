/* SPDX-License-Identifier: Apache-2.0 */
/* A small pmcstat(8) over libpmc: counts (and samples) a command as FreeBSD's pmcstat does.
 *
 *   pmcstat [-p SPEC]... [-s SPEC]... [-P SPEC] [-n COUNT] [-O FILE] [-d] -- COMMAND [ARG...]
 *
 * -p counts SPEC in the command (PMC_MODE_TC, attached before it runs), -s counts it on every CPU
 * while the command runs (PMC_MODE_SC, summed), -P samples it every COUNT events (PMC_MODE_TS) into
 * FILE, a perf.data file; -d follows the command's children (PMC_F_DESCENDANTS). At the end, one
 * line per PMC: "p/SPEC VALUE" or "s/SPEC VALUE". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmc.h> /* FreeBSD's name: pkg-config libpmc adds its directory */

#define MAX_PMCS 64

typedef struct counted {
  char kind;
  const char* spec;
  pmc_id_t ids[MAX_PMCS]; /* one per CPU for -s */
  int count;
} counted;

static void die(const char* what) {
  fprintf(stderr, "pmcstat: %s: %s\n", what, strerror(errno));
  exit(1);
}

int main(int argc, char** argv) {
  counted pmcs[MAX_PMCS];
  int npmcs = 0, descendants = 0, option;
  const char* sampled = NULL;
  const char* output = "pmcstat.data";
  pmc_value_t reload = 65536;
  while ((option = getopt(argc, argv, "p:s:P:n:O:d")) != -1) {
    switch (option) {
      case 'p':
      case 's':
        if (npmcs == MAX_PMCS) return 2;
        pmcs[npmcs++] = (counted){(char)option, optarg, {0}, 0};
        break;
      case 'P':
        sampled = optarg;
        break;
      case 'n':
        reload = strtoull(optarg, NULL, 10);
        break;
      case 'O':
        output = optarg;
        break;
      case 'd':
        descendants = 1;
        break;
      default:
        return 2;
    }
  }
  if (optind >= argc || (npmcs == 0 && sampled == NULL)) {
    fprintf(stderr, "usage: pmcstat [-p SPEC]... [-s SPEC]... [-P SPEC [-n COUNT] [-O FILE]] [-d] -- COMMAND\n");
    return 2;
  }
  if (pmc_init() != 0) die("pmc_init");

  /* The command, held at a pipe until its PMCs are attached. */
  int go[2];
  if (pipe(go) != 0) die("pipe");
  const pid_t child = fork();
  if (child == 0) {
    char byte;
    close(go[1]);
    if (read(go[0], &byte, 1) != 1) _exit(127);
    execvp(argv[optind], argv + optind);
    fprintf(stderr, "pmcstat: %s: %s\n", argv[optind], strerror(errno));
    _exit(127);
  }
  close(go[0]);

  const uint32_t flags = descendants ? PMC_F_DESCENDANTS : 0;
  for (int k = 0; k < npmcs; ++k) {
    counted* c = &pmcs[k];
    if (c->kind == 'p') {
      if (pmc_allocate(c->spec, PMC_MODE_TC, flags, PMC_CPU_ANY, &c->ids[0]) != 0) die(c->spec);
      if (pmc_attach(c->ids[0], child) != 0) die("pmc_attach");
      c->count = 1;
    } else {
      for (int cpu = 0; cpu < pmc_ncpu() && cpu < MAX_PMCS; ++cpu) {
        if (pmc_allocate(c->spec, PMC_MODE_SC, 0, cpu, &c->ids[cpu]) != 0) die(c->spec);
        c->count = cpu + 1;
      }
    }
  }
  pmc_id_t sampler = PMC_ID_INVALID;
  int log_fd = -1;
  if (sampled != NULL) {
    log_fd = open(output, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (log_fd < 0) die(output);
    if (pmc_configure_logfile(log_fd) != 0) die("pmc_configure_logfile");
    if (pmc_allocate(sampled, PMC_MODE_TS, flags, PMC_CPU_ANY, &sampler) != 0) die(sampled);
    if (pmc_set(sampler, reload) != 0) die("pmc_set");
    if (pmc_attach(sampler, child) != 0) die("pmc_attach");
    if (pmc_start(sampler) != 0) die("pmc_start");
  }
  for (int k = 0; k < npmcs; ++k)
    for (int i = 0; i < pmcs[k].count; ++i)
      if (pmc_start(pmcs[k].ids[i]) != 0) die("pmc_start");

  if (write(go[1], "x", 1) != 1) die("write");
  int status = 0;
  if (waitpid(child, &status, 0) != child) die("waitpid");

  for (int k = 0; k < npmcs; ++k) {
    pmc_value_t total = 0;
    for (int i = 0; i < pmcs[k].count; ++i) {
      pmc_value_t value;
      if (pmc_stop(pmcs[k].ids[i]) != 0 || pmc_read(pmcs[k].ids[i], &value) != 0) die("pmc_read");
      total += value;
      pmc_release(pmcs[k].ids[i]);
    }
    printf("%c/%s %llu\n", pmcs[k].kind, pmcs[k].spec, (unsigned long long)total);
  }
  if (sampled != NULL) {
    if (pmc_stop(sampler) != 0 || pmc_release(sampler) != 0) die("pmc_release");
    if (pmc_close_logfile() != 0) die("pmc_close_logfile");
    close(log_fd);
    printf("P/%s sampled into %s\n", sampled, output);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
