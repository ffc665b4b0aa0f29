// SPDX-License-Identifier: Apache-2.0
// FreeBSD libpmc specifiers and the pmc.core (Intel Core Solo/Duo) table of the seed.
#include "events/sources/pmc_core.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "events/counter_placement.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"

namespace perfmon::events {
namespace {

std::string error_of(const std::string& specifier) {
  try {
    encode_pmc_core(specifier);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// One qualifier's choices and the unit-mask bits the SDM (and libpmc's masks) give them.
struct Choice {
  std::string text;
  std::uint8_t bits;
};
const std::map<PmcQualifier, std::vector<Choice>> kChoices = {
    {kPmcCore, {{"core=all", 0xc0}, {"core=this", 0x40}}},
    {kPmcAgent, {{"agent=this", 0x00}, {"agent=any", 0x20}}},
    {kPmcPrefetch, {{"prefetch=both", 0x30}, {"prefetch=only", 0x10}, {"prefetch=exclude", 0x00}}},
    {kPmcTransition, {{"trans=any", 0x00}, {"trans=frequency", 0x10}}},
};
const std::map<PmcQualifier, std::uint8_t> kDefaults = {
    {kPmcCore, 0x40}, {kPmcAgent, 0x00}, {kPmcPrefetch, 0x30}, {kPmcCacheState, 0x0f}, {kPmcTransition, 0x00}};
const char* kQualifierNames[] = {"core", "agent", "prefetch", "cachestate", "trans"};

std::vector<Choice> cachestate_choices() {
  std::vector<Choice> choices;
  const char letters[] = {'i', 's', 'e', 'm'};
  for (unsigned set = 1; set < 16; ++set) {
    Choice choice{"cachestate=", static_cast<std::uint8_t>(set)};
    for (unsigned bit = 0; bit < 4; ++bit)
      if (set & (1U << bit)) choice.text += letters[bit];
    choices.push_back(choice);
  }
  return choices;
}

TEST(PmcCore, TheTableHoldsEveryEventOfTheSeed) {
  EXPECT_EQ(pmc_core_events().size(), 132u);
  EXPECT_EQ(pmc_core_aliases().size(), 11u);  // 7 libpmc aliases + 4 architectural names
}

TEST(PmcCore, EveryEventResolvesByItsNameInAnySpelling) {
  for (const PmcCoreEvent& event : pmc_core_events()) {
    std::string shouted, spaced;
    for (char c : event.name) {
      shouted += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      spaced += c == '_' ? std::string(" - ") : std::string(1, c);
    }
    for (const std::string& name : {event.name, shouted, spaced}) {
      PmcEncoding encoding = encode_pmc_core(name);
      ASSERT_EQ(encoding.event, &event) << name;
      EXPECT_EQ(encoding.select.event, event.event) << name;
      std::uint8_t umask = event.umask;
      for (const auto& [qualifier, bits] : kDefaults)
        if (event.qualifiers & qualifier) umask |= bits;
      EXPECT_EQ(encoding.select.umask, umask) << name;
      EXPECT_TRUE(encoding.select.usr && encoding.select.os) << "neither os nor usr means both: " << name;
      EXPECT_FALSE(encoding.select.edge || encoding.select.invert || encoding.select.cmask) << name;
    }
  }
}

// Values a second source gives for the same events: libpfm4's coreduo table (pfmlib's
// intel_coreduo_events.h; Debian's libpfm4 build leaves that model out, so they are written here).
TEST(PmcCore, EncodingsAgreeWithLibpfm4sCoreDuoTable) {
  const std::map<std::string, std::uint64_t> libpfm = {
      {"L2_Rqsts", 0x7f2e},
      {"LLC_Misses", 0x412e},
      {"LLC_Reference", 0x4f2e},
      {"Bus_Data_Rcv", 0x4064},
      {"DCache_Repl", 0x0f45},
      {"Data_Mem_Ref", 0x0143},
      {"Data_Mem_Cache_Ref", 0x0244},
      {"SSE_NTStores_Ret", 0x0307},
      {"NonHlt_Ref_Cycles", 0x013c},
      {"L2_Lines_In", 0x7024},
      {"DCache_Cache_LD", 0x0f40},
      {"Bus_Req_Outstanding", 0x4060},
      {"EST_Trans,trans=frequency", 0x103a},
      {"Thermal_Trip", 0xc03b},
  };
  for (const auto& [name, config] : libpfm) {
    PerfEvtSel select = encode_pmc_core(name).select;
    EXPECT_EQ(static_cast<std::uint64_t>(select.umask) << 8 | select.event, config) << name;
  }
  const std::map<std::string, std::uint32_t> counters = {
      {"FP_Assist", 0x2},         {"Mul", 0x2},      {"Div", 0x2}, {"Cycles_Div_Busy", 0x1},
      {"FP_Comp_Instr_Ret", 0x1}, {"Instr_Ret", 0x3}};
  for (const auto& [name, mask] : counters) EXPECT_EQ(encode_pmc_core(name).event->counters, mask) << name;
}

TEST(PmcCore, EveryQualifierCombinationTheSeedAllowsSetsItsBits) {
  std::size_t combinations = 0;
  for (const PmcCoreEvent& event : pmc_core_events()) {
    // The cross product of the event's own qualifiers, each given with every choice or left out.
    std::vector<std::pair<std::string, std::uint8_t>> specs = {{event.name, event.umask}};
    for (const auto& [qualifier, default_bits] : kDefaults) {
      if (!(event.qualifiers & qualifier)) continue;
      std::vector<Choice> choices = qualifier == kPmcCacheState ? cachestate_choices() : kChoices.at(qualifier);
      std::vector<std::pair<std::string, std::uint8_t>> next;
      for (const auto& [text, bits] : specs) {
        next.emplace_back(text, bits | default_bits);
        for (const Choice& choice : choices) next.emplace_back(text + "," + choice.text, bits | choice.bits);
      }
      specs = std::move(next);
    }
    for (const auto& [text, umask] : specs) {
      for (const char* common : {"", ",usr", ",os", ",os,usr", ",cmask=3", ",cmask=255,inv", ",edge,cmask=1,inv"}) {
        std::string specifier = text + common;
        PmcEncoding encoding = encode_pmc_core(specifier);
        const PerfEvtSel& select = encoding.select;
        EXPECT_EQ(select.event, event.event) << specifier;
        EXPECT_EQ(select.umask, umask) << specifier;
        std::string c = common;
        bool os = c.find("os") != std::string::npos, usr = c.find("usr") != std::string::npos;
        EXPECT_EQ(select.os, os || !usr) << specifier;
        EXPECT_EQ(select.usr, usr || !os) << specifier;
        EXPECT_EQ(select.edge, c.find("edge") != std::string::npos) << specifier;
        EXPECT_EQ(select.invert, c.find("inv") != std::string::npos) << specifier;
        EXPECT_EQ(select.cmask, c.find("cmask=255") != std::string::npos ? 255
                                : c.find("cmask=3") != std::string::npos ? 3
                                : c.find("cmask=1") != std::string::npos ? 1
                                                                         : 0)
            << specifier;
        // Round trip: the specifier decoded from the value encodes the same value.
        std::vector<const PmcCoreEvent*> named = find_pmc_core_events(select);
        ASSERT_NE(std::find(named.begin(), named.end(), &event), named.end()) << specifier;
        PerfEvtSel again = encode_pmc_core(format_pmc_core(event, select)).select;
        EXPECT_EQ(again.encode(), select.encode()) << specifier << " -> " << format_pmc_core(event, select);
        ++combinations;
      }
    }
  }
  EXPECT_EQ(combinations, 1057u * 7);  // 1057 event and qualifier specifiers, each with 7 sets of common ones
}

TEST(PmcCore, QualifiersAnEventDoesNotTakeAreRefusedWithWhatItTakes) {
  for (const PmcCoreEvent& event : pmc_core_events()) {
    for (unsigned i = 0; i < 5; ++i) {
      auto qualifier = static_cast<PmcQualifier>(1U << i);
      if (event.qualifiers & qualifier) continue;
      std::string value =
          qualifier == kPmcCacheState
              ? "m"
              : kChoices.at(qualifier).front().text.substr(kChoices.at(qualifier).front().text.find('=') + 1);
      std::string why = error_of(event.name + "," + kQualifierNames[i] + "=" + value);
      EXPECT_NE(why.find(event.name + " does not take '" + kQualifierNames[i] + "='; it takes cmask=N"),
                std::string::npos)
          << why;
    }
  }
}

TEST(PmcCore, MalformedSpecifiersFailWithTheReason) {
  const std::map<std::string, std::string> cases = {
      {"L2_Rqsts,core=some", "'core=some' is not a choice; L2_Rqsts takes cmask=N, edge, inv, os, usr, core=all|this"},
      {"L2_Rqsts,cachestate=mx", "cachestate takes the letters m, e, s and i"},
      {"L2_Rqsts,core", "'core' needs a value"},
      {"Instr_Ret,edge=1", "'edge' takes no value"},
      {"Instr_Ret,cmask=256", "cmask takes a number from 0 to 255"},
      {"Instr_Ret,cmask", "cmask takes a number from 0 to 255"},
      {"Instr_Ret,inv", "'inv' inverts the cmask comparison, so it needs cmask=N"},
      {"Instr_Ret,cmask=0,inv", "'inv' inverts the cmask comparison"},
      {"Instr_Ret,usr,usr", "'usr' is given twice"},
      {"Instr_Ret,,usr", "a qualifier is empty"},
      {"Instr_Ret,umask=3", "'umask' is not a qualifier; Instr_Ret takes cmask=N, edge, inv, os, usr."},
      {"", "name an event first"},
      {"Instr_Rett", "has no event 'Instr_Rett'; did you mean 'Instr_Ret'"},
  };
  for (const auto& [specifier, expected] : cases)
    EXPECT_NE(error_of(specifier).find(expected), std::string::npos) << specifier << ": " << error_of(specifier);
}

TEST(PmcCore, AliasesMapOntoTheirEventsAndUnsupportedOnesSaySo) {
  const std::map<std::string, std::string> aliases = {{"branches", "Br_Instr_Ret"},
                                                      {"branch-mispredicts", "Br_MisPred_Ret"},
                                                      {"ic-misses", "ICache_Misses"},
                                                      {"instructions", "Instr_Ret"},
                                                      {"interrupts", "HW_Int_Rx"},
                                                      {"Instruction Retired", "Instr_Ret"},
                                                      {"BRANCH_MISSES_RETIRED", "Br_MisPred_Ret"},
                                                      {"unhalted reference cycles", "NonHlt_Ref_Cycles"}};
  for (const auto& [alias, event] : aliases) EXPECT_EQ(encode_pmc_core(alias).event->name, event) << alias;
  EXPECT_EQ(encode_pmc_core("instructions,usr").select.encode(), 0x100c0u);
  for (const char* unsupported : {"dc-misses", "unhalted-cycles", "DC_Misses"})
    EXPECT_NE(error_of(unsupported).find("is unsupported on Intel Core Solo/Duo"), std::string::npos) << unsupported;
}

TEST(PmcCore, DecodingNamesTheEventWithItsQualifiers) {
  PerfEvtSel select = encode_pmc_core("Bus_Snoops,agent=any,cachestate=mi,os").select;
  std::vector<const PmcCoreEvent*> named = find_pmc_core_events(select);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(format_pmc_core(*named.front(), select), "Bus_Snoops,agent=any,cachestate=mi,os");
}

TEST(PmcCore, CountersArePlacedOrTheGroupIsRefused) {
  EXPECT_EQ(place_on_counters({0x1, 0x3}, 2), (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(place_on_counters({0x3, 0x1}, 2), (std::vector<unsigned>{1, 0}));  // the free one moves aside
  EXPECT_EQ(place_on_counters({0x2, 0x1}, 2), (std::vector<unsigned>{1, 0}));
  EXPECT_TRUE(place_on_counters({0x2, 0x2}, 2).empty());
  EXPECT_TRUE(place_on_counters({0x3, 0x3, 0x3}, 2).empty());
  EXPECT_EQ(describe_counters(0x3), "PMC0 or PMC1");
}

EventCatalog catalog(const std::string& model) {
  CatalogPaths paths;
  paths.tracefs = "/nonexistent";
  paths.sysfs_devices = "/nonexistent";
  paths.cpu_model = model;
  return EventCatalog(paths);
}

std::string catalog_error(const std::string& model, const std::string& list) {
  try {
    catalog(model).parse(list);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(PmcCoreCatalog, SpecifiersResolveToRawEventsWithTheirCounters) {
  auto groups = catalog("coreduo").parse("pmc.core/L2_Rqsts,core=all,prefetch=only,cachestate=mi,usr/,pmc.core/Div/");
  ASSERT_EQ(groups.size(), 2u);
  const Event& l2 = groups[0].events[0];
  EXPECT_EQ(l2.attr.type, static_cast<std::uint32_t>(PERF_TYPE_RAW));
  EXPECT_EQ(l2.attr.config, 0xd92eu);
  EXPECT_TRUE(l2.attr.exclude_kernel);
  EXPECT_FALSE(l2.attr.exclude_user);
  EXPECT_EQ(groups[1].events[0].counters, 0x2u);
}

TEST(PmcCoreCatalog, GroupsNeedOneCounterPerEvent) {
  EXPECT_EQ(catalog("coreduo").parse("{pmc.core/Div/,pmc.core/Cycles_Div_Busy/,task-clock}")[0].events.size(), 3u);
  EXPECT_NE(catalog_error("coreduo", "{pmc.core/Div/,pmc.core/Mul/}").find("Div/ counts only on PMC1"),
            std::string::npos);
  EXPECT_NE(catalog_error("coreduo", "{pmc.core/Instr_Ret/,pmc.core/branches/,pmc.core/ic-misses/}")
                .find("cannot count at once on Intel Core Solo/Duo's two counters"),
            std::string::npos);
  // Solaris cpc names the counter: it must be one the event may use.
  EXPECT_EQ(catalog("coreduo").parse("cpc/pic1=pmc.core/Div/,pic0=pmc.core/FP_Comp_Instr_Ret//")[0].events.size(), 2u);
  EXPECT_NE(catalog_error("coreduo", "cpc/pic0=pmc.core/Div//").find("Div counts only on PMC1, not on pic0"),
            std::string::npos);
}

TEST(PmcCoreCatalog, OtherModelsRefuseAllButTheArchitecturalEvents) {
  EXPECT_NE(catalog_error("skl", "pmc.core/Div/").find("belong to Intel Core Solo/Duo (family 6, model 14)"),
            std::string::npos);
  EXPECT_EQ(catalog("skl").parse("pmc.core/Instr_Ret/")[0].events[0].attr.config, 0xc0u);
  EXPECT_NE(catalog_error("amd64_fam19h_zen3", "pmc.core/Instr_Ret/").find("belong to Intel Core Solo/Duo"),
            std::string::npos);
}

TEST(PmcCoreCatalog, RingsAreChosenOnce) {
  EXPECT_NE(catalog_error("coreduo", "pmc.core/Instr_Ret,usr/:k").find("choose the privilege levels once"),
            std::string::npos);
  Event user = catalog("coreduo").parse("pmc.core/Instr_Ret/:u")[0].events[0];
  EXPECT_TRUE(user.attr.exclude_kernel);
}

}  // namespace
}  // namespace perfmon::events
