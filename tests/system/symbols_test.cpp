// SPDX-License-Identifier: Apache-2.0
// Function names of stripped files: from a separate debug file found by build id or by
// .gnu_debuglink, never from a debug file of another build; a hidden symbol version of .dynsym
// named as nm -D names it where another version of the name needs telling apart; the PLT's stubs
// named as objdump names them; and, from DWARF, the function inlined at an address and its source
// line. Files are made with binutils' objcopy and strip from the test worker and a versioned test
// library.
#include <elf.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "kernel/build_id.hpp"
#include "perfmon/symbolizer.hpp"
#include "perfmon/symbols.hpp"
#include "profiles/symbol_table.hpp"

namespace perfmon {
namespace {

namespace fs = std::filesystem;

std::string output_of(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  pclose(pipe);
  return out;
}

void run(const std::string& command) {
  ASSERT_EQ(std::system((command + " 2>&1").c_str()), 0) << command;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The file offset of `symbol` in the ELF file at `path`: its address (nm) through the PT_LOAD
// segment that holds it. 0 when not found.
// The file offset of an address of an ELF file, through its loaded segments (0: none holds it).
std::uint64_t file_offset_of_address(const std::string& path, std::uint64_t address) {
  const std::string bytes = read_file(path);
  Elf64_Ehdr header;
  if (address == 0 || bytes.size() < sizeof header) return 0;
  std::memcpy(&header, bytes.data(), sizeof header);
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, bytes.data() + header.e_phoff + i * sizeof segment, sizeof segment);
    if (segment.p_type == PT_LOAD && address >= segment.p_vaddr && address - segment.p_vaddr < segment.p_filesz)
      return address - segment.p_vaddr + segment.p_offset;
  }
  return 0;
}

std::uint64_t file_offset_of(const std::string& path, const std::string& symbol) {
  std::istringstream lines(output_of("nm --defined-only '" + path + "'"));
  std::uint64_t address = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string value, type, name;
    if (fields >> value >> type >> name && name == symbol) address = std::stoull(value, nullptr, 16);
  }
  return file_offset_of_address(path, address);
}

// The text of the source line a place names.
std::string source_line(const SourcePlace& place) {
  std::istringstream lines(read_file(place.file));
  std::string line;
  for (unsigned n = 0; n < place.line && std::getline(lines, line);) ++n;
  return line;
}

class StrippedFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/perfmon-symbols-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    program_ = (dir_ / "program").string();
    fs::copy_file(WORKER, program_);
    leaf_ = file_offset_of(program_, "perfmon_leaf");
    ASSERT_NE(leaf_, 0u) << "the worker names perfmon_leaf";
    run("objcopy --only-keep-debug '" + program_ + "' '" + program_ + ".debug'");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The name SymbolTables gives perfmon_leaf's offset, looking for debug files under `root`.
  std::string leaf_name(const std::string& root) {
    SymbolTables symbols(root);
    std::uint64_t into = 0;
    const std::string_view* name = symbols.function_in_file(program_, leaf_, into);
    return std::string(name == nullptr ? "(none)" : *name);
  }

  fs::path dir_;
  std::string program_;
  std::uint64_t leaf_ = 0;
};

TEST_F(StrippedFiles, AreNamedByTheirDebugFileFoundByBuildId) {
  const fs::path root = dir_ / "debug";
  EXPECT_EQ(leaf_name(root.string()), "perfmon_leaf") << "before stripping";
  run("strip --strip-all '" + program_ + "'");
  EXPECT_EQ(leaf_name(root.string()), "(none)") << "stripped, with no debug file";
  const std::string hex = kernel::build_id_hex(kernel::elf_build_id(program_).value_or(""));
  ASSERT_GT(hex.size(), 2u) << "the worker is linked with a build id";
  fs::create_directories(root / ".build-id" / hex.substr(0, 2));
  fs::rename(program_ + ".debug", root / ".build-id" / hex.substr(0, 2) / (hex.substr(2) + ".debug"));
  EXPECT_EQ(leaf_name(root.string()), "perfmon_leaf");
}

