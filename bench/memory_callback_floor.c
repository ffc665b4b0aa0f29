/* SPDX-License-Identifier: Apache-2.0 */
/* The least a QEMU plugin can spend on seeing every load and store: a memory callback that does
 * nothing but count. What perfmon's cache model costs can only be added to this
 * (bench/emulated_vs_valgrind.sh, docs/benchmarks.md). Built against the same declarations of
 * the plugin API as perfmon's plugin (emulate/qemu_plugin_api.h). */
#include <stdio.h>

#include "qemu_plugin_api.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;
static unsigned long accesses;

static void accessed(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t address, void* data) {
  (void)vcpu_index, (void)info, (void)address, (void)data;
  ++accesses;
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  for (size_t k = 0; k < qemu_plugin_tb_n_insns(tb); ++k)
    qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, k), accessed, QEMU_PLUGIN_CB_NO_REGS,
                                     QEMU_PLUGIN_MEM_RW, NULL);
}

static void exited(qemu_plugin_id_t id, void* data) {
  (void)id, (void)data;
  fprintf(stderr, "memory_callback_floor: %lu loads and stores\n", accesses);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                                               char** argv) {
  (void)info, (void)argc, (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
  qemu_plugin_register_atexit_cb(id, exited, NULL);
  return 0;
}
