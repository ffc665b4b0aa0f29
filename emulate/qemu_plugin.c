/* SPDX-License-Identifier: Apache-2.0 */
/* perfmon's QEMU TCG plugin: counts the instructions a command runs under qemu-user, exactly, in
 * the counters file the library created (counters_abi.h). Each translated block adds its number of
 * instructions when it executes, to the slot of the guest thread that runs it.
 *
 *   qemu-x86_64 -plugin libperfmon-qemu-plugin.so,counters=FILE[,qemu=QEMU][,branches=on][,memory=on]
 *       [,predict=on][,caches=on][,samples=FILE,period=N[,callchains=on][,comm=NAME]] PROGRAM ARGS...
 *
 * branches=on also counts branches by kind, decoded from the instructions as they are translated;
 * memory=on counts loads and stores, with a call per access; predict=on runs a branch predictor
 * model and counts its mispredictions; caches=on runs a cache model and counts its misses;
 * samples= and period= take a sample every N instructions of each thread into FILE, as perf's
 * records (counters_abi.h), with callchains=on its callchain, its threads named NAME.
 *
 * A thread of the program reads its own counts with a system call that the plugin answers
 * (counters_abi.h): the library's sessions measure regions of the program that way.
 *
 * The whole command is counted: a process the program forks maps the same file, and with qemu=
 * an exec of a program of the same architecture (or a script whose interpreter is one) runs under
 * QEMU and this plugin again, before the guest's own exec would have run it natively. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "counters_abi.h"
#include "plugin.h"
#include "program_file.h"
#include "qemu_plugin_api.h"

#define EXPORT __attribute__((visibility("default")))

/* The API version this plugin is written against: QEMU refuses to load it outside its range. */
EXPORT int qemu_plugin_version = 1;

/* Where QEMU's user mode puts guest memory in its own address space (guest address + guest_base).
 * Not part of the plugin API: a QEMU that does not export it has its execs run natively, and the
 * library says so. */
extern uintptr_t guest_base __attribute__((weak));

struct perfmon_emulate_counters* counters;
static char* plugin_argument;  /* -plugin's argument again: path,counters=...,qemu=... */
static char* qemu_path;        /* qemu= : execs are followed only with it */
static uint16_t guest_machine; /* ELF e_machine of the guest: what an exec can run under QEMU */
static int64_t execve_number = -1, execveat_number = -1, mmap_number = -1, mprotect_number = -1;
static int guest_addresses_are_host; /* guest_base is 0 */
/* Why execs cannot be followed; NULL when they can. */
static const char* not_following_reason = "following execs is off: the plugin has no qemu= argument";

/* Each guest thread counts in a slot of its own, with plain adds: an atomic add per block would
 * cost twice the emulation itself. A thread claims a free slot (its owner, the host thread id,
 * set from 0) when it first counts, and frees it when it exits (QEMU calls the exit hook on the
 * exiting thread, after its last block). Threads that end with their process (exit_group) keep
 * their slots, as the others may still be running their last blocks; slots of threads that are
 * gone are taken over once no slot is free. When every slot is taken, threads share slot 0 with atomic
 * adds. A slot's counts stay when it changes hands: the library sums all slots. */
struct perfmon_emulate_slot* slot_of_vcpu[MAX_VCPUS]; /* this process's threads' slots */

static int thread_is_gone(uint64_t tid) {
  char path[32];
  snprintf(path, sizeof path, "/proc/%llu", (unsigned long long)tid);
  return access(path, F_OK) != 0 && errno == ENOENT;
}

/* Counting inline: while the process has one thread and no model or sampling needs a call per
 * block, each block adds its instructions (and branch) to that thread's slot in the code QEMU
 * generates for it, without a call (docs/emulated.md: a third of the cost). The slot is claimed
 * when the process starts (or forks) by its thread, which finds it again when the process has more
 * threads and counts with calls: QEMU then drops the blocks translated inline (qemu_plugin_reset). */
static int counting_inline;
static struct perfmon_emulate_slot* first_thread_slot; /* the slot of the process's first thread */
static __thread int is_first_thread;
static unsigned threads_in_process;
static qemu_plugin_id_t plugin_id;
static int inline_restart_pending; /* in a forked child, until its first system call returns */

