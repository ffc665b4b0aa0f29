// SPDX-License-Identifier: Apache-2.0
// GNU build-id notes, as the kernel and ELF files hold them, and notes that lie about their sizes.
#include "kernel/build_id.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace perfmon::kernel {
namespace {

// A note: namesz, descsz, type, the name and the description, each padded to 4 bytes.
std::string note(std::uint32_t type, const std::string& name, const std::string& desc) {
  std::string out;
  auto word = [&](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  word(static_cast<std::uint32_t>(name.size()));
  word(static_cast<std::uint32_t>(desc.size()));
  word(type);
  out += name;
  out.append((4 - name.size() % 4) % 4, '\0');
  out += desc;
  out.append((4 - desc.size() % 4) % 4, '\0');
  return out;
}

TEST(BuildId, FoundAmongOtherNotes) {
  const std::string id(20, '\xab');
  const std::string notes = note(6, std::string("Linux\0", 6), "abcd") + note(3, std::string("GNU\0", 4), id);
  EXPECT_EQ(build_id_in_notes(notes), id);
  EXPECT_EQ(build_id_in_notes(note(3, std::string("XYZ\0", 4), id)), std::nullopt);  // not GNU's
}

TEST(BuildId, NotesThatLieAboutTheirSizesAreRefused) {
  std::string notes = note(3, std::string("GNU\0", 4), std::string(20, 'x'));
  EXPECT_EQ(build_id_in_notes(notes.substr(0, notes.size() - 1)), std::nullopt);
  notes[4] = '\xff';  // descsz far beyond the end
  notes[5] = '\xff';
  EXPECT_EQ(build_id_in_notes(notes), std::nullopt);
  EXPECT_EQ(build_id_in_notes(""), std::nullopt);
}

TEST(BuildId, OfAFileThatIsNotElf) {
  EXPECT_EQ(elf_build_id("/proc/self/status"), std::nullopt);
  EXPECT_EQ(elf_build_id("/nonexistent"), std::nullopt);
  EXPECT_TRUE(elf_build_id("/proc/self/exe").has_value());  // this test, linked with a build id
}

TEST(BuildId, FromTheBytesOfAnElfFileAndAnyPrefixOfThem) {
  const std::optional<std::string> id = elf_build_id("/proc/self/exe");
  ASSERT_TRUE(id.has_value());
  std::ifstream file("/proc/self/exe", std::ios::binary);
  std::string bytes(64 * 1024, '\0');  // the headers and notes come first
  file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(file.gcount()));
  EXPECT_EQ(build_id_in_elf(bytes), id);
  std::size_t found_in = 0;
  for (std::size_t size = 0; size < 4096 && size < bytes.size(); ++size)
    found_in += build_id_in_elf(std::string_view(bytes).substr(0, size)).has_value();
  EXPECT_LT(found_in, 4096u) << "a prefix that cuts the notes cannot hold the id";
  EXPECT_EQ(build_id_hex(std::string("\x01\xab\xff", 3)), "01abff");
  EXPECT_EQ(build_id_hex(*id).size(), 2 * id->size());
}

}  // namespace
}  // namespace perfmon::kernel