TEST_F(StrippedFiles, AreNamedByTheirDebugLinkBesideThem) {
  run("strip --strip-all '" + program_ + "'");
  run("cd '" + dir_.string() + "' && objcopy --add-gnu-debuglink=program.debug program");
  fs::create_directories(dir_ / ".debug");
  fs::rename(program_ + ".debug", dir_ / ".debug" / "program.debug");
  EXPECT_EQ(leaf_name((dir_ / "no-root").string()), "perfmon_leaf");
}

TEST_F(StrippedFiles, IgnoreADebugFileOfAnotherBuild) {
  run("strip --strip-all '" + program_ + "'");
  run("cd '" + dir_.string() + "' && objcopy --add-gnu-debuglink=program.debug program");
  // The same file with one byte of its build id changed: another build's, whose addresses would lie.
  std::string debug = read_file(program_ + ".debug");
  const std::string id = kernel::elf_build_id(program_).value_or("");
  const std::size_t at = debug.find(id);
  ASSERT_FALSE(id.empty());
  ASSERT_NE(at, std::string::npos);
  debug[at] = static_cast<char>(debug[at] ^ 1);
  std::ofstream(program_ + ".debug", std::ios::binary | std::ios::trunc) << debug;
  EXPECT_EQ(leaf_name((dir_ / "no-root").string()), "(none)");
}

// A hidden version is named with its version only where another version of the name needs telling
// apart, as perf names them.
TEST_F(StrippedFiles, HiddenSymbolVersionsAreNamedWithTheirVersion) {
  const std::string library = (dir_ / "libversioned.so").string();
  fs::copy_file(VERSIONED_LIBRARY, library);
  const std::uint64_t v1 = file_offset_of(library, "versioned_function_v1"),
                      v2 = file_offset_of(library, "versioned_function_v2"),
                      only = file_offset_of(library, "only_hidden_function_v1");
  ASSERT_NE(v1, 0u);
  ASSERT_NE(v2, 0u);
  ASSERT_NE(only, 0u);
  run("strip --strip-all '" + library + "'");  // .dynsym alone names them now
  SymbolTables symbols((dir_ / "no-root").string());
  std::uint64_t into = 1;
  const std::string_view* old_version = symbols.function_in_file(library, v1, into);
  ASSERT_NE(old_version, nullptr);
  EXPECT_EQ(*old_version, "versioned_function@PERFMON_1");
  EXPECT_EQ(into, 0u);
  const std::string_view* default_version = symbols.function_in_file(library, v2, into);
  ASSERT_NE(default_version, nullptr);
  EXPECT_EQ(*default_version, "versioned_function");
  const std::string_view* alone = symbols.function_in_file(library, only, into);
  ASSERT_NE(alone, nullptr);
  EXPECT_EQ(*alone, "only_hidden_function");
}

// Of two names of one function that rank alike, the first in the symbol table, as perf keeps it.
TEST_F(StrippedFiles, AliasesThatRankAlikeAreNamedByTheFirstInTheTable) {
  const std::string library = (dir_ / "libversioned.so").string();
  fs::copy_file(VERSIONED_LIBRARY, library);
  const std::uint64_t offset = file_offset_of(library, "alias_alike_a");
  ASSERT_NE(offset, 0u);
  const std::string listing = output_of("readelf -sW '" + library + "'");
  const std::size_t symtab = listing.find("'.symtab'");
  ASSERT_NE(symtab, std::string::npos);
  const std::size_t a = listing.find(" alias_alike_a\n", symtab), b = listing.find(" alias_alike_b\n", symtab);
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  SymbolTables symbols((dir_ / "no-root").string());
  std::uint64_t into = 1;
  const std::string_view* name = symbols.function_in_file(library, offset, into);
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(*name, a < b ? "alias_alike_a" : "alias_alike_b");
}

