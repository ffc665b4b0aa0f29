// SPDX-License-Identifier: Apache-2.0
#include "events/syntax/event_list.hpp"

#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>

#include <cctype>

#include "events/syntax/perf_grammar.hpp"
#include "events/syntax/text.hpp"
#include "perfmon/error.hpp"

namespace perfmon::events {
namespace {

// A copy of the alternative a spec holds (a default one, and a failed test, when it holds another).
template <typename Name>
Name as(const EventSpec& spec) {
  const Name* name = std::get_if<Name>(&spec.name);
  EXPECT_NE(name, nullptr) << spec.text << " is not the expected kind of event";
  return name != nullptr ? *name : Name{};
}

TEST(EventSyntax, NamedEventWithModifiers) {
  auto groups = parse_event_list_syntax("cycles:u");
  ASSERT_EQ(groups.size(), 1u);
  const EventSpec& spec = groups[0].events.at(0);
  EXPECT_EQ(as<NamedSpec>(spec).name, "cycles");
  EXPECT_EQ(spec.text, "cycles:u");
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
  EXPECT_EQ(as<NamedSpec>(groups[1].events[0]).name, "branches");
}

TEST(EventSyntax, PmuTermsWithCommasStayInOneEvent) {
  auto groups = parse_event_list_syntax("cpu/event=0x3c,umask=0x1,edge,name=my-cycles/uk,msr/tsc/:u");
  ASSERT_EQ(groups.size(), 2u);
  const EventSpec& spec = groups[0].events[0];
  const PmuSpec& pmu = as<PmuSpec>(spec);
  EXPECT_EQ(pmu.pmu, "cpu");
  ASSERT_EQ(pmu.terms.size(), 4u);
  EXPECT_EQ(pmu.terms[0].key, "event");
  EXPECT_EQ(*pmu.terms[0].value, "0x3c");
  EXPECT_FALSE(pmu.terms[2].value.has_value());
  EXPECT_EQ(*pmu.terms[3].value, "my-cycles");
  EXPECT_TRUE(spec.modifiers.user && spec.modifiers.kernel);
  EXPECT_EQ(as<PmuSpec>(groups[1].events[0]).terms.at(0).key, "tsc");
  EXPECT_TRUE(groups[1].events[0].modifiers.user);
}

TEST(EventSyntax, RawEvent) {
  auto spec = parse_event_list_syntax("r01c2:u")[0].events[0];
  EXPECT_EQ(as<RawSpec>(spec).config, 0x1c2u);
  EXPECT_TRUE(spec.modifiers.user);
  // "ref-cycles" starts with r but is a name.
  EXPECT_EQ(as<NamedSpec>(parse_event_list_syntax("ref-cycles")[0].events[0]).name, "ref-cycles");
}

TEST(EventSyntax, Tracepoint) {
  auto spec = parse_event_list_syntax("syscalls:sys_enter_getppid")[0].events[0];
  EXPECT_EQ(as<TracepointSpec>(spec).subsystem, "syscalls");
  EXPECT_EQ(as<TracepointSpec>(spec).name, "sys_enter_getppid");
  auto with_mods = parse_event_list_syntax("sched:sched_switch:k")[0].events[0];
  EXPECT_EQ(as<TracepointSpec>(with_mods).name, "sched_switch");
  EXPECT_TRUE(with_mods.modifiers.kernel);
}

TEST(EventSyntax, Breakpoints) {
  const BreakpointSpec& x = as<BreakpointSpec>(parse_event_list_syntax("mem:0x401000:x")[0].events[0]);
  EXPECT_EQ(x.address, 0x401000u);
  EXPECT_EQ(x.access, static_cast<std::uint32_t>(HW_BREAKPOINT_X));
  const BreakpointSpec w = as<BreakpointSpec>(parse_event_list_syntax("mem:0x601040/8:w")[0].events[0]);
  EXPECT_EQ(w.length, 8u);
  EXPECT_EQ(w.access, static_cast<std::uint32_t>(HW_BREAKPOINT_W));
  auto rw = parse_event_list_syntax("mem:4096,cycles");
  ASSERT_EQ(rw.size(), 2u);
  EXPECT_EQ(as<BreakpointSpec>(rw[0].events[0]).access, static_cast<std::uint32_t>(HW_BREAKPOINT_RW));
  EXPECT_EQ(as<BreakpointSpec>(rw[0].events[0]).address, 4096u);
  auto with_mods = parse_event_list_syntax("mem:0x1000:rw:u")[0].events[0];
  EXPECT_TRUE(with_mods.modifiers.user);
}

TEST(EventSyntax, OtherSyntaxesAreRecognised) {
  EXPECT_EQ(as<LibpfmSpec>(parse_event_list_syntax("L2_RQSTS.MISS:c=2")[0].events[0]).text, "L2_RQSTS.MISS:c=2");
  EXPECT_EQ(as<PctrSpec>(parse_event_list_syntax("pctr:0xc0|PCTR_U")[0].events[0]).select.event, 0xc0);
  auto groups = parse_event_list_syntax("pmc.core/L2 Rqsts, Core=ALL ,usr/");
  const PmcCoreSpec& pmc = as<PmcCoreSpec>(groups[0].events[0]);
  EXPECT_EQ(pmc.event, "L2 Rqsts");
  ASSERT_EQ(pmc.qualifiers.size(), 2u);
  EXPECT_EQ(pmc.qualifiers[0].key, "core");
  EXPECT_EQ(*pmc.qualifiers[0].value, "all");
  EXPECT_FALSE(pmc.qualifiers[1].value);
}

// How an event restricted to user space is shown: as perf spells it, its ring letters replaced by u.
TEST(EventSyntax, UserSpaceOnlyNames) {
  EXPECT_EQ(user_space_only_name("cycles"), "cycles:u");
  EXPECT_EQ(user_space_only_name("task-clock"), "task-clock:u");  // its final k is a letter of the name
  EXPECT_EQ(user_space_only_name("cycles:uk"), "cycles:u");
  EXPECT_EQ(user_space_only_name("cycles:ukp"), "cycles:pu");
  EXPECT_EQ(user_space_only_name("cpu/event=0x3c/"), "cpu/event=0x3c/u");
  EXPECT_EQ(user_space_only_name("cpu/event=0x3c/kuh"), "cpu/event=0x3c/u");
  EXPECT_EQ(user_space_only_name("cpu/event=0x3c/:ku"), "cpu/event=0x3c/:u");
  EXPECT_EQ(user_space_only_name("sched:sched_switch"), "sched:sched_switch:u");
  EXPECT_EQ(user_space_only_name("sched:sched_switch:k"), "sched:sched_switch:u");
  EXPECT_EQ(user_space_only_name("mem:0x1000:rw"), "mem:0x1000:rw:u");
  // Every spelling parses again.
  for (const char* name : {"cycles", "cycles:ukp", "cpu/event=0x3c/kuh", "sched:sched_switch:k", "mem:0x1000:rw"})
    EXPECT_TRUE(parse_event_list_syntax(user_space_only_name(name))[0].events[0].modifiers.user) << name;
}

TEST(EventSyntax, AllModifierLetters) {
  Modifiers mods = parse_modifiers("ukhGHpppDSIeW", "x");
  EXPECT_TRUE(mods.user && mods.kernel && mods.hypervisor && mods.guest && mods.host);
  EXPECT_EQ(mods.precise, 3);
  EXPECT_TRUE(mods.pinned && mods.group_read && mods.exclude_idle && mods.exclusive && mods.weak_group);
  EXPECT_TRUE(parse_modifiers("P", "x").max_precise);
}

TEST(EventSyntax, Numbers) {
  EXPECT_EQ(*parse_number("0x1F"), 31u);
  EXPECT_EQ(*parse_number("42"), 42u);
  EXPECT_EQ(*parse_number("0xffffffffffffffff"), ~std::uint64_t{0});
  EXPECT_FALSE(parse_number("0x"));
  EXPECT_FALSE(parse_number("12abc"));
  EXPECT_FALSE(parse_number(""));
  EXPECT_EQ(parse_number("-1").status, Number::Status::NotANumber);
  EXPECT_EQ(parse_number("18446744073709551616").status, Number::Status::TooLarge);
  EXPECT_EQ(parse_number("0x10000000000000000").status, Number::Status::TooLarge);
  EXPECT_EQ(parse_number("99999999999999999999x").status, Number::Status::NotANumber);
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
                      Malformed{"sched:x:", "modifiers are missing"}, Malformed{"{task-clock}}", "unexpected '}'"},
                      Malformed{"{a/b/c/}", "has no closing '}'"}),
    test_name);

}  // namespace
}  // namespace perfmon::events