static struct perfmon_emulate_slot* claim_free_slot(void) {
  const uint64_t tid = (uint64_t)gettid();
  struct perfmon_emulate_slot* claimed = &counters->slot[0];
  for (int pass = 0; pass < 2 && claimed == &counters->slot[0]; ++pass)
    for (unsigned k = 1; k < PERFMON_EMULATE_SLOTS; ++k) {
      uint64_t owner = __atomic_load_n(&counters->slot[k].owner, __ATOMIC_RELAXED);
      if (pass == 0 ? owner != 0 : owner == 0 || !thread_is_gone(owner)) continue;
      if (__atomic_compare_exchange_n(&counters->slot[k].owner, &owner, tid, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        claimed = &counters->slot[k];
        break;
      }
    }
  return claimed;
}

static struct perfmon_emulate_slot* claim_slot(unsigned int vcpu_index) {
  struct perfmon_emulate_slot* claimed;
  if (is_first_thread && first_thread_slot != NULL) {
    claimed = first_thread_slot;
    is_first_thread = 0;
  } else {
    claimed = claim_free_slot();
  }
  if (vcpu_index < MAX_VCPUS) slot_of_vcpu[vcpu_index] = claimed;
  return claimed;
}

static void free_slot(unsigned int vcpu_index) {
  if (vcpu_index >= MAX_VCPUS || slot_of_vcpu[vcpu_index] == NULL) return;
  struct perfmon_emulate_slot* slot = slot_of_vcpu[vcpu_index];
  slot_of_vcpu[vcpu_index] = NULL;
  if (slot != &counters->slot[0]) __atomic_store_n(&slot->owner, 0, __ATOMIC_RELEASE);
}

static inline struct perfmon_emulate_slot* thread_slot(unsigned int vcpu_index) {
  if (counting_inline) return first_thread_slot;
  struct perfmon_emulate_slot* slot = vcpu_index < MAX_VCPUS ? slot_of_vcpu[vcpu_index] : &counters->slot[0];
  return slot != NULL ? slot : claim_slot(vcpu_index);
}

static void block_executed(unsigned int vcpu_index, void* instructions) {
  struct perfmon_emulate_slot* slot = thread_slot(vcpu_index);
  count(slot, &slot->instructions, (uint64_t)(uintptr_t)instructions);
}

/* With branches=on, a block adds its branch too. A block ends at its first branch in QEMU, so it
 * holds at most one, of one kind: the kind picks the call, and the number of instructions is its
 * data, as without branches. */
#define BLOCK_WITH_A_BRANCH(kind)                                                         \
  static void block_with_##kind##_executed(unsigned int vcpu_index, void* instructions) { \
    struct perfmon_emulate_slot* slot = thread_slot(vcpu_index);                          \
    count(slot, &slot->instructions, (uint64_t)(uintptr_t)instructions);                  \
    count(slot, &slot->kind, 1);                                                          \
  }
BLOCK_WITH_A_BRANCH(conditional_branches)
BLOCK_WITH_A_BRANCH(direct_branches)
BLOCK_WITH_A_BRANCH(indirect_branches)

static int count_branches, count_memory, predict_branches, model_caches;

static struct thread_caches* caches_of_vcpu[MAX_VCPUS];

/* The thread's caches, made empty at its first access; NULL when memory is short. */
static struct thread_caches* new_thread_caches(unsigned int vcpu_index) {
  if (vcpu_index >= MAX_VCPUS) return NULL;
  struct thread_caches* caches = calloc(1, sizeof *caches);
  if (caches == NULL || cache_init(&caches->l1i, &counters->l1i) != 0 ||
      cache_init(&caches->l1d, &counters->l1d) != 0 || cache_init(&caches->ll, &counters->ll) != 0) {
    caches_free(caches);
    return NULL;
  }
  return caches_of_vcpu[vcpu_index] = caches;
}

static inline struct thread_caches* thread_caches(unsigned int vcpu_index) {
  struct thread_caches* caches = vcpu_index < MAX_VCPUS ? caches_of_vcpu[vcpu_index] : NULL;
  return caches != NULL ? caches : new_thread_caches(vcpu_index);
}

/* The last access of each thread: which block execution (its slot's instruction count then, which
 * every block execution raises), which instruction, which direction, and whether it missed. QEMU
 * 7.2 makes a 16-byte access two 8-byte ones; counted once, a load or a store is an instruction's,
 * as a PMU's retired loads and stores and cachegrind count them, and so is its miss. */
static struct {
  uint64_t block;
  uintptr_t instruction;
  int store;
  int l1_missed, ll_missed;
} last_access[MAX_VCPUS];

