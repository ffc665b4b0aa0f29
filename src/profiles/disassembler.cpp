// SPDX-License-Identifier: Apache-2.0
#include "profiles/disassembler.hpp"

#include <elf.h>

#include <algorithm>
#include <string>

#if PERFMON_HAVE_CAPSTONE
#include <capstone/capstone.h>

#include "kernel/loaded_library.hpp"
#endif

namespace perfmon::analysis {

#if PERFMON_HAVE_CAPSTONE

namespace {

// The Capstone functions perfmon calls, looked up in libcapstone.so.4 when first needed: mapped at
// start, its 6 MB would cost every command that never disassembles.
struct Library {
  decltype(&cs_open) open = nullptr;
  decltype(&cs_close) close = nullptr;
  decltype(&cs_option) option = nullptr;
  decltype(&cs_malloc) allocate = nullptr;
  decltype(&cs_free) free = nullptr;
  decltype(&cs_disasm_iter) disassemble = nullptr;
  std::string missing;  // why it cannot be used; empty when it can
};

const Library& library() {
  static const Library loaded = [] {
    Library lib;
    const kernel::LoadedLibrary capstone(PERFMON_CAPSTONE_SONAME);
    if (!capstone.loaded()) {
      lib.missing = "instructions need Capstone, which cannot be loaded (" + capstone.why() +
                    "); install Debian's libcapstone4 package";
      return lib;
    }
    const bool all = capstone.find("cs_open", lib.open) && capstone.find("cs_close", lib.close) &&
                     capstone.find("cs_option", lib.option) && capstone.find("cs_malloc", lib.allocate) &&
                     capstone.find("cs_free", lib.free) && capstone.find("cs_disasm_iter", lib.disassemble);
    if (!all) lib.missing = "the " PERFMON_CAPSTONE_SONAME " found here lacks functions perfmon needs";
    return lib;
  }();
  return loaded;
}

struct Handle {
  const Library& lib;
  csh handle = 0;
  ~Handle() {
    if (handle != 0) lib.close(&handle);
  }
};

struct InstructionBuffer {
  const Library& lib;
  cs_insn* instruction = nullptr;
  ~InstructionBuffer() {
    if (instruction != nullptr) lib.free(instruction, 1);
  }
};

}  // namespace

std::vector<Instruction> disassemble(std::uint16_t machine, std::span<const std::uint8_t> code, std::uint64_t address,
                                     bool intel_syntax, std::string& why_not) {
  std::vector<Instruction> instructions;
  cs_arch arch{};
  cs_mode mode{};
  std::uint32_t bad_size = 1;
  if (machine == EM_X86_64) {
    arch = CS_ARCH_X86;
    mode = CS_MODE_64;
  } else if (machine == EM_AARCH64) {
    arch = CS_ARCH_ARM64;
    mode = CS_MODE_ARM;
    bad_size = 4;
  } else {
    why_not =
        "perfmon disassembles x86-64 and arm64 code, not this file's (ELF machine " + std::to_string(machine) + ")";
    return instructions;
  }
  const Library& lib = library();
  if (!lib.missing.empty()) {
    why_not = lib.missing;
    return instructions;
  }
  Handle capstone{lib};
  if (lib.open(arch, mode, &capstone.handle) != CS_ERR_OK) {
    why_not = "Capstone could not start its disassembler for this file's machine";
    return instructions;
  }
  if (arch == CS_ARCH_X86)
    lib.option(capstone.handle, CS_OPT_SYNTAX, intel_syntax ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
  InstructionBuffer buffer{lib};
  buffer.instruction = lib.allocate(capstone.handle);
  const std::uint8_t* bytes = code.data();
  std::size_t left = code.size();
  std::uint64_t at = address;
  while (left > 0) {
    if (lib.disassemble(capstone.handle, &bytes, &left, &at, buffer.instruction)) {
      const cs_insn& decoded = *buffer.instruction;
      std::string text = decoded.mnemonic;
      if (decoded.op_str[0] != '\0') {
        text.resize(std::max<std::size_t>(text.size() + 1, 7), ' ');
        text += decoded.op_str;
      }
      instructions.push_back({decoded.address, decoded.size, std::move(text)});
      continue;
    }
    const std::uint32_t skipped = static_cast<std::uint32_t>(std::min<std::size_t>(bad_size, left));
    instructions.push_back({at, skipped, "(bad)"});
    bytes += skipped;
    left -= skipped;
    at += skipped;
  }
  return instructions;
}

#else  // no Capstone

std::vector<Instruction> disassemble(std::uint16_t, std::span<const std::uint8_t>, std::uint64_t, bool,
                                     std::string& why_not) {
  why_not = "this perfmon was built without Capstone (libcapstone-dev), so it shows no instructions";
  return {};
}

#endif

}  // namespace perfmon::analysis
