/* SPDX-License-Identifier: Apache-2.0 */
/* Sampling in perfmon's QEMU plugin (samples=FILE, period=N; counters_abi.h, docs/emulated.md):
 * each thread's samples, callchains from its shadow stack, its name and the mappings its samples
 * fall in, written as perf's records into the samples file. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "plugin.h"

/* Sampling (samples=FILE, period=N; counters_abi.h and docs/emulated.md): each thread counts its
 * instructions down from the period, and a block through which the count reaches zero takes a
 * sample at the instruction where it does. With callchains=on, the callchain is the thread's shadow
 * stack: the return address of each call its blocks made that has not returned yet. */
#define SHADOW_STACK 128 /* a ring: the deepest calls are kept, the outermost dropped */
#define SAMPLE_BUFFER_BYTES 65536
/* A buffer is written at the latest this long after its first record: QEMU runs no plugin code
 * when a signal kills the process (Ctrl-C, SIGTERM), and what the threads still buffer is lost. */
#define SAMPLE_BUFFER_NS 100000000
#define MAX_MAPPED_PATH 1024 /* a mapping of a file with a longer path gets no record */
uint64_t sample_period;
int sample_callchains;
int samples_fd = -1;
char process_name[16]; /* comm= : what the threads are called */
int process_execed;    /* started by an exec followed: its first thread's name is COMM_EXEC */

struct sampling_thread {
  uint64_t countdown; /* instructions to the next sample */
  uint64_t pushed;    /* calls pushed on the shadow stack (the top is pushed % SHADOW_STACK) */
  uint32_t depth;     /* return addresses on it, at most SHADOW_STACK */
  int return_pending; /* its last block ended in a return, which the next block's address completes */
  int named;          /* its COMM record is written */
  uint64_t samples;   /* samples in the buffer */
  uint64_t since;     /* the time of the buffer's first record */
  size_t used;
  uint64_t stack[SHADOW_STACK];
  unsigned char buffer[SAMPLE_BUFFER_BYTES];
};
struct sampling_thread* sampling_of_vcpu[MAX_VCPUS];

static uint64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Writes the thread's buffer to the samples file in one write: records of several writers never
 * interleave in a file opened O_APPEND. What cannot be written is counted lost. */
static void flush_samples(struct sampling_thread* t, struct perfmon_emulate_slot* slot) {
  if (t->used == 0) return;
  const ssize_t written = write(samples_fd, t->buffer, t->used);
  if (written != (ssize_t)t->used) count(slot, &slot->samples_lost, t->samples);
  t->used = 0;
  t->samples = 0;
}

/* Room for a record of `bytes` in the thread's buffer, flushed first if it is too full. */
static void* record_space(struct sampling_thread* t, struct perfmon_emulate_slot* slot, size_t bytes) {
  if (t->used + bytes > sizeof t->buffer) flush_samples(t, slot);
  if (t->used == 0) t->since = now_ns();
  void* at = t->buffer + t->used;
  t->used += bytes;
  return at;
}

/* The sample_id trailer of a side-band record (sample_type TID | TIME). */
struct sample_id {
  uint32_t pid, tid;
  uint64_t time;
};

static void name_thread(struct sampling_thread* t, struct perfmon_emulate_slot* slot, const struct sample_id* id) {
  const size_t name_bytes = (strlen(process_name) + 1 + 7) & ~(size_t)7;
  const size_t bytes = sizeof(struct perf_event_header) + 8 + name_bytes + sizeof(struct sample_id);
  unsigned char* record = record_space(t, slot, bytes);
  memset(record, 0, bytes);
  const int first_thread = id->tid == id->pid;
  struct perf_event_header header = {PERF_RECORD_COMM, process_execed && first_thread ? PERF_RECORD_MISC_COMM_EXEC : 0,
                                     (uint16_t)bytes};
  memcpy(record, &header, sizeof header);
  memcpy(record + sizeof header, id, 8); /* pid, tid */
  memcpy(record + sizeof header + 8, process_name, strlen(process_name));
  memcpy(record + bytes - sizeof *id, id, sizeof *id);
  t->named = 1;
}

/* The process's mappings of files, as /proc/self/maps had them when last read, and
 * whether a record of each is written: a mapping gets its record before the first sample that has
 * an address in it. Shared by the process's threads, under a lock. */
struct mapping {
  uint64_t start, end, offset, inode;
  uint32_t major, minor;
  int written;
  char* path;
};
static struct {
  pthread_mutex_t lock;
  struct mapping* all;
  size_t count;
  int stale; /* the guest mapped or protected memory executable since they were read */
} maps = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 1};
__thread int maps_change_pending; /* the thread's system call maps memory executable */

