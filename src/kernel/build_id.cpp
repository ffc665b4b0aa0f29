// SPDX-License-Identifier: Apache-2.0
#include "kernel/build_id.hpp"

#include <elf.h>

#include <cstring>

#include "kernel/file_mapping.hpp"
#include "kernel/text_file.hpp"

namespace perfmon::kernel {

namespace {
constexpr std::size_t align4(std::size_t n) {
  return (n + 3) & ~std::size_t{3};
}
}  // namespace

std::optional<std::string> build_id_in_notes(std::string_view notes) {
  while (notes.size() >= sizeof(Elf64_Nhdr)) {
    Elf64_Nhdr note;
    std::memcpy(&note, notes.data(), sizeof note);
    const std::size_t name_at = sizeof note, desc_at = name_at + align4(note.n_namesz);
    const std::size_t end = desc_at + align4(note.n_descsz);
    if (note.n_namesz > notes.size() || note.n_descsz > notes.size() || end > notes.size()) return std::nullopt;
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
        notes.substr(name_at, 4) == std::string_view("GNU\0", 4))
      return std::string(notes.substr(desc_at, note.n_descsz));
    notes.remove_prefix(end);
  }
  return std::nullopt;
}

std::optional<std::string> build_id_in_elf(std::string_view elf) {
  auto fits = [&](std::uint64_t offset, std::uint64_t size) {
    return offset <= elf.size() && size <= elf.size() - offset;
  };
  Elf64_Ehdr header;
  if (!fits(0, sizeof header)) return std::nullopt;
  std::memcpy(&header, elf.data(), sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_phentsize != sizeof(Elf64_Phdr))
    return std::nullopt;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    if (!fits(header.e_phoff + i * sizeof segment, sizeof segment)) return std::nullopt;
    std::memcpy(&segment, elf.data() + header.e_phoff + i * sizeof segment, sizeof segment);
    if (segment.p_type != PT_NOTE || !fits(segment.p_offset, segment.p_filesz)) continue;
    if (std::optional<std::string> id = build_id_in_notes(elf.substr(segment.p_offset, segment.p_filesz))) return id;
  }
  return std::nullopt;
}

std::optional<std::string> elf_build_id(const std::string& path) {
  const std::optional<FileMapping> file = FileMapping::map(path);
  return file ? build_id_in_elf(file->bytes()) : std::nullopt;
}

std::optional<std::string> kernel_build_id() {
  return build_id_in_notes(read_whole_file("/sys/kernel/notes").value_or(std::string()));
}

std::string build_id_hex(std::string_view id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : id) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return hex;
}

}  // namespace perfmon::kernel
