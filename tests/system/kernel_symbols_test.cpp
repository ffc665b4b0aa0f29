// SPDX-License-Identifier: Apache-2.0
// The kernel's symbols kept between runs (SymbolTables::keep_kernel_symbols_in): the first reading
// of /proc/kallsyms writes a copy, a later process names kernel addresses from it, and a copy of
// another boot, a damaged one, or an address it does not cover go back to /proc/kallsyms. The copy
// is told apart from kallsyms by a name changed in it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "perfmon/symbols.hpp"
#include "profiles/kernel_symbols.hpp"

namespace perfmon {
namespace {

namespace fs = std::filesystem;

struct KallsymsFunction {
  std::uint64_t start = 0;
  std::string name;
};

// A function of the kernel itself that kallsyms names alone at its address, the next function
// after it some bytes on; and the kernel's last function.
struct Chosen {
  KallsymsFunction inner, last;
};

Chosen choose_functions() {
  std::ifstream kallsyms("/proc/kallsyms");
  const std::string names{std::istreambuf_iterator<char>(kallsyms), std::istreambuf_iterator<char>()};
  kallsyms.seekg(0);
  Chosen chosen;
  KallsymsFunction previous;
  bool previous_alone = false;
  for (std::string line; std::getline(kallsyms, line);) {
    std::istringstream fields(line);
    std::string value, type, name, owner;
    if (!(fields >> value >> type >> name) || (type != "t" && type != "T")) continue;
    const std::uint64_t address = std::stoull(value, nullptr, 16);
    if (address == 0) return {};  // hidden (kptr_restrict)
    if (fields >> owner) break;   // the modules follow the kernel
    if (chosen.inner.start == 0 && previous_alone && address > previous.start + 8 && previous.name.size() >= 12 &&
        previous.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos &&
        names.find(previous.name) == names.rfind(previous.name))
      chosen.inner = previous;
    previous_alone = address != previous.start;
    previous = {address, name};
  }
  chosen.last = previous;
  return chosen;
}

class KeptKernelSymbols : public ::testing::Test {
 protected:
  void SetUp() override {
    chosen_ = choose_functions();
    if (chosen_.inner.start == 0) GTEST_SKIP() << "/proc/kallsyms hides its addresses (kptr_restrict)";
    char pattern[] = "/tmp/perfmon-kernel-symbols-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    directory_ = pattern;
    SymbolTables::keep_kernel_symbols_in(directory_ + "/cache");
  }
  void TearDown() override {
    SymbolTables::keep_kernel_symbols_in("");
    if (!directory_.empty()) fs::remove_all(directory_);
  }

  // The name a SymbolTables of its own gives an address (each is a new process's reading).
  static std::string name_of(std::uint64_t address) {
    SymbolTables symbols;
    std::uint64_t into = 0;
    const std::string_view* name = symbols.function_in_kernel(address, into);
    return name != nullptr ? std::string(*name) + "+" + std::to_string(into) : "(none)";
  }

