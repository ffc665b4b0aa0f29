// Function names of stripped files: from a separate debug file found by build id or by
// .gnu_debuglink, never from a debug file of another build; and the hidden symbol versions of
// .dynsym named as nm -D and perf name them. Files are made with binutils' objcopy and strip from
// the test worker and a versioned test library.
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
#include "perfmon/symbols.hpp"

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
std::uint64_t file_offset_of(const std::string& path, const std::string& symbol) {
  std::istringstream lines(output_of("nm --defined-only '" + path + "'"));
  std::uint64_t address = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string value, type, name;
    if (fields >> value >> type >> name && name == symbol) address = std::stoull(value, nullptr, 16);
  }
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
    const std::string* name = symbols.function_in_file(program_, leaf_, into);
    return name == nullptr ? "(none)" : *name;
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

TEST_F(StrippedFiles, HiddenSymbolVersionsAreNamedWithTheirVersion) {
  const std::string library = (dir_ / "libversioned.so").string();
  fs::copy_file(VERSIONED_LIBRARY, library);
  const std::uint64_t v1 = file_offset_of(library, "versioned_function_v1"),
                      v2 = file_offset_of(library, "versioned_function_v2");
  ASSERT_NE(v1, 0u);
  ASSERT_NE(v2, 0u);
  run("strip --strip-all '" + library + "'");  // .dynsym alone names them now
  SymbolTables symbols((dir_ / "no-root").string());
  std::uint64_t into = 1;
  const std::string* old_version = symbols.function_in_file(library, v1, into);
  ASSERT_NE(old_version, nullptr);
  EXPECT_EQ(*old_version, "versioned_function@PERFMON_1");
  EXPECT_EQ(into, 0u);
  const std::string* default_version = symbols.function_in_file(library, v2, into);
  ASSERT_NE(default_version, nullptr);
  EXPECT_EQ(*default_version, "versioned_function");
}

}  // namespace
}  // namespace perfmon