/* A data access through the thread's L1D and, on a miss, the last level: one miss at most per
 * access, even where it spans two lines. */
static void data_accessed(struct perfmon_emulate_slot* slot, unsigned int vcpu_index, uint64_t address, uint64_t size,
                          int store) {
  struct thread_caches* caches = thread_caches(vcpu_index);
  if (caches == NULL) return;
  const uint64_t first = address >> caches->l1d.line_shift, last = (address + size - 1) >> caches->l1d.line_shift;
  int l1_missed = 0, ll_missed = 0;
  for (uint64_t line = first; line <= last; ++line) {
    const uint64_t line_address = line << caches->l1d.line_shift;
    if (!cache_missed(&caches->l1d, line_address)) continue;
    l1_missed = 1;
    ll_missed |= cache_missed(&caches->ll, line_address);
  }
  if (l1_missed && !last_access[vcpu_index].l1_missed) {
    last_access[vcpu_index].l1_missed = 1;
    count(slot, store ? &slot->l1d_store_misses : &slot->l1d_load_misses, 1);
  }
  if (ll_missed && !last_access[vcpu_index].ll_missed) {
    last_access[vcpu_index].ll_missed = 1;
    count(slot, store ? &slot->ll_store_misses : &slot->ll_load_misses, 1);
  }
}

static void memory_accessed(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t address, void* instruction) {
  struct perfmon_emulate_slot* slot = thread_slot(vcpu_index);
  const int store = qemu_plugin_mem_is_store(info);
  if (vcpu_index >= MAX_VCPUS) {
    count(slot, store ? &slot->stores : &slot->loads, 1);
    return;
  }
  const uint64_t block = __atomic_load_n(&slot->instructions, __ATOMIC_RELAXED);
  const int second_half = last_access[vcpu_index].block == block &&
                          last_access[vcpu_index].instruction == (uintptr_t)instruction &&
                          last_access[vcpu_index].store == store;
  if (!second_half) {
    last_access[vcpu_index].block = block;
    last_access[vcpu_index].instruction = (uintptr_t)instruction;
    last_access[vcpu_index].store = store;
    last_access[vcpu_index].l1_missed = last_access[vcpu_index].ll_missed = 0;
    count(slot, store ? &slot->stores : &slot->loads, 1);
  }
  if (!model_caches) return;
  /* Its size (a call into QEMU) matters only where it could reach the next line: accesses are at
   * most 16 bytes (QEMU 7.2 splits larger ones), 32 allowed for. */
  const uint64_t line_offset = address & (counters->l1d.line - 1);
  const uint64_t size = line_offset + 32 > counters->l1d.line ? 1ULL << qemu_plugin_mem_size_shift(info) : 1;
  data_accessed(slot, vcpu_index, address, size, store);
}

static struct predictor* predictor_of_vcpu[MAX_VCPUS];

static void block_modelled_executed(unsigned int vcpu_index, void* data) {
  const struct block* block = data;
  struct perfmon_emulate_slot* slot = thread_slot(vcpu_index);
  if (sample_period != 0) sample_block(slot, vcpu_index, block);
  count(slot, &slot->instructions, block->instructions);
  if (block->kind == CONDITIONAL) count(slot, &slot->conditional_branches, 1);
  if (block->kind == DIRECT) count(slot, &slot->direct_branches, 1);
  if (block->kind == INDIRECT) count(slot, &slot->indirect_branches, 1);
  if (vcpu_index >= MAX_VCPUS) return;
  struct predictor* p = predictor_of_vcpu[vcpu_index];
  if (predict_branches && (p != NULL || (p = predictor_of_vcpu[vcpu_index] = calloc(1, sizeof *p)) != NULL)) {
    if (mispredicted(p, block->address)) count(slot, &slot->branch_misses, 1);
    p->pending = block->kind;
    p->pending_address = block->branch_address;
    p->pending_fallthrough = block->fallthrough;
  }
  struct thread_caches* caches = block->fetches != 0 ? thread_caches(vcpu_index) : NULL;
  for (uint64_t k = 0; caches != NULL && k < block->fetches; ++k)
    if (cache_missed(&caches->l1i, block->fetch_address[k])) {
      count(slot, &slot->l1i_misses, 1);
      if (cache_missed(&caches->ll, block->fetch_address[k])) count(slot, &slot->ll_instruction_misses, 1);
    }
}

