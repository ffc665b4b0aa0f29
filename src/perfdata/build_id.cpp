#include "perfdata/build_id.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "kernel/text_file.hpp"

namespace perfmon::perfdata {

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

std::optional<std::string> elf_build_id(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!file.read(reinterpret_cast<char*>(&header), sizeof header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_phentsize != sizeof(Elf64_Phdr))
    return std::nullopt;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    file.seekg(static_cast<std::streamoff>(header.e_phoff + i * sizeof segment));
    if (!file.read(reinterpret_cast<char*>(&segment), sizeof segment)) return std::nullopt;
    if (segment.p_type != PT_NOTE || segment.p_filesz > (1 << 20)) continue;
    std::string notes(segment.p_filesz, '\0');
    file.seekg(static_cast<std::streamoff>(segment.p_offset));
    if (!file.read(notes.data(), static_cast<std::streamsize>(notes.size()))) continue;
    if (std::optional<std::string> id = build_id_in_notes(notes)) return id;
  }
  return std::nullopt;
}

std::optional<std::string> kernel_build_id() {
  return build_id_in_notes(kernel::read_whole_file("/sys/kernel/notes").value_or(std::string()));
}

}  // namespace perfmon::perfdata
