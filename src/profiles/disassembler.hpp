// SPDX-License-Identifier: Apache-2.0
// A function's bytes as instructions, through Capstone: x86-64 in AT&T syntax (what perf annotate
// and objdump show), arm64 as its manuals write it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace perfmon::analysis {

struct Instruction {
  std::uint64_t address = 0;
  std::uint32_t size = 0;
  std::string text;  // "add    %rdx,%rax": the mnemonic padded as objdump pads it, then the operands
};

// The instructions of `code`, the first at `address`; bytes that are no instruction show as
// "(bad)" (one byte on x86-64, four on arm64), and the rest is still read. Empty, with `why_not`
// set to a sentence, where this build has no Capstone or `machine` (an ELF e_machine) is not one
// that perfmon disassembles. x86 code in AT&T syntax, or Intel's with `intel_syntax`.
std::vector<Instruction> disassemble(std::uint16_t machine, std::span<const std::uint8_t> code, std::uint64_t address,
                                     bool intel_syntax, std::string& why_not);

}  // namespace perfmon::analysis