// Where SymbolTables finds DWARF for perfmon_leaf: its line lies in the worker's source, on the
// line that adds to the sink.
TEST_F(StrippedFiles, SourceLinesComeFromTheDebugFile) {
  const fs::path root = dir_ / "debug";
  run("strip --strip-all '" + program_ + "'");
  const std::string hex = kernel::build_id_hex(kernel::elf_build_id(program_).value_or(""));
  fs::create_directories(root / ".build-id" / hex.substr(0, 2));
  fs::rename(program_ + ".debug", root / ".build-id" / hex.substr(0, 2) / (hex.substr(2) + ".debug"));
  SymbolTables symbols(root.string());
  SourcePlace place;
  bool in_loop = false;
  for (std::uint64_t offset = leaf_; offset < leaf_ + 256 && !in_loop; ++offset) {
    const SourcePlace* found = symbols.source_in_file(program_, offset);
    if (found != nullptr && found->line != 0) {
      place = *found;
      in_loop = source_line(place).find("sink = sink + i") != std::string::npos;
    }
  }
  EXPECT_TRUE(in_loop) << place.file << ":" << place.line;
  EXPECT_TRUE(place.file.ends_with("tests/helpers/worker.cpp")) << place.file;
}

// The worker's perfmon_inlined_getppid is inlined into perfmon_inline_caller: the symbol table
// knows only the caller; DWARF says which of its instructions are the inlined function's, and
// their line is the inlined function's system call.
TEST(Dwarf, NamesTheFunctionInlinedAtAnAddressAndItsLine) {
  const std::uint64_t caller = file_offset_of(WORKER, "perfmon_inline_caller");
  ASSERT_NE(caller, 0u);
  SymbolTables symbols;
  unsigned inlined = 0, outside = 0;
  for (std::uint64_t offset = caller; offset < caller + 512; ++offset) {
    std::uint64_t into = 0;
    const std::string_view* function = symbols.function_in_file(WORKER, offset, into);
    if (function == nullptr || *function != "perfmon_inline_caller") break;  // past its end
    const SourcePlace* place = symbols.source_in_file(WORKER, offset);
    ASSERT_NE(place, nullptr) << "the worker is built with -g";
    if (place->inlined.empty()) {
      ++outside;
      continue;
    }
    ++inlined;
    EXPECT_EQ(place->inlined, std::vector<std::string>{"perfmon_inlined_getppid"});
    if (place->line != 0 && source_line(*place).find("syscall(SYS_getppid)") != std::string::npos) inlined += 100;
  }
  EXPECT_GT(inlined, 100u) << "some instruction is the inlined function's system call";
  EXPECT_GT(outside, 0u) << "the caller's own instructions are no inlined function's";

  // perfmon_leaf inlines nothing.
  const SourcePlace* leaf = symbols.source_in_file(WORKER, file_offset_of(WORKER, "perfmon_leaf"));
  ASSERT_NE(leaf, nullptr);
  EXPECT_TRUE(leaf->inlined.empty());
}

// An address inside a compilation unit that no line describes is ":0", as perf (through addr2line)
// shows it: the dynamic loader's entry, _start, an assembly label in rtld.c's unit, with the
// loader's debug file (Debian's libc6-dbg).
TEST(Dwarf, AnAddressThatNoLineDescribesIsColonZero) {
  std::string loader;
  for (std::istringstream lines(output_of("readelf -lW '" + std::string(WORKER) + "'")); std::getline(lines, loader);)
    if (loader.find("program interpreter: ") != std::string::npos) break;
  const std::size_t at = loader.find("interpreter: ");
  ASSERT_NE(at, std::string::npos) << "the worker is dynamically linked";
  loader = fs::canonical(loader.substr(at + 13, loader.find(']', at) - at - 13)).string();
  Elf64_Ehdr header;
  const std::string bytes = read_file(loader);
  ASSERT_GE(bytes.size(), sizeof header);
  std::memcpy(&header, bytes.data(), sizeof header);
  const std::uint64_t entry = file_offset_of_address(loader, header.e_entry);
  ASSERT_NE(entry, 0u);
  SymbolTables symbols;
  NamedAddress named;
  named.place.file = loader;
  named.place.offset = entry;
  named.function = symbols.function_in_file(loader, entry, named.into);
  const SourcePlace* place =
      named.function != nullptr && *named.function == "_start" ? symbols.source_in_file(loader, entry) : nullptr;
  if (place == nullptr) GTEST_SKIP() << "the dynamic loader's debug file is not installed (Debian's libc6-dbg)";
  EXPECT_EQ(place->line, 0u);
  EXPECT_EQ(source_line_text(named, place), ":0");
  EXPECT_EQ(source_line_text(named, nullptr), "_start+0") << "without DWARF, the function and offset";
}