/* The block's record for the models, with the L1I lines its instructions are in. */
static struct block* new_block(struct qemu_plugin_tb* tb, size_t instructions) {
  const uint64_t line = model_caches ? counters->l1i.line : 0;
  size_t lines = 0;
  for (size_t k = 0; line != 0 && k < instructions; ++k) {
    const struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, k);
    const uint64_t first = qemu_plugin_insn_vaddr(insn) / line;
    lines += (qemu_plugin_insn_vaddr(insn) + qemu_plugin_insn_size(insn) - 1) / line - first + 1;
  }
  const size_t addresses = sample_period != 0 ? instructions : 0;
  struct block* block = calloc(1, sizeof *block + (lines + addresses) * sizeof block->fetch_address[0]);
  if (block == NULL) return NULL;
  block->address = qemu_plugin_tb_vaddr(tb);
  block->instructions = instructions;
  uint64_t* instruction_address = block->fetch_address + lines;
  for (size_t k = 0; k < addresses; ++k)
    instruction_address[k] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, k));
  block->instruction_address = instruction_address;
  for (size_t k = 0; line != 0 && k < instructions; ++k) {
    const struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, k);
    const uint64_t start = qemu_plugin_insn_vaddr(insn);
    for (uint64_t at = start / line; at <= (start + qemu_plugin_insn_size(insn) - 1) / line; ++at)
      if (block->fetches == 0 || block->fetch_address[block->fetches - 1] != at * line)
        block->fetch_address[block->fetches++] = at * line;
  }
  return block;
}

static void block_translated(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t instructions = qemu_plugin_tb_n_insns(tb);
  for (size_t k = 0; count_memory && k < instructions; ++k)
    qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, k), memory_accessed, QEMU_PLUGIN_CB_NO_REGS,
                                     QEMU_PLUGIN_MEM_RW, (void*)(uintptr_t)(k + 1));
  qemu_plugin_vcpu_udata_cb_t executed = block_executed;
  struct block* block = predict_branches || model_caches || sample_period ? new_block(tb, instructions) : NULL;
  for (size_t k = 0; (count_branches || sample_callchains) && k < instructions; ++k) {
    const struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, k);
    const uint8_t* code = qemu_plugin_insn_data(insn);
    const size_t size = qemu_plugin_insn_size(insn);
    enum control_flow flow = FLOWS_ON;
    enum branch_kind kind =
        guest_machine == EM_AARCH64 ? aarch64_branch(code, size, &flow) : x86_64_branch(code, size, &flow);
    if (!count_branches) kind = NOT_A_BRANCH;
    if (kind == CONDITIONAL) executed = block_with_conditional_branches_executed;
    if (kind == DIRECT) executed = block_with_direct_branches_executed;
    if (kind == INDIRECT) executed = block_with_indirect_branches_executed;
    if (block != NULL && (kind != NOT_A_BRANCH || flow != FLOWS_ON)) {
      block->kind = kind;
      block->flow = flow;
      block->branch_address = qemu_plugin_insn_vaddr(insn);
      block->fallthrough = block->branch_address + size;
    }
  }
  if (block != NULL) {
    qemu_plugin_register_vcpu_tb_exec_cb(tb, block_modelled_executed, QEMU_PLUGIN_CB_NO_REGS, block);
  } else if (counting_inline) {
    struct perfmon_emulate_slot* slot = first_thread_slot;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &slot->instructions, instructions);
    uint64_t* branches = executed == block_with_conditional_branches_executed ? &slot->conditional_branches
                         : executed == block_with_direct_branches_executed    ? &slot->direct_branches
                         : executed == block_with_indirect_branches_executed  ? &slot->indirect_branches
                                                                              : NULL;
    if (branches != NULL) qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, branches, 1);
  } else {
    qemu_plugin_register_vcpu_tb_exec_cb(tb, executed, QEMU_PLUGIN_CB_NO_REGS, (void*)(uintptr_t)instructions);
  }
}

static void register_callbacks(qemu_plugin_id_t id);

/* Inline counting ends where the process has more than one thread, or forks (the blocks add to
 * its first thread's slot, which the parent counts in). */
static void stop_counting_inline(void) {
  counting_inline = 0;
  qemu_plugin_reset(plugin_id, register_callbacks);
}

/* Counts instructions and branches inline, with a slot this thread claims now, where no model and
 * no sampling needs a call per block and a slot is free. Loads and stores still call the plugin
 * at each access, and count in that slot too. */
