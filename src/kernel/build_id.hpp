// SPDX-License-Identifier: Apache-2.0
// GNU build ids (NT_GNU_BUILD_ID notes), by which perf finds the exact binary a sample's address
// belongs to, and a debugger its separate debug file: from an ELF file's PT_NOTE segments, and the
// running kernel's from /sys/kernel/notes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace perfmon::kernel {

// The build id in a sequence of ELF notes (4-byte aligned, as both places hold them), or nullopt.
std::optional<std::string> build_id_in_notes(std::string_view notes);
// The build id of a 64-bit ELF file of this machine's byte order, from its bytes, or nullopt.
// Every offset is checked against the size.
std::optional<std::string> build_id_in_elf(std::string_view elf);
// The build id of the ELF file at `path` (regular files only), or nullopt.
std::optional<std::string> elf_build_id(const std::string& path);
// The running kernel's, or nullopt when /sys/kernel/notes cannot be read.
std::optional<std::string> kernel_build_id();
// Lower-case hex, as perf and /usr/lib/debug/.build-id/ spell a build id.
std::string build_id_hex(std::string_view id);

}  // namespace perfmon::kernel
