// SPDX-License-Identifier: Apache-2.0
#include "events/syntax/pctr.hpp"

#include <gtest/gtest.h>

#include <random>

#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"

namespace perfmon::events {
namespace {

TEST(Pctr, ConstantsSitWhereThePerfEvtSelFieldsAre) {
  PerfEvtSel all =
      parse_pctr_word("0x2e|PCTR_UM_MESI|PCTR_UM_A|PCTR_U|PCTR_K|PCTR_E|PCTR_EN|PCTR_I|(3<<PCTR_CM_SHIFT)");
  EXPECT_EQ(all.event, 0x2e);
  EXPECT_EQ(all.umask, 0x2f);
  EXPECT_TRUE(all.usr && all.os && all.edge && all.enable && all.invert);
  EXPECT_FALSE(all.interrupt || all.pin_control || all.any_thread);
  EXPECT_EQ(all.cmask, 3);
  EXPECT_EQ(all.encode(), 0x03c72f2eu);
  EXPECT_EQ(parse_pctr_word("0x29|PCTR_UM_M|PCTR_UM_I").umask, 0x09);
  EXPECT_EQ(parse_pctr_word("0xc0 | (0x01<<PCTR_UM_SHIFT) | PCTR_U").encode(), 0x101c0u);
}

TEST(Pctr, FormatThenParseIsTheIdentity) {
  std::mt19937 random(7);
  for (int i = 0; i < 10000; ++i) {
    std::uint32_t word = random();
    PerfEvtSel select = PerfEvtSel::decode(word);
    EXPECT_EQ(parse_pctr_word(format_pctr_word(select)).encode(), word) << format_pctr_word(select);
  }
  EXPECT_EQ(format_pctr_word(PerfEvtSel::decode(0x02430f2e)),
            "0x2e|PCTR_UM_MESI|PCTR_U|PCTR_K|PCTR_EN|(2<<PCTR_CM_SHIFT)");
}

TEST(Pctr, MalformedWordsSayWhichTerm) {
  for (const auto& [text, part] : std::vector<std::pair<const char*, const char*>>{
           {"", "the function word is empty"},
           {"0x2e|PCTR_X", "'PCTR_X' is neither a number nor a PCTR_* constant"},
           {"0x2e|(2<<PCTR_Q_SHIFT)", "is not N<<PCTR_UM_SHIFT or N<<PCTR_CM_SHIFT"},
           {"0x2e|(0x100<<PCTR_CM_SHIFT)", "shifts more than a byte"},
           {"0x1ffffffff", "wider than the 32-bit function word"},
           {"0x2e||PCTR_U", "'' is neither"}}) {
    try {
      parse_pctr_word(text);
      FAIL() << text;
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << text << ": " << error.what();
    }
  }
}

TEST(Pctr, ResolvesThroughTheCatalogToTheSameAttrAsPerfEvtSel) {
  CatalogPaths paths;
  paths.tracefs = "/nonexistent";
  Event event = EventCatalog(paths).resolve("pctr:0x2e|PCTR_UM_MESI|PCTR_U|(2<<PCTR_CM_SHIFT)");
  EXPECT_EQ(event.attr.type, static_cast<std::uint32_t>(PERF_TYPE_RAW));
  EXPECT_EQ(event.attr.config, 0x02000f2eu);  // PCTR_U/PCTR_K go to the exclude bits, EN/INT to the kernel
  EXPECT_TRUE(event.attr.exclude_kernel);
  EXPECT_FALSE(event.attr.exclude_user);
}

}  // namespace
}  // namespace perfmon::events