static void start_counting_inline(void) {
  first_thread_slot = NULL;
  if (predict_branches || model_caches || sample_period) return;
  struct perfmon_emulate_slot* slot = claim_free_slot();
  if (slot == &counters->slot[0]) return; /* inline adds are not atomic: not on the shared slot */
  first_thread_slot = slot;
  is_first_thread = 1;
  counting_inline = 1;
}

static void thread_started(qemu_plugin_id_t id, unsigned int vcpu_index) {
  (void)id;
  (void)vcpu_index;
  add(&counters->threads, 1);
  if (++threads_in_process > 1 && counting_inline) stop_counting_inline();
}

static void thread_ended(qemu_plugin_id_t id, unsigned int vcpu_index) {
  (void)id;
  flush_thread_samples(vcpu_index);
  free_slot(vcpu_index);
  /* A later thread may take this vCPU index: it starts with a predictor and caches of its own. */
  if (vcpu_index < MAX_VCPUS) {
    free(predictor_of_vcpu[vcpu_index]);
    predictor_of_vcpu[vcpu_index] = NULL;
    caches_free(caches_of_vcpu[vcpu_index]);
    caches_of_vcpu[vcpu_index] = NULL;
    free(sampling_of_vcpu[vcpu_index]);
    sampling_of_vcpu[vcpu_index] = NULL;
  }
}

/* A forked QEMU is another process of the command, its forking thread the first of its threads.
 * The slots belong to the parent's threads, which go on counting in them: the child's thread
 * claims one of its own. */
static void forked_child(void) {
  memset(slot_of_vcpu, 0, sizeof slot_of_vcpu);
  add(&counters->processes, 1);
  add(&counters->threads, 1);
  threads_in_process = 1;
  if (sample_period != 0) sampling_forked();
  /* The blocks translated so far add to the parent's slot: translated again, they add to a slot
   * of the child's own. Not here: QEMU holds its plugin lock until fork returns to it. */
  inline_restart_pending = counting_inline;
}

/* Set while this thread's exec would run natively, undone if the exec fails; and whether it wrote
 * the first one's description. */
static __thread int exec_not_followed, wrote_first_not_followed;

static void note_not_followed(const char* path, const char* why) {
  add(&counters->execs_not_followed, 1);
  exec_not_followed = 1;
  char expected = 0;
  /* The first one only: claim the buffer by its first byte. */
  if (__atomic_compare_exchange_n(&counters->first_not_followed[0], &expected, '?', 0, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED)) {
    wrote_first_not_followed = 1;
    char text[PERFMON_EMULATE_PATH_MAX];
    snprintf(text, sizeof text, "%s (%s)", path, why);
    memcpy(counters->first_not_followed + 1, text + 1, sizeof text - 1);
    __atomic_store_n(&counters->first_not_followed[0], text[0], __ATOMIC_RELEASE);
  }
}

/* Is the file an ELF executable of the guest's architecture? */
static int runs_under_this_qemu(const char* path) {
  return perfmon_elf_machine(path) == guest_machine;
}

static size_t count_words(char** words) {
  size_t n = 0;
  while (words != NULL && words[n] != NULL) ++n;
  return n;
}

/* The guest calls execve(path, argv, envp): run the program under QEMU and this plugin instead.
 * On success this process is the new QEMU; otherwise QEMU goes on with the guest's own execve,
 * which fails as it would have (or, for a program QEMU cannot run, runs it natively). */