// Of a kernel address's names, the one perf shows: the last in /proc/kallsyms (perf gives the
// others no size), as __x86_indirect_thunk_r8 after __pi___x86_indirect_thunk_r8.
TEST(KernelSymbols, AnAddressWithSeveralNamesIsNamedAsPerfNamesIt) {
  std::ifstream kallsyms("/proc/kallsyms");
  std::uint64_t alias = 0, previous = 0;
  std::string last;
  for (std::string line; std::getline(kallsyms, line);) {
    std::istringstream fields(line);
    std::string value, type, name;
    if (!(fields >> value >> type >> name) || (type != "t" && type != "T")) continue;
    const std::uint64_t address = std::stoull(value, nullptr, 16);
    if (address == 0) break;                    // hidden (kptr_restrict)
    if (alias != 0 && address != alias) break;  // past the first address with several names
    if (address == previous) alias = address;
    if (alias != 0) last = name;
    previous = address;
  }
  if (alias == 0) GTEST_SKIP() << "/proc/kallsyms hides its addresses, or no text address has two names";
  SymbolTables symbols;
  std::uint64_t into = 1;
  const std::string_view* name = symbols.function_in_kernel(alias, into);
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(*name, last);
  EXPECT_EQ(into, 0u);
}

// C++ names as perf shows them (libiberty without DMGL_PARAMS, c++filt -p): without parameters,
// and a function template's instance without its return type.
TEST(Demangling, LeavesOutParametersAndTemplateReturnTypes) {
  EXPECT_EQ(
      demangled_function_name("_ZSt9has_facetISt7num_putIwSt19ostreambuf_iteratorIwSt11char_traitsIwEEEEbRKSt6locale"),
      "std::has_facet<std::num_put<wchar_t, std::ostreambuf_iterator<wchar_t, std::char_traits<wchar_t> > > >");
  EXPECT_EQ(demangled_function_name("_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc"),
            "std::operator<< <std::char_traits<char> >");
  EXPECT_EQ(demangled_function_name("_ZNSt6vectorIiSaIiEEixEm"), "std::vector<int, std::allocator<int> >::operator[]");
  EXPECT_EQ(demangled_function_name("_ZN12_GLOBAL__N_11fEv"), "(anonymous namespace)::f");
  EXPECT_EQ(demangled_function_name("perfmon_leaf"), "perfmon_leaf");
}

// Every stub objdump names "f@plt" in .plt, .plt.sec and .plt.got is named so (the PLT's header
// ".plt", as perf names it); C++ names demangled, as all names are.
TEST(PltStubs, AreNamedAsObjdumpNamesThem) {
  for (const std::string& file : {std::string(WORKER), std::string("/usr/lib/x86_64-linux-gnu/libstdc++.so.6")}) {
    if (!fs::exists(file)) continue;
    std::istringstream lines(output_of("objdump -d -F -j .plt -j .plt.sec -j .plt.got '" + file + "' 2>/dev/null"));
    SymbolTables symbols;
    unsigned checked = 0;
    for (std::string line; std::getline(lines, line);) {
      // "0000000000002030 <getppid@plt> (File Offset: 0x2030):"
      const std::size_t open = line.find(" <"), close = line.find(">", open), at = line.find("(File Offset: 0x");
      if (open == std::string::npos || close == std::string::npos || at == std::string::npos) continue;
      const std::string label = line.substr(open + 2, close - open - 2);
      if (!label.ends_with("@plt") || label.find('+') != std::string::npos || label.starts_with("_Z")) continue;
      std::uint64_t into = 1;
      const std::string_view* name =
          symbols.function_in_file(file, std::stoull(line.substr(at + 16), nullptr, 16), into);
      ASSERT_NE(name, nullptr) << line;
      EXPECT_EQ(*name, label) << line;
      EXPECT_EQ(into, 0u) << line;
      ++checked;
    }
    EXPECT_GT(checked, 5u) << file;
  }
}

}  // namespace
}  // namespace perfmon
