/* SPDX-License-Identifier: Apache-2.0 */
/* What a program file is, as the kernel's exec reads it: a 64-bit ELF program's machine, or a
 * script's "#!" interpreter. One reading for the library (the command it starts) and the plugin
 * (the programs the command execs), so that both decide alike what runs under QEMU. */
#ifndef PERFMON_EMULATE_PROGRAM_FILE_H
#define PERFMON_EMULATE_PROGRAM_FILE_H

#include <elf.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* `path` opened for reading if it is a regular file, else -1: never waiting on a FIFO or reading
 * a device, which exec refuses anyway (a program can name anything). */
static inline int perfmon_open_program_file(const char* path) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat status;
  if (fd >= 0 && (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode))) {
    close(fd);
    return -1;
  }
  return fd;
}

/* The ELF machine (EM_X86_64, EM_AARCH64...) of a 64-bit ELF file, 0 if the file is not one. */
static inline uint16_t perfmon_elf_machine(const char* path) {
  Elf64_Ehdr header;
  const int fd = perfmon_open_program_file(path);
  if (fd < 0) return 0;
  const ssize_t got = pread(fd, &header, sizeof header, 0);
  close(fd);
  if (got != (ssize_t)sizeof header || memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64)
    return 0;
  return header.e_machine;
}

/* A script's interpreter and its optional argument (*argument, or NULL), as the kernel reads
 * "#!INTERPRETER [ARGUMENT]"; NULL if the file is not a script. `line` holds both. */
static inline const char* perfmon_script_interpreter(const char* path, char* line, size_t size, const char** argument) {
  const int fd = perfmon_open_program_file(path);
  if (fd < 0) return NULL;
  const ssize_t got = read(fd, line, size - 1);
  close(fd);
  if (got < 3 || line[0] != '#' || line[1] != '!') return NULL;
  line[got] = '\0';
  char* end = strchr(line, '\n');
  if (end == NULL) return NULL;
  *end = '\0';
  char* interpreter = line + 2;
  while (*interpreter == ' ' || *interpreter == '\t') ++interpreter;
  char* cursor = interpreter;
  while (*cursor != '\0' && *cursor != ' ' && *cursor != '\t') ++cursor;
  *argument = NULL;
  if (*cursor != '\0') {
    *cursor++ = '\0';
    while (*cursor == ' ' || *cursor == '\t') ++cursor;
    char* last = cursor + strlen(cursor);
    while (last > cursor && (last[-1] == ' ' || last[-1] == '\t')) *--last = '\0';
    if (*cursor != '\0') *argument = cursor;
  }
  return *interpreter != '\0' ? interpreter : NULL;
}

#endif