static void follow_exec(unsigned int vcpu_index, const char* path, char** argv, char** envp) {
  if (access(path, X_OK) != 0) return; /* the guest's execve fails with the same errno */
  struct stat status;
  if (stat(path, &status) != 0 || !S_ISREG(status.st_mode)) return;
  char line[256];
  const char* interpreter_argument = NULL;
  const char* interpreter = NULL;
  if (!runs_under_this_qemu(path)) {
    interpreter = perfmon_script_interpreter(path, line, sizeof line, &interpreter_argument);
    if (interpreter == NULL || !runs_under_this_qemu(interpreter)) {
      note_not_followed(path, interpreter == NULL ? "not a program of the emulated architecture"
                                                  : "its interpreter is not a program of the emulated architecture");
      return;
    }
  }
  const size_t words = count_words(argv);
  char** qemu_argv = calloc(words + 10, sizeof *qemu_argv);
  if (qemu_argv == NULL) return;
  /* Sampling names the new process's threads after the program, as the kernel would (its comm). */
  char* argument = NULL;
  if (sample_period != 0) {
    const char* slash = strrchr(path, '/');
    char name[sizeof process_name];
    snprintf(name, sizeof name, "%s", slash != NULL ? slash + 1 : path);
    for (char* c = name; *c != '\0'; ++c)
      if (*c == ',') *c = '_'; /* QEMU splits the plugin's arguments at commas */
    if (asprintf(&argument, "%s,comm=%s,execed=on", plugin_argument, name) < 0) argument = NULL;
  }
  size_t k = 0;
  qemu_argv[k++] = qemu_path;
  qemu_argv[k++] = "-plugin";
  qemu_argv[k++] = argument != NULL ? argument : plugin_argument;
  if (interpreter != NULL) {
    qemu_argv[k++] = (char*)interpreter;
    if (interpreter_argument != NULL) qemu_argv[k++] = (char*)interpreter_argument;
    qemu_argv[k++] = (char*)path;
  } else {
    if (words > 0) {
      qemu_argv[k++] = "-0";
      qemu_argv[k++] = argv[0];
    }
    qemu_argv[k++] = (char*)path;
  }
  for (size_t w = 1; w < words; ++w) qemu_argv[k++] = argv[w];
  qemu_argv[k] = NULL;
  add(&counters->execs_followed, 1);
  if (sample_period != 0) flush_thread_samples(vcpu_index); /* the other threads' buffers end with them */
  execve(qemu_path, qemu_argv, envp);
  add(&counters->execs_followed, (uint64_t)-1);
  note_not_followed(path, strerror(errno));
  free(argument);
  free(qemu_argv);
}

/* What this plugin counts, for a thread's read (counters_abi.h). */
static uint32_t counting_flags(void) {
  return (count_branches ? PERFMON_EMULATE_COUNTS_BRANCHES : 0) | (count_memory ? PERFMON_EMULATE_COUNTS_MEMORY : 0) |
         (predict_branches ? PERFMON_EMULATE_COUNTS_PREDICTION : 0) |
         (model_caches ? PERFMON_EMULATE_COUNTS_CACHES : 0);
}

/* A thread reads its own counts (PERFMON_EMULATE_READ_SYSCALL): copied into the guest's record,
 * which is at the guest address plus guest_base. A call without the magic, version and size is not
 * a read (nor answered: QEMU returns ENOSYS, as the kernel would). */
static void thread_read(unsigned int vcpu_index, uint64_t address, uint64_t version, uint64_t size, uint64_t magic) {
  if (magic != PERFMON_EMULATE_READ_MAGIC || &guest_base == NULL || address == 0 ||
      size != sizeof(struct perfmon_emulate_thread_read))
    return;
  struct perfmon_emulate_thread_read* out = (struct perfmon_emulate_thread_read*)(uintptr_t)(address + guest_base);
  out->magic = PERFMON_EMULATE_READ_MAGIC;
  out->version = PERFMON_EMULATE_VERSION;
  if (version != PERFMON_EMULATE_VERSION) return; /* the caller sees the version it does not speak */
  struct perfmon_emulate_slot* slot = thread_slot(vcpu_index);
  const uint64_t* from = (const uint64_t*)slot;
  uint64_t* to = (uint64_t*)&out->counts;
  for (size_t k = 0; k < sizeof *slot / sizeof *from; ++k) to[k] = __atomic_load_n(&from[k], __ATOMIC_RELAXED);
  out->flags = counting_flags() | (slot == &counters->slot[0] ? PERFMON_EMULATE_SHARED_SLOT : 0);
}

static void syscall_entered(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t number, uint64_t a1, uint64_t a2,
                            uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8) {
  (void)id, (void)a6, (void)a7, (void)a8;
  if (number == PERFMON_EMULATE_READ_SYSCALL) {
    thread_read(vcpu_index, a1, a2, a3, a4);
    return;
  }
  if (sample_period != 0 && (number == mmap_number || number == mprotect_number) && (a3 & PROT_EXEC) != 0)
    maps_change_pending = 1;
  if (number != execve_number && number != execveat_number) return;
  exec_not_followed = wrote_first_not_followed = 0;
  if (not_following_reason != NULL)
    note_not_followed(guest_addresses_are_host && number == execve_number ? (const char*)(uintptr_t)a1 : "a program",
                      not_following_reason);
  else if (number == execve_number)
    follow_exec(vcpu_index, (const char*)(uintptr_t)a1, (char**)(uintptr_t)a2, (char**)(uintptr_t)a3);
  /* execveat(AT_FDCWD, path, argv, envp, 0) is execve; other forms are not followed. */
  else if ((int)a1 == AT_FDCWD && a5 == 0)
    follow_exec(vcpu_index, (const char*)(uintptr_t)a2, (char**)(uintptr_t)a3, (char**)(uintptr_t)a4);
  else
    note_not_followed("a program", "execveat relative to a directory descriptor");
}

