#include "events/event_syntax.hpp"

#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>

#include <cctype>

#include "perfmon/error.hpp"

namespace perfmon::events {
namespace {

using Kind = EventSpec::Kind;

TEST(EventSyntax, NamedEventWithModifiers) {
  auto groups = parse_event_list_syntax("cycles:u");
  ASSERT_EQ(groups.size(), 1u);
  const EventSpec& spec = groups[0].events.at(0);
  EXPECT_EQ(spec.kind, Kind::Named);
  EXPECT_EQ(spec.name, "cycles");
  EXPECT_TRUE(spec.modifiers.user);
  EXPECT_FALSE(spec.modifiers.kernel);
}

TEST(EventSyntax, ListOfEventsMakesOneGroupEach) {
  auto groups = parse_event_list_syntax("task-clock,page-faults,cs");
  ASSERT_EQ(groups.size(), 3u);
  for (const GroupSpec& group : groups) {
    EXPECT_FALSE(group.braced);
    EXPECT_EQ(group.events.size(), 1u);
  }
}

TEST(EventSyntax, BracedGroupWithSharedModifiers) {
  auto groups = parse_event_list_syntax("{cycles,instructions:k}:u,branches");
  ASSERT_EQ(groups.size(), 2u);
  ASSERT_TRUE(groups[0].braced);
  ASSERT_EQ(groups[0].events.size(), 2u);
  EXPECT_TRUE(groups[0].events[0].modifiers.user);
  EXPECT_TRUE(groups[0].events[1].modifiers.user);
  EXPECT_TRUE(groups[0].events[1].modifiers.kernel);
  EXPECT_EQ(groups[1].events[0].name, "branches");
}

TEST(EventSyntax, PmuTermsWithCommasStayInOneEvent) {
  auto groups = parse_event_list_syntax("cpu/event=0x3c,umask=0x1,edge,name=my-cycles/uk,msr/tsc/:u");
  ASSERT_EQ(groups.size(), 2u);
  const EventSpec& spec = groups[0].events[0];
  EXPECT_EQ(spec.kind, Kind::Pmu);
  EXPECT_EQ(spec.name, "cpu");
  ASSERT_EQ(spec.terms.size(), 4u);
  EXPECT_EQ(spec.terms[0].key, "event");
  EXPECT_EQ(*spec.terms[0].value, "0x3c");
  EXPECT_FALSE(spec.terms[2].value.has_value());
  EXPECT_EQ(*spec.terms[3].value, "my-cycles");
  EXPECT_TRUE(spec.modifiers.user && spec.modifiers.kernel);
  EXPECT_EQ(groups[1].events[0].terms.at(0).key, "tsc");
  EXPECT_TRUE(groups[1].events[0].modifiers.user);
}

TEST(EventSyntax, RawEvent) {
  auto spec = parse_event_list_syntax("r01c2:u")[0].events[0];
  EXPECT_EQ(spec.kind, Kind::Raw);
  EXPECT_EQ(spec.raw, 0x1c2u);
  EXPECT_TRUE(spec.modifiers.user);
  // "ref-cycles" starts with r but is a name.
  EXPECT_EQ(parse_event_list_syntax("ref-cycles")[0].events[0].kind, Kind::Named);
}

TEST(EventSyntax, Tracepoint) {
  auto spec = parse_event_list_syntax("syscalls:sys_enter_getppid")[0].events[0];
  EXPECT_EQ(spec.kind, Kind::Tracepoint);
  EXPECT_EQ(spec.name, "syscalls");
  EXPECT_EQ(spec.event, "sys_enter_getppid");
  auto with_mods = parse_event_list_syntax("sched:sched_switch:k")[0].events[0];
  EXPECT_EQ(with_mods.event, "sched_switch");
  EXPECT_TRUE(with_mods.modifiers.kernel);
}

TEST(EventSyntax, Breakpoints) {
  auto x = parse_event_list_syntax("mem:0x401000:x")[0].events[0];
  EXPECT_EQ(x.kind, Kind::Breakpoint);
  EXPECT_EQ(x.address, 0x401000u);
  EXPECT_EQ(x.access, static_cast<std::uint32_t>(HW_BREAKPOINT_X));
  auto w = parse_event_list_syntax("mem:0x601040/8:w")[0].events[0];
  EXPECT_EQ(w.length, 8u);
  EXPECT_EQ(w.access, static_cast<std::uint32_t>(HW_BREAKPOINT_W));
  auto rw = parse_event_list_syntax("mem:4096,cycles");
  ASSERT_EQ(rw.size(), 2u);
  EXPECT_EQ(rw[0].events[0].access, static_cast<std::uint32_t>(HW_BREAKPOINT_RW));
  EXPECT_EQ(rw[0].events[0].address, 4096u);
  auto with_mods = parse_event_list_syntax("mem:0x1000:rw:u")[0].events[0];
  EXPECT_TRUE(with_mods.modifiers.user);
}

TEST(EventSyntax, AllModifierLetters) {
  Modifiers mods = parse_modifiers("ukhGHpppDSIeW", "x");
  EXPECT_TRUE(mods.user && mods.kernel && mods.hypervisor && mods.guest && mods.host);
  EXPECT_EQ(mods.precise, 3);
  EXPECT_TRUE(mods.pinned && mods.group_read && mods.exclude_idle && mods.exclusive && mods.weak_group);
  EXPECT_TRUE(parse_modifiers("P", "x").max_precise);
}

TEST(EventSyntax, Numbers) {
  EXPECT_EQ(parse_number("0x1F"), 31u);
  EXPECT_EQ(parse_number("42"), 42u);
  EXPECT_FALSE(parse_number("0x"));
  EXPECT_FALSE(parse_number("12abc"));
  EXPECT_FALSE(parse_number(""));
}

struct Malformed {
  const char* text;
  const char* message_part;  // the error must say this
};

class MalformedEvent : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedEvent, FailsWithItsReason) {
  const Malformed& bad = GetParam();
  try {
    parse_event_list_syntax(bad.text);
    FAIL() << "'" << bad.text << "' was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(bad.message_part), std::string::npos)
        << "'" << bad.text << "' failed with: " << error.what();
  }
}

std::string test_name(const ::testing::TestParamInfo<Malformed>& info) {
  std::string name = "case" + std::to_string(info.index) + "_";
  for (char c : std::string(info.param.text)) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    ThirtyAndMore, MalformedEvent,
    ::testing::Values(Malformed{"", "it is empty"}, Malformed{"   ", "it is empty"},
                      Malformed{"cycles,", "ends with a comma"}, Malformed{"cycles,,instructions", "an event is empty"},
                      Malformed{",cycles", "an event is empty"}, Malformed{"cycles:", "modifiers are missing"},
                      Malformed{"{cycles}:z", "unknown modifier 'z'"}, Malformed{"cycles:uu", "given twice"},
                      Malformed{"cycles:pppp", "at most three 'p'"}, Malformed{"cycles:Pp", "cannot be combined"},
                      Malformed{"{cycles,instructions", "has no closing '}'"}, Malformed{"{}", "an event is empty"},
                      Malformed{"{cycles,{instructions}}", "cannot be nested"},
                      Malformed{"{cycles}x", "only ':modifiers'"}, Malformed{"{cycles}:", "only ':modifiers'"},
                      Malformed{"cycles}", "unexpected '}'"}, Malformed{"cpu/event=0x3c", "no closing '/'"},
                      Malformed{"/event=1/", "pmu/term=value"}, Malformed{"cpu/event=/", "has '=' but no value"},
                      Malformed{"cpu/=5/", "is neither"}, Malformed{"cpu/event=1/x", "unknown modifier 'x'"},
                      Malformed{"cpu/event=1/:", "only ':modifiers'"}, Malformed{"cpu/a,,b/", "is neither"},
                      Malformed{"mem:", "needs an address"}, Malformed{"mem:zz", "needs an address"},
                      Malformed{"mem:0x1000/3", "1, 2, 4 or 8"}, Malformed{"mem:0x1000:rwx", "cannot also watch"},
                      Malformed{"mem:0x1000:rr", "given twice"}, Malformed{"mem:0x1000/4:x", "leave out the length"},
                      Malformed{"mem:0x1000:q:u", "made of r, w and x"}, Malformed{"sched:", "modifiers are missing"},
                      Malformed{"sched:sw!tch", "subsystem:name"}, Malformed{"cyc les", "event names are made of"},
                      Malformed{":u", "name is missing"}, Malformed{"r12345678901234567", "at most 16 hex digits"},
                      Malformed{"sched:x:", "modifiers are missing"}),
    test_name);

}  // namespace
}  // namespace perfmon::events
