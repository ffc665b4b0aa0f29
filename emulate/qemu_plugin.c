/* perfmon's QEMU TCG plugin: counts the instructions a program runs under qemu-user, per guest
 * thread (QEMU's vCPU index) and in total, exactly: each translated block adds its number of
 * instructions when it executes. At exit it writes the counts to the file its `out=` argument
 * names, one line per thread that ran ("thread VCPU INSTRUCTIONS") and a total line ("total
 * INSTRUCTIONS"), written whole to a temporary name and renamed.
 *
 *   qemu-x86_64 -plugin libperfmon-qemu-plugin.so,out=/tmp/counts PROGRAM ARGS... */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qemu_plugin_api.h"

#define EXPORT __attribute__((visibility("default")))

/* The API version this plugin is written against: QEMU refuses to load it outside its range. */
EXPORT int qemu_plugin_version = 1;

/* Threads beyond this many share the last counter. Each counter is on its own cache line, as
 * each guest thread runs on its own host thread. */
#define MAX_THREADS 1024
static struct { _Alignas(64) _Atomic uint64_t instructions; } counters[MAX_THREADS];
static char* out_path;

static void block_executed(unsigned int vcpu_index, void* instructions) {
  const unsigned index = vcpu_index < MAX_THREADS ? vcpu_index : MAX_THREADS - 1;
  atomic_fetch_add_explicit(&counters[index].instructions, (uint64_t)(uintptr_t)instructions, memory_order_relaxed);
}

static void block_translated(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_cb(tb, block_executed, QEMU_PLUGIN_CB_NO_REGS,
                                       (void*)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

static void write_counts(qemu_plugin_id_t id, void* unused) {
  (void)id;
  (void)unused;
  char temporary[4096];
  if (snprintf(temporary, sizeof temporary, "%s.%d.tmp", out_path, (int)getpid()) >= (int)sizeof temporary) return;
  FILE* file = fopen(temporary, "w");
  if (file == NULL) {
    fprintf(stderr, "perfmon's QEMU plugin: cannot write %s: %s\n", temporary, strerror(errno));
    return;
  }
  uint64_t total = 0;
  for (unsigned k = 0; k < MAX_THREADS; ++k) {
    const uint64_t n = atomic_load(&counters[k].instructions);
    if (n == 0) continue;
    fprintf(file, "thread %u %llu\n", k, (unsigned long long)n);
    total += n;
  }
  fprintf(file, "total %llu\n", (unsigned long long)total);
  if (fclose(file) != 0 || rename(temporary, out_path) != 0) {
    fprintf(stderr, "perfmon's QEMU plugin: cannot write %s: %s\n", out_path, strerror(errno));
    remove(temporary);
  }
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc, char** argv) {
  if (info->version.min > qemu_plugin_version || info->version.cur < qemu_plugin_version) {
    fprintf(stderr,
            "perfmon's QEMU plugin speaks plugin API version %d; this QEMU takes versions %d to %d: "
            "install the qemu-user that perfmon was built for.\n",
            qemu_plugin_version, info->version.min, info->version.cur);
    return -1;
  }
  for (int k = 0; k < argc; ++k)
    if (strncmp(argv[k], "out=", 4) == 0) out_path = strdup(argv[k] + 4);
  if (out_path == NULL || out_path[0] == '\0') {
    fprintf(stderr, "perfmon's QEMU plugin needs out=FILE, where it writes the counts.\n");
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, block_translated);
  qemu_plugin_register_atexit_cb(id, write_counts, NULL);
  return 0;
}