/* An exec that returns has failed: it ran nothing natively. */
static void syscall_returned(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t number, int64_t result) {
  (void)id, (void)vcpu_index, (void)result;
  if (maps_change_pending) { /* after the change: a read of the maps before it would miss it */
    maps_change_pending = 0;
    maps_changed();
  }
  if (inline_restart_pending) { /* the fork's return in the child, before it runs a block */
    inline_restart_pending = 0;
    stop_counting_inline();
    start_counting_inline();
  }
  if ((number != execve_number && number != execveat_number) || !exec_not_followed) return;
  add(&counters->execs_not_followed, (uint64_t)-1);
  if (wrote_first_not_followed) __atomic_store_n(&counters->first_not_followed[0], 0, __ATOMIC_RELEASE);
  exec_not_followed = wrote_first_not_followed = 0;
}

static int open_counters(const char* path) {
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "perfmon's QEMU plugin: cannot open the counters file %s: %s\n", path, strerror(errno));
    return -1;
  }
  void* mapping = mmap(NULL, sizeof *counters, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  struct stat status;
  const int sized = fstat(fd, &status) == 0 && status.st_size >= (off_t)sizeof *counters;
  close(fd);
  if (mapping == MAP_FAILED || !sized) {
    fprintf(stderr, "perfmon's QEMU plugin: %s is not a counters file perfmon made\n", path);
    return -1;
  }
  counters = mapping;
  if (counters->magic != PERFMON_EMULATE_MAGIC || counters->version != PERFMON_EMULATE_VERSION ||
      counters->slots != PERFMON_EMULATE_SLOTS) {
    fprintf(stderr,
            "perfmon's QEMU plugin: %s is not a counters file of this plugin's version (%d): use the plugin "
            "installed with the perfmon library that runs it.\n",
            path, PERFMON_EMULATE_VERSION);
    return -1;
  }
  return 0;
}

static char* argument_value(int argc, char** argv, const char* name) {
  const size_t length = strlen(name);
  for (int k = 0; k < argc; ++k)
    if (strncmp(argv[k], name, length) == 0 && argv[k][length] == '=') return argv[k] + length + 1;
  return NULL;
}

static int argument_is_on(int argc, char** argv, const char* name) {
  const char* value = argument_value(argc, argv, name);
  return value != NULL && strcmp(value, "on") == 0;
}

