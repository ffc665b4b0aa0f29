// GNU build ids (NT_GNU_BUILD_ID notes), by which perf finds the exact binary a sample's address
// belongs to: from an ELF file's PT_NOTE segments, and the running kernel's from /sys/kernel/notes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace perfmon::perfdata {

// The build id in a sequence of ELF notes (4-byte aligned, as both places hold them), or nullopt.
std::optional<std::string> build_id_in_notes(std::string_view notes);
// The build id of the ELF file at `path` (64-bit, this machine's byte order), or nullopt.
std::optional<std::string> elf_build_id(const std::string& path);
// The running kernel's, or nullopt when /sys/kernel/notes cannot be read.
std::optional<std::string> kernel_build_id();

}  // namespace perfmon::perfdata