  std::string copy_path() const { return directory_ + "/cache/kernel-symbols"; }
  std::string read_copy() const {
    std::ifstream in(copy_path(), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void write_copy(const std::string& bytes) const { std::ofstream(copy_path(), std::ios::binary) << bytes; }
  // The copy with the chosen function's name in capitals: what names from the copy says so.
  void mark_copy() const {
    std::string bytes = read_copy();
    const std::size_t at = bytes.find(chosen_.inner.name);
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(at, bytes.rfind(chosen_.inner.name)) << "the name is part of another's";
    for (std::size_t i = 0; i < chosen_.inner.name.size(); ++i)
      bytes[at + i] = static_cast<char>(std::toupper(static_cast<unsigned char>(bytes[at + i])));
    write_copy(bytes);
  }
  static std::string upper(std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
  }

  Chosen chosen_;
  std::string directory_;
};

TEST_F(KeptKernelSymbols, TheFirstReadingWritesItAndALaterOneNamesFromIt) {
  EXPECT_EQ(name_of(chosen_.inner.start + 3), chosen_.inner.name + "+3");
  ASSERT_TRUE(fs::exists(copy_path())) << "the reading of /proc/kallsyms made no copy";
  EXPECT_EQ(fs::status(copy_path()).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  mark_copy();
  EXPECT_EQ(name_of(chosen_.inner.start + 3), upper(chosen_.inner.name) + "+3");
}

TEST_F(KeptKernelSymbols, OneOfAnotherBootIsNotUsedButReplaced) {
  name_of(chosen_.inner.start);
  mark_copy();
  std::string bytes = read_copy();
  bytes[8] = bytes[8] == '0' ? '1' : '0';  // the boot id follows the 8-byte magic
  write_copy(bytes);
  EXPECT_EQ(name_of(chosen_.inner.start + 3), chosen_.inner.name + "+3");
  // That reading wrote a copy of this boot again.
  mark_copy();
  EXPECT_EQ(name_of(chosen_.inner.start + 3), upper(chosen_.inner.name) + "+3");
}

TEST_F(KeptKernelSymbols, ADamagedOneIsNotUsed) {
  name_of(chosen_.inner.start);
  mark_copy();
  const std::string bytes = read_copy();
  for (const std::size_t keep : {std::size_t{0}, std::size_t{40}, bytes.size() / 2, bytes.size() - 1}) {
    write_copy(bytes.substr(0, keep));
    EXPECT_EQ(name_of(chosen_.inner.start + 3), chosen_.inner.name + "+3") << "kept " << keep << " bytes";
  }
}

// The kernel's last function has no known end: the copy leaves it out, and kallsyms names it, as
// it names any address the copy does not cover (a BPF program loaded since).
TEST_F(KeptKernelSymbols, WhatItDoesNotCoverKallsymsNames) {
  const std::string from_kallsyms = name_of(chosen_.last.start + 16);
  EXPECT_EQ(from_kallsyms, chosen_.last.name + "+16");
  mark_copy();
  SymbolTables symbols;
  std::uint64_t into = 0;
  const std::string_view* inner = symbols.function_in_kernel(chosen_.inner.start, into);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(*inner, upper(chosen_.inner.name));
  const std::string_view* last = symbols.function_in_kernel(chosen_.last.start + 16, into);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(std::string(*last) + "+" + std::to_string(into), from_kallsyms);
  // The earlier name stays as it was given: a look-up may hold it.
  EXPECT_EQ(*inner, upper(chosen_.inner.name));
}

// Every 50th symbol's address, and a byte into it, named the same from the copy as from kallsyms.
TEST_F(KeptKernelSymbols, NamesWhatKallsymsNames) {
  std::vector<std::uint64_t> addresses;
  std::ifstream kallsyms("/proc/kallsyms");
  for (std::string line; std::getline(kallsyms, line);)
    if (addresses.size() % 50 == 0 || line.find(chosen_.inner.name) != std::string::npos) {
      const std::uint64_t start = std::stoull(line.substr(0, line.find(' ')), nullptr, 16);
      addresses.push_back(start);
      addresses.push_back(start + 1);
    } else {
      addresses.push_back(0);
    }
  std::erase(addresses, 0);
  std::vector<std::string> from_kallsyms, from_copy;
  {
    SymbolTables symbols;
    for (std::uint64_t address : addresses) {
      std::uint64_t into = 0;
      const std::string_view* name = symbols.function_in_kernel(address, into);
      from_kallsyms.push_back(name != nullptr ? std::string(*name) + "+" + std::to_string(into) : "(none)");
    }
  }
  mark_copy();
  SymbolTables symbols;
  for (std::uint64_t address : addresses) {
    std::uint64_t into = 0;
    const std::string_view* name = symbols.function_in_kernel(address, into);
    from_copy.push_back(name != nullptr ? std::string(*name) + "+" + std::to_string(into) : "(none)");
  }
  ASSERT_EQ(from_copy.size(), from_kallsyms.size());
  std::size_t marked = 0;
  for (std::size_t i = 0; i < from_copy.size(); ++i) {
    if (from_copy[i] != from_kallsyms[i] &&
        from_copy[i] == upper(from_kallsyms[i].substr(0, chosen_.inner.name.size())) +
                            from_kallsyms[i].substr(chosen_.inner.name.size())) {
      ++marked;
      continue;
    }
    EXPECT_EQ(from_copy[i], from_kallsyms[i]) << std::hex << addresses[i];
  }
  EXPECT_GE(marked, 1u) << "no name came from the copy";
}

// Modules and code loaded at any time, in a file of kallsyms' form (this machine's kernel may have
// no modules): a module's functions end at the next one, its last is left out, and neither BPF
// programs nor ftrace's trampolines are kept.
TEST_F(KeptKernelSymbols, ModulesLastFunctionsAndBpfProgramsAreLeftOut) {
  const std::string kallsyms = directory_ + "/kallsyms";
  std::ofstream(kallsyms) << "ffffffff81000000 T _text\n"
                             "ffffffff81000100 t core_function\n"
                             "ffffffff81000200 D core_data\n"
                             "ffffffff81000300 T core_last\n"
                             "ffffffffc0000000 t ext4_first\t[ext4]\n"
                             "ffffffffc0000040 t ext4_second\t[ext4]\n"
                             "ffffffffc0000080 t ext4_last\t[ext4]\n"
                             "ffffffffc0001000 t xfs_only\t[xfs]\n"
                             "ffffffffc0002000 t bpf_prog_6deef7357e7b4530_sd_fw_egress\t[bpf]\n"
                             "ffffffffc0003000 t ftrace_trampoline\t[__builtin__ftrace]\n"
                             "ffffffffc0003800 t nfs_first\t[nfs]\n"
                             "ffffffffc0003900 t nfs_last\t[nfs]\n";
  const auto whole = read_kernel_symbols(directory_ + "/cache", kallsyms.c_str());
  ASSERT_EQ(whole->functions.size(), 11u);  // core_data is no function
  const std::unique_ptr<const perfmon::KernelSymbolCopy> copy = perfmon::KernelSymbolCopy::map(directory_ + "/cache");
  ASSERT_NE(copy, nullptr);
  auto name_in_copy = [&](std::uint64_t address) {
    std::uint64_t into = 0;
    const std::string_view* name = copy->at(address, into);
    return name != nullptr ? std::string(*name) + "+" + std::to_string(into) : "(none)";
  };
  EXPECT_EQ(name_in_copy(0xffffffff80ffffff), "(none)");
  EXPECT_EQ(name_in_copy(0xffffffff81000000), "_text+0");
  EXPECT_EQ(name_in_copy(0xffffffff81000280), "core_function+384");
  EXPECT_EQ(name_in_copy(0xffffffff81000300), "(none)");  // the kernel's last: its end is not known
  EXPECT_EQ(name_in_copy(0xffffffffbfffffff), "(none)");
  EXPECT_EQ(name_in_copy(0xffffffffc0000000), "ext4_first+0");
  EXPECT_EQ(name_in_copy(0xffffffffc000007f), "ext4_second+63");
  EXPECT_EQ(name_in_copy(0xffffffffc0000080), "(none)");
  EXPECT_EQ(name_in_copy(0xffffffffc0001000), "(none)");  // a module of one function
  EXPECT_EQ(name_in_copy(0xffffffffc0002010), "(none)");
  EXPECT_EQ(name_in_copy(0xffffffffc0003010), "(none)");
  EXPECT_EQ(name_in_copy(0xffffffffc0003800), "nfs_first+0");
  EXPECT_EQ(name_in_copy(0xffffffffc0003900), "(none)");
  EXPECT_EQ(name_in_copy(0xffffffffffffffff), "(none)");
}

TEST_F(KeptKernelSymbols, NoneIsKeptByDefault) {
  SymbolTables::keep_kernel_symbols_in("");
  name_of(chosen_.inner.start);
  EXPECT_FALSE(fs::exists(directory_ + "/cache"));
}

}  // namespace
}  // namespace perfmon