static void read_maps(void) {
  FILE* file = fopen("/proc/self/maps", "re");
  if (file == NULL) return;
  struct mapping* read = NULL;
  size_t count = 0, capacity = 0;
  char line[4096 + 128];
  while (fgets(line, sizeof line, file) != NULL) {
    unsigned long long start, end, offset, inode;
    unsigned major, minor;
    char permissions[8];
    int path_at = 0;
    /* QEMU maps guest code without PROT_EXEC on the host (it runs translations of it): every file
     * mapping is taken, and those that samples have addresses in get records. */
    if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, permissions, &offset, &major, &minor, &inode,
               &path_at) < 7 ||
        line[path_at] != '/')
      continue;
    line[strcspn(line, "\n")] = '\0';
    if (count == capacity) {
      capacity = capacity ? 2 * capacity : 64;
      struct mapping* grown = realloc(read, capacity * sizeof *read);
      if (grown == NULL) break;
      read = grown;
    }
    struct mapping m = {start, end, offset, inode, major, minor, 0, strdup(line + path_at)};
    /* Written already if the same file was mapped there when last read. */
    for (size_t k = 0; k < maps.count; ++k)
      if (maps.all[k].start == m.start && maps.all[k].end == m.end && maps.all[k].inode == m.inode &&
          maps.all[k].offset == m.offset)
        m.written = maps.all[k].written;
    if (m.path != NULL) read[count++] = m;
  }
  fclose(file);
  for (size_t k = 0; k < maps.count; ++k) free(maps.all[k].path);
  free(maps.all);
  maps.all = read;
  maps.count = count;
}

static struct mapping* mapping_of(uint64_t address) {
  for (size_t k = 0; k < maps.count; ++k)
    if (address >= maps.all[k].start && address < maps.all[k].end) return &maps.all[k];
  return NULL;
}

/* Writes the record of the mapping `address` is in, if it has none yet. */
static void note_mapping(struct sampling_thread* t, struct perfmon_emulate_slot* slot, uint64_t address,
                         const struct sample_id* id, int* maps_fresh) {
  struct mapping* m = mapping_of(address);
  if (m == NULL && !*maps_fresh) { /* mapped since the maps were read */
    read_maps();
    *maps_fresh = 1;
    m = mapping_of(address);
  }
  if (m == NULL || m->written) return;
  const size_t path_bytes = strlen(m->path) + 1;
  if (path_bytes > MAX_MAPPED_PATH) return;
  const size_t fixed = sizeof(struct perf_event_header) + 2 * 4 + 3 * 8 + 2 * 4 + 2 * 8 + 2 * 4;
  const size_t bytes = fixed + ((path_bytes + 7) & ~(size_t)7) + sizeof(struct sample_id);
  unsigned char* record = record_space(t, slot, bytes);
  memset(record, 0, bytes);
  const struct perf_event_header header = {PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, (uint16_t)bytes};
  unsigned char* at = record;
  memcpy(at, &header, sizeof header), at += sizeof header;
  memcpy(at, id, 8), at += 8; /* pid, tid */
  const uint64_t range[3] = {m->start, m->end - m->start, m->offset};
  memcpy(at, range, sizeof range), at += sizeof range;
  const uint32_t device[2] = {m->major, m->minor};
  memcpy(at, device, sizeof device), at += sizeof device;
  const uint64_t inode[2] = {m->inode, 0};
  memcpy(at, inode, sizeof inode), at += sizeof inode;
  const uint32_t protection[2] = {PROT_READ | PROT_EXEC, MAP_PRIVATE};
  memcpy(at, protection, sizeof protection), at += sizeof protection;
  memcpy(at, m->path, path_bytes);
  memcpy(record + bytes - sizeof *id, id, sizeof *id);
  m->written = 1;
}

/* The return address `k` entries below the top of the thread's shadow stack. */
static inline uint64_t shadow_return(const struct sampling_thread* t, uint32_t k) {
  return t->stack[(t->pushed - 1 - k) % SHADOW_STACK];
}

