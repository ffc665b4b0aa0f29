// SPDX-License-Identifier: Apache-2.0
// Solaris cpc event specifications (cpc_strtoevent): pic0=EVENT,pic1=EVENT[,sys][,nouser][,attr=value].
#include <gtest/gtest.h>

#include "events/syntax/event_list.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"

namespace perfmon::events {
namespace {

EventCatalog catalog() {
  CatalogPaths paths;
  paths.tracefs = "/nonexistent";
  return EventCatalog(paths);
}

TEST(Cpc, OneGroupOrderedByCounterUserModeByDefault) {
  auto groups = catalog().parse("cpc/pic1=page-faults,pic0=task-clock/,cs");
  ASSERT_EQ(groups.size(), 2u);
  ASSERT_EQ(groups[0].events.size(), 2u);
  EXPECT_EQ(groups[0].events[0].name, "pic0=task-clock");  // pic0 leads the group
  EXPECT_EQ(groups[0].events[1].name, "pic1=page-faults");
  for (const Event& event : groups[0].events) {
    EXPECT_FALSE(event.attr.exclude_user);
    EXPECT_TRUE(event.attr.exclude_kernel);  // libcpc counts user mode unless told 'sys'
  }
  EXPECT_EQ(groups[1].events[0].name, "cs");
}

TEST(Cpc, SysAndNouserChooseTheRings) {
  Event both = catalog().parse("cpc/pic0=task-clock,sys/")[0].events[0];
  EXPECT_FALSE(both.attr.exclude_user);
  EXPECT_FALSE(both.attr.exclude_kernel);
  Event kernel = catalog().parse("cpc/pic0=task-clock,sys,nouser/")[0].events[0];
  EXPECT_TRUE(kernel.attr.exclude_user);
  EXPECT_FALSE(kernel.attr.exclude_kernel);
}

TEST(Cpc, AttributesEditTheRawEncoding) {
  auto group = catalog().parse("cpc/pic0=r003c,pic1=r01c2,cmask=2,inv,edge,umask=0x3/")[0];
  EXPECT_EQ(group.events[0].attr.config, 0x3cu | 0x03u << 8 | 1u << 18 | 1u << 23 | 2u << 24);
  EXPECT_EQ(group.events[1].attr.config, 0xc2u | 0x03u << 8 | 1u << 18 | 1u << 23 | 2u << 24);
}

TEST(Cpc, MalformedSpecificationsSayWhy) {
  for (const auto& [text, part] : std::vector<std::pair<const char*, const char*>>{
           {"cpc/pic0=cycles", "needs its closing '/'"},
           {"cpc/sys/", "names at least one counter"},
           {"cpc/pic0=cycles,pic0=instructions/", "counter pic0 is given twice"},
           {"cpc/pic0=cycles,nouser/", "'nouser' without 'sys' counts nothing"},
           {"cpc/pic0=cycles,turbo/", "'turbo' is not a cpc term"},
           {"cpc/pic0=cycles:u/", "drop ':u'"},
           {"cpc/pic0/", "'pic0' needs an event"},
           {"cpc/pic0=task-clock,cmask=2/", "edit a raw x86 event"},
           {"cpc/pic0=r3c,cmask=0x100/", "cpc attribute 'cmask' is too large: it takes at most 255, not '0x100'"},
           {"cpc/pic32=cycles/", "counter 'pic32' is too large: it takes at most 31"},
           {"cpc/pic99999999999999999999=task-clock/", "counter 'pic99999999999999999999' is too large"}}) {
    try {
      catalog().parse(text);
      FAIL() << text << " was accepted";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << text << ": " << error.what();
    }
  }
}

}  // namespace
}  // namespace perfmon::events
