// SPDX-License-Identifier: Apache-2.0
// Vendor event names through libpfm4, for CPU models other than the host's (forced), and the
// values Linux's pmu-events tables document for them.
#include "events/sources/libpfm.hpp"

#include <gtest/gtest.h>

#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perfevtsel.hpp"

namespace perfmon::events {
namespace {

class Libpfm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!libpfm_available()) GTEST_SKIP() << "this build has no libpfm4 (Debian's libpfm4-dev)";
  }
  static Event resolve(const std::string& model, const std::string& name) {
    CatalogPaths paths;
    paths.tracefs = "/nonexistent";
    paths.cpu_model = model;
    return EventCatalog(paths).resolve(name);
  }
};

struct Documented {
  const char* name;
  std::uint64_t config;  // from tools/perf/pmu-events/arch/x86/skylake/*.json
};

TEST_F(Libpfm, SkylakeEncodingsMatchLinuxPmuEventsWithCmaskInvEdgeAndAnyThread) {
  for (const Documented& event : {
           Documented{"INST_RETIRED.ANY_P", 0xc0},
           Documented{"L2_RQSTS.MISS", 0x3f24},
           Documented{"UOPS_ISSUED.STALL_CYCLES", 0x0e | 0x01 << 8 | 1u << 23 | 1u << 24},  // inv, cmask 1
           Documented{"CYCLE_ACTIVITY.STALLS_TOTAL", 0xa3 | 0x04 << 8 | 4u << 24},          // cmask 4
           Documented{"MACHINE_CLEARS.COUNT", 0xc3 | 0x01 << 8 | 1u << 18 | 1u << 24},      // edge, cmask 1
           Documented{"CPU_CLK_UNHALTED.THREAD_P:t=1", 0x3c | 1u << 21},                    // AnyThread
           Documented{"L2_RQSTS.MISS:c=2", 0x3f24 | 2u << 24},
       }) {
    Event resolved = resolve("skl", event.name);
    EXPECT_EQ(resolved.attr.type, static_cast<std::uint32_t>(PERF_TYPE_RAW)) << event.name;
    EXPECT_EQ(resolved.attr.config, event.config) << event.name;
    EXPECT_FALSE(resolved.attr.exclude_kernel) << event.name;  // user and kernel, as perf counts by default
  }
  Event user_only = resolve("skl", "L2_RQSTS.MISS:u");
  EXPECT_TRUE(user_only.attr.exclude_kernel);
  EXPECT_FALSE(user_only.attr.exclude_user);
  EXPECT_EQ(resolve("skl", "skl::L2_RQSTS:MISS").attr.config, 0x3f24u);  // libpfm4's own spelling
}

TEST_F(Libpfm, SixtyFourEventsAcrossEightModelsEncodeAsLibpfmDoes) {
  int compared = 0, models = 0;
  for (const char* model : {"nhm", "snb", "hsw", "skl", "icl", "spr", "amd64_fam17h_zen2", "amd64_fam19h_zen3"}) {
    std::vector<LibpfmEvent> events = libpfm_events(model);
    ASSERT_GE(events.size(), 8u) << model;
    ++models;
    for (std::size_t i = 0; i < 8; ++i) {
      const std::string& name = events[i * (events.size() / 8)].name;  // spread over the table
      LibpfmEncoding direct = libpfm_encode(name, model);
      ASSERT_EQ(direct.failure, "");
      Event resolved = resolve(model, name);
      EXPECT_EQ(resolved.attr.type, direct.attr.type) << model << " " << name;
      EXPECT_EQ(resolved.attr.config, direct.attr.config) << model << " " << name;
      EXPECT_EQ(resolved.attr.config1, direct.attr.config1) << model << " " << name;
      ++compared;
    }
  }
  EXPECT_EQ(models, 8);
  EXPECT_EQ(compared, 64);
}

TEST_F(Libpfm, EncodeDecodeEncodeIsTheIdentityForEveryCoreEventOfAModel) {
  for (const char* model : {"skl", "icl"}) {
    for (const LibpfmEvent& event : libpfm_events(model)) {
      LibpfmEncoding encoding = libpfm_encode(event.name, model);
      if (encoding.attr.type != PERF_TYPE_RAW || (encoding.attr.config >> 32) != 0) continue;
      // attr -> PERFEVTSEL -> fields -> PERFEVTSEL -> attr gives back libpfm4's config.
      PerfEvtSel select = attr_to_perfevtsel(encoding.attr);
      PerfEvtSel again = PerfEvtSel::decode(select.encode());
      EXPECT_EQ(again.encode(), select.encode()) << event.name;
      EXPECT_EQ(perfevtsel_to_attr(again).config, encoding.attr.config) << model << " " << event.name;
    }
  }
}

TEST_F(Libpfm, UnknownNamesAndModelsSayWhy) {
  try {
    resolve("skl", "L2_RQSTS.MISZ");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("did you mean 'L2_RQSTS.MISS'"), std::string::npos) << error.what();
  }
  LibpfmEncoding unknown = libpfm_encode("INST_RETIRED.ANY_P", "no-such-model");
  EXPECT_NE(unknown.failure.find("libpfm4 has no CPU model 'no-such-model'; it knows: "), std::string::npos)
      << unknown.failure;
  CatalogPaths paths;
  paths.cpu_model = "no-such-model";
  try {
    EventCatalog catalog(paths);
    FAIL() << "a catalogue of an unknown model was made";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("no CPU model 'no-such-model'"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(libpfm_events("no-such-model").empty());
  EXPECT_GE(libpfm_models().size(), 8u);
}

}  // namespace
}  // namespace perfmon::events
