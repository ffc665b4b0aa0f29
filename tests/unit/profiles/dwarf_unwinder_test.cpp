// SPDX-License-Identifier: Apache-2.0
#include "profiles/dwarf_unwinder.hpp"

#include <asm/perf_regs.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <array>
#include <fstream>
#include <string>

namespace perfmon::analysis {
namespace {

// An address of a file's code that CFI does not describe, and one beyond all of its segments,
// both where the file is mapped: the second must leave what libdwfl was told of the file as it
// was. (Asked to report the same file at the same place again, libdwfl marks the module it has
// for removal and frees it, with the machine description the next unwinding reads: a perf
// recording with data mappings sent an unwound return address into such a gap and the report
// aborted in libdw. ctest runs this test under valgrind too, which sees the freed module read.)
TEST(DwarfUnwinder, AnAddressBetweenAFilesSegmentsLeavesTheFileReported) {
#if defined(__x86_64__)
  if (!DwarfUnwinder::available()) GTEST_SKIP() << "this build has no libdw";
  const std::string path = "/proc/self/exe";
  Elf64_Ehdr header{};
  std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(&header), sizeof header);
  ASSERT_EQ(header.e_ident[EI_CLASS], ELFCLASS64);
  constexpr std::uint64_t kBase = 0x500000000000;
  const DwarfUnwinder::Locate locate = [&](std::uint32_t, std::uint64_t, std::string& file, std::uint64_t& base) {
    file = path;
    base = kBase;
    return true;
  };
  constexpr std::uint64_t kMask = std::uint64_t{1} << PERF_REG_X86_IP | std::uint64_t{1} << PERF_REG_X86_SP;
  auto unwind_at = [&](DwarfUnwinder& unwinder, std::uint64_t pc) {
    const std::array<std::uint64_t, 2> regs{0x7ff000000000, pc};  // sp, ip: by register number
    Sample sample;
    sample.pid = sample.tid = 4242;
    sample.user_regs_abi = PERF_SAMPLE_REGS_ABI_64;
    sample.user_regs = regs;
    std::vector<std::uint64_t> frames;
    unwinder.unwind(sample, kMask, locate, frames);
    return frames;
  };
  DwarfUnwinder unwinder("/usr/lib/debug");
  const std::uint64_t entry = kBase + header.e_entry;
  EXPECT_EQ(unwind_at(unwinder, entry), std::vector<std::uint64_t>{entry});
  EXPECT_TRUE(unwind_at(unwinder, kBase + 0x7fff0000).empty());
  for (int again = 0; again < 3; ++again) EXPECT_EQ(unwind_at(unwinder, entry), std::vector<std::uint64_t>{entry});
#else
  GTEST_SKIP() << "written for x86-64's registers";
#endif
}

}  // namespace
}  // namespace perfmon::analysis