static void take_sample(struct sampling_thread* t, struct perfmon_emulate_slot* slot, uint64_t ip) {
  const struct sample_id id = {(uint32_t)getpid(), (uint32_t)gettid(), now_ns()};
  if (!t->named) name_thread(t, slot, &id);
  const uint32_t returns =
      sample_callchains ? (t->depth < PERFMON_EMULATE_CALLCHAIN_MAX - 2 ? t->depth : PERFMON_EMULATE_CALLCHAIN_MAX - 2)
                        : 0;
  pthread_mutex_lock(&maps.lock);
  int maps_fresh = __atomic_exchange_n(&maps.stale, 0, __ATOMIC_ACQUIRE);
  if (maps_fresh) read_maps();
  note_mapping(t, slot, ip, &id, &maps_fresh);
  for (uint32_t k = 0; k < returns; ++k) note_mapping(t, slot, shadow_return(t, k), &id, &maps_fresh);
  pthread_mutex_unlock(&maps.lock);
  const size_t chain = sample_callchains ? 2 + returns : 0;
  const size_t bytes = sizeof(struct perf_event_header) + 8 + 8 + 8 + 8 + (sample_callchains ? 8 + 8 * chain : 0);
  uint64_t* record = record_space(t, slot, bytes);
  const struct perf_event_header header = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)bytes};
  memcpy(record, &header, sizeof header);
  record[1] = ip;
  memcpy(&record[2], &id, 8); /* pid, tid */
  record[3] = id.time;
  record[4] = sample_period;
  if (sample_callchains) {
    record[5] = chain;
    record[6] = PERF_CONTEXT_USER;
    record[7] = ip;
    for (uint32_t k = 0; k < returns; ++k) record[8 + k] = shadow_return(t, k);
  }
  ++t->samples;
  if (id.time - t->since >= SAMPLE_BUFFER_NS) flush_samples(t, slot);
  count(slot, &slot->samples, 1);
}

static struct sampling_thread* sampling_thread(unsigned int vcpu_index) {
  if (vcpu_index >= MAX_VCPUS) return NULL;
  struct sampling_thread* t = sampling_of_vcpu[vcpu_index];
  if (t == NULL && (t = sampling_of_vcpu[vcpu_index] = calloc(1, sizeof *t)) != NULL) t->countdown = sample_period;
  return t;
}

/* Before the block's instructions count: its samples, and its calls and returns on the stack. */
void sample_block(struct perfmon_emulate_slot* slot, unsigned int vcpu_index, const struct block* block) {
  struct sampling_thread* t = sampling_thread(vcpu_index);
  if (t == NULL) return;
  if (t->return_pending) {
    /* The return went to this block: the call it returns from is the innermost one that returns
     * here (deeper ones, left by longjmp or an exception, are gone too). */
    t->return_pending = 0;
    for (uint32_t k = 0; k < t->depth; ++k)
      if (shadow_return(t, k) == block->address) {
        t->pushed -= k + 1;
        t->depth -= k + 1;
        break;
      }
  }
  uint64_t at = t->countdown; /* the sample's instruction, counted from 1 */
  for (; at <= block->instructions; at += sample_period) take_sample(t, slot, block->instruction_address[at - 1]);
  t->countdown = at - block->instructions;
  if (block->flow == CALLS) {
    t->stack[t->pushed++ % SHADOW_STACK] = block->fallthrough;
    if (t->depth < SHADOW_STACK) ++t->depth;
  }
  if (block->flow == RETURNS) t->return_pending = 1;
}

/* A thread that ends writes what it has (on itself); at the process's exit every thread does. */
void flush_thread_samples(unsigned int vcpu_index) {
  struct sampling_thread* t = vcpu_index < MAX_VCPUS ? sampling_of_vcpu[vcpu_index] : NULL;
  if (t == NULL) return;
  struct perfmon_emulate_slot* slot =
      vcpu_index < MAX_VCPUS && slot_of_vcpu[vcpu_index] != NULL ? slot_of_vcpu[vcpu_index] : &counters->slot[0];
  flush_samples(t, slot);
}

void process_exits(qemu_plugin_id_t id, void* data) {
  (void)id, (void)data;
  for (unsigned k = 0; k < MAX_VCPUS; ++k) flush_thread_samples(k);
}

/* The samples file in a forked child: the buffers copied from the parent are the parent's to
 * write; the child's threads name themselves and its mappings get records of the child's. */
void sampling_forked(void) {
  for (unsigned k = 0; k < MAX_VCPUS; ++k)
    if (sampling_of_vcpu[k] != NULL) {
      sampling_of_vcpu[k]->used = 0;
      sampling_of_vcpu[k]->samples = 0;
      sampling_of_vcpu[k]->named = 0;
    }
  for (size_t k = 0; k < maps.count; ++k) maps.all[k].written = 0;
  process_execed = 0;
  pthread_mutex_unlock(&maps.lock);
}

/* The maps are locked through fork, so that the child's copy is whole. */
void sampling_forking(void) {
  pthread_mutex_lock(&maps.lock);
}

void sampling_forked_parent(void) {
  pthread_mutex_unlock(&maps.lock);
}

void maps_changed(void) {
  __atomic_store_n(&maps.stale, 1, __ATOMIC_RELEASE);
}