/* samples=FILE period=N [callchains=on] [comm=NAME] [execed=on]: sampling, into FILE. */
static const char* samples_path = "";
static int open_samples(int argc, char** argv) {
  const char* path = argument_value(argc, argv, "samples");
  const char* period = argument_value(argc, argv, "period");
  if (path == NULL || path[0] == '\0' || period == NULL || strcmp(period, "0") == 0) return 0;
  char* end = NULL;
  sample_period = strtoull(period, &end, 10);
  if (end == period || *end != '\0' || sample_period == 0) {
    fprintf(stderr, "perfmon's QEMU plugin takes period=N, a number of instructions above 0, not '%s'.\n", period);
    return -1;
  }
  samples_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (samples_fd < 0) {
    fprintf(stderr, "perfmon's QEMU plugin: cannot open the samples file %s: %s\n", path, strerror(errno));
    return -1;
  }
  samples_path = path;
  sample_callchains = argument_is_on(argc, argv, "callchains");
  const char* comm = argument_value(argc, argv, "comm");
  snprintf(process_name, sizeof process_name, "%s", comm != NULL ? comm : "");
  process_execed = argument_is_on(argc, argv, "execed");
  return 0;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc, char** argv) {
  if (info->version.min > qemu_plugin_version || info->version.cur < qemu_plugin_version) {
    fprintf(stderr,
            "perfmon's QEMU plugin speaks plugin API version %d; this QEMU takes versions %d to %d: "
            "install the qemu-user that perfmon was built for.\n",
            qemu_plugin_version, info->version.min, info->version.cur);
    return -1;
  }
  const char* counters_path = argument_value(argc, argv, "counters");
  if (counters_path == NULL || counters_path[0] == '\0') {
    fprintf(stderr, "perfmon's QEMU plugin needs counters=FILE, a counters file that the perfmon library made.\n");
    return -1;
  }
  if (open_counters(counters_path) != 0) return -1;
  count_branches = argument_is_on(argc, argv, "branches");
  count_memory = argument_is_on(argc, argv, "memory");
  predict_branches = argument_is_on(argc, argv, "predict");
  model_caches = argument_is_on(argc, argv, "caches");
  count_branches |= predict_branches;
  count_memory |= model_caches;
  if (open_samples(argc, argv) != 0) return -1;
  const struct perfmon_emulate_cache* geometries[] = {&counters->l1i, &counters->l1d, &counters->ll};
  static const char* const cache_names[] = {"L1I", "L1D", "LL"};
  for (int k = 0; k < 3 && model_caches; ++k)
    if (cache_geometry_problem(geometries[k]) != NULL) {
      fprintf(stderr, "perfmon's QEMU plugin cannot model the %s cache of the counters file: %s.\n", cache_names[k],
              cache_geometry_problem(geometries[k]));
      return -1;
    }
  if (strcmp(info->target_name, "x86_64") == 0) {
    guest_machine = EM_X86_64, execve_number = 59, execveat_number = 322, mmap_number = 9, mprotect_number = 10;
  } else if (strcmp(info->target_name, "aarch64") == 0) {
    guest_machine = EM_AARCH64, execve_number = 221, execveat_number = 281, mmap_number = 222, mprotect_number = 226;
  }
  const char* qemu = argument_value(argc, argv, "qemu");
  Dl_info self;
  /* The guest's path, argv and envp are guest addresses; the argv and envp arrays hold guest
   * addresses too. They are host addresses only where guest_base is 0, the usual case for a guest
   * of the host's own architecture. */
  guest_addresses_are_host = &guest_base != NULL && guest_base == 0;
  if (guest_machine == 0)
    not_following_reason = "a guest architecture this plugin does not know";
  else if (&guest_base == NULL)
    not_following_reason = "this QEMU does not export guest_base";
  else if (!guest_addresses_are_host)
    not_following_reason = "QEMU placed guest memory away from host addresses";
  else if (qemu != NULL && dladdr(&qemu_plugin_version, &self) != 0 && self.dli_fname != NULL &&
           asprintf(&plugin_argument,
                    "%s,counters=%s,qemu=%s,branches=%s,memory=%s,predict=%s,caches=%s,samples=%s,period=%llu,"
                    "callchains=%s",
                    self.dli_fname, counters_path, qemu, count_branches ? "on" : "off", count_memory ? "on" : "off",
                    predict_branches ? "on" : "off", model_caches ? "on" : "off", samples_path,
                    (unsigned long long)sample_period, sample_callchains ? "on" : "off") >= 0) {
    qemu_path = strdup(qemu);
    not_following_reason = qemu_path != NULL ? NULL : "out of memory";
  }
  snprintf(counters->target, sizeof counters->target, "%s", info->target_name);
  counters->plugin_api_version = qemu_plugin_version;
  /* After an exec followed here, this process's thread (its id the process id) left its slot
   * claimed: it is free again. */
  for (unsigned k = 1; k < PERFMON_EMULATE_SLOTS; ++k) {
    uint64_t owner = (uint64_t)getpid();
    __atomic_compare_exchange_n(&counters->slot[k].owner, &owner, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
  }
  add(&counters->processes, 1);
  if (sample_period != 0)
    pthread_atfork(sampling_forking, sampling_forked_parent, forked_child);
  else
    pthread_atfork(NULL, NULL, forked_child);
  plugin_id = id;
  start_counting_inline();
  register_callbacks(id);
  return 0;
}

static void register_callbacks(qemu_plugin_id_t id) {
  qemu_plugin_register_vcpu_init_cb(id, thread_started);
  qemu_plugin_register_vcpu_exit_cb(id, thread_ended);
  qemu_plugin_register_vcpu_tb_trans_cb(id, block_translated);
  qemu_plugin_register_vcpu_syscall_cb(id, syscall_entered);
  qemu_plugin_register_vcpu_syscall_ret_cb(id, syscall_returned);
  if (sample_period != 0) qemu_plugin_register_atexit_cb(id, process_exits, NULL);
}
