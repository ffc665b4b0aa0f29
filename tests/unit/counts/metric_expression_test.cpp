// SPDX-License-Identifier: Apache-2.0
// perf's metric language as expr.y and expr.l define it: precedence and associativity, functions,
// conditions, NaN where perf computes none, names as perf's event parser gets them, literals and
// facts, the longest match of the lexer, errors that say where, and error bars propagated.
#include "perfmon/metric_expression.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "perfmon/error.hpp"

namespace perfmon {
namespace {

// The expression's value with each name's value from `values` (a name missing there: none).
double value(const std::string& text, const std::map<std::string, double>& values = {}, const MetricFacts& facts = {}) {
  MetricExpression expression = MetricExpression::parse(text);
  expression.resolve(facts);
  std::vector<double> in;
  for (const std::string& name : expression.names())
    in.push_back(values.contains(name) ? values.at(name) : std::nan(""));
  return expression.evaluate(in);
}

std::string parse_error(const std::string& text) {
  try {
    MetricExpression::parse(text);
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    return error.what();
  }
  return "";
}

TEST(MetricExpression, ArithmeticFollowsPerfsPrecedence) {
  EXPECT_EQ(value("1 + 2 * 3"), 7);
  EXPECT_EQ(value("(1 + 2) * 3"), 9);
  EXPECT_EQ(value("10 - 4 - 3"), 3);  // left to right
  EXPECT_EQ(value("64 / 4 / 2"), 8);
  EXPECT_EQ(value("7 % 4 * 2"), 6);  // % as * and /
  EXPECT_EQ(value("-2 * 3"), -6);
  EXPECT_EQ(value("--2"), 2);
  EXPECT_EQ(value("2 - -2"), 4);
  // < and > bind looser than + and tighter than &, which is tighter than ^, then |.
  EXPECT_EQ(value("1 + 1 > 1"), 1);
  EXPECT_EQ(value("2 > 1 & 0"), 0);
  EXPECT_EQ(value("1 | 0 & 0"), 1);  // & first
  EXPECT_EQ(value("1 ^ 1 | 1"), 1);  // ^ first: (1 ^ 1) | 1
  EXPECT_EQ(value("1 | 1 ^ 1"), 1);  // 1 | (1 ^ 1)
  EXPECT_EQ(value("0 ^ 1 & 0"), 0);  // 0 ^ (1 & 0)
  // | & ^ are on truth values, not bits.
  EXPECT_EQ(value("2 & 1"), 1);
  EXPECT_EQ(value("2 ^ 4"), 0);
  EXPECT_EQ(value("0 | 0"), 0);
}

TEST(MetricExpression, NumbersAsExprLReadsThem) {
  EXPECT_EQ(value("2.5"), 2.5);
  EXPECT_EQ(value(".5"), 0.5);
  EXPECT_EQ(value("5."), 5);
  EXPECT_EQ(value("1e3"), 1000);
  EXPECT_EQ(value("25e-1"), 2.5);
  EXPECT_TRUE(std::isnan(value("NaN")));
  // The longest match: "1e" followed by a name's character is a name, not a number.
  EXPECT_EQ(MetricExpression::parse("1ex").names(), std::vector<std::string>{"1ex"});
  EXPECT_EQ(MetricExpression::parse("NaNs").names(), std::vector<std::string>{"NaNs"});
  EXPECT_EQ(MetricExpression::parse("iffy + elsewhere").names(), (std::vector<std::string>{"iffy", "elsewhere"}));
}

TEST(MetricExpression, FunctionsAndConditions) {
  EXPECT_EQ(value("min(3, 2 + 2)"), 3);
  EXPECT_EQ(value("max(3, 2 + 2)"), 4);
  EXPECT_EQ(value("d_ratio(6, 3)"), 2);
  EXPECT_EQ(value("d_ratio(6, 0)"), 0);  // where / gives NaN
  EXPECT_EQ(value("1 if 1 else 2"), 1);
  EXPECT_EQ(value("1 if 0 else 2"), 2);
  EXPECT_EQ(value("1 + 1 if 0 else 2 * 3"), 6);             // the branches are whole expressions
  EXPECT_EQ(value("1 if 0 else 2 if 0 else 3"), 3);         // else binds to the nearest if
  EXPECT_EQ(value("(1 if 0 else 2) + 10"), 12);             // in parentheses, a value
  EXPECT_EQ(value("1 if NaN else 2"), 1);                   // a NaN condition is true, as in perf
  EXPECT_EQ(value("10 if a > 5 else 20", {{"a", 6}}), 10);  // conditions compare
  EXPECT_EQ(value("10 if a > 5 else 20", {{"a", 5}}), 20);
  EXPECT_EQ(value("min(a, b)", {{"a", -1}, {"b", 1}}), -1);
}

TEST(MetricExpression, NaNWherePerfComputesNone) {
  EXPECT_TRUE(std::isnan(value("a / b", {{"a", 1}, {"b", 0}})));  // division by zero
  EXPECT_TRUE(std::isnan(value("a / b", {{"a", 1}})));            // a name without a value
  EXPECT_TRUE(std::isnan(value("a + 1")));
  EXPECT_TRUE(std::isnan(value("a < 1")));
  EXPECT_TRUE(std::isnan(value("5 % 0")));
  EXPECT_TRUE(std::isnan(value("5 % 0.5")));  // 0 as a whole number: perf would divide by it
  EXPECT_EQ(value("-7 % 3"), -1);             // C's remainder on whole numbers
  // | and & decide where the known side can: 0 | x is x, 1 | x is 1, 0 & x is 0.
  EXPECT_TRUE(std::isnan(value("0 | a")));
  EXPECT_EQ(value("1 | a"), 1);
  EXPECT_EQ(value("a | 1"), 1);
  EXPECT_EQ(value("0 & a"), 0);
  EXPECT_TRUE(std::isnan(value("1 & a")));
  EXPECT_TRUE(std::isnan(value("a ^ 1")));
}

TEST(MetricExpression, NamesAreWhatPerfsEventParserGets) {
  const MetricExpression expression = MetricExpression::parse(
      "cpu_core@INST_RETIRED.ANY@ / cpu@event\\=0x3c\\,umask\\=0x0\\,cmask\\=1@ + UOPS_ISSUED.ANY:c1 - "
      "tma_retiring * duration_time + cpu_core@INST_RETIRED.ANY@");
  EXPECT_EQ(expression.names(),
            (std::vector<std::string>{"cpu_core/INST_RETIRED.ANY/", "cpu/event=0x3c,umask=0x0,cmask=1/",
                                      "UOPS_ISSUED.ANY:c1", "tma_retiring", "duration_time"}));
  EXPECT_EQ(MetricExpression::parse("hv_24x7@PM_PB_CYC\\,chip\\=?@", 3).names(),
            std::vector<std::string>{"hv_24x7/PM_PB_CYC,chip=3/"});
  // Values come in the order of names(), a name used twice read once.
  EXPECT_EQ(value("a / b + a", {{"a", 6}, {"b", 3}}), 8);
}

TEST(MetricExpression, LiteralsAndFactsComeFromTheMachine) {
  MetricFacts facts;
  facts.literal = [](std::string_view name) -> std::optional<double> {
    if (name == "#slots") return 4;
    if (name == "#smt_on") return 1;
    return std::nullopt;
  };
  facts.has_event = [](std::string_view event) { return event == "cpu/topdown-retiring/"; };
  facts.cpuid = "GenuineIntel-6-55-4";
  EXPECT_EQ(value("#slots * cycles", {{"cycles", 10}}, facts), 40);
  EXPECT_EQ(value("2 if #smt_on else 1", {}, facts), 2);
  EXPECT_TRUE(std::isnan(value("#num_dies", {}, facts)));  // unknown here
  EXPECT_EQ(value("has_event(cpu@topdown\\-retiring@)", {}, facts), 1);
  EXPECT_EQ(value("has_event(cpu@topdown\\-be\\-bound@)", {}, facts), 0);
  EXPECT_EQ(value("strcmp_cpuid_str(GenuineIntel\\-6\\-55\\-4)", {}, facts), 1);
  EXPECT_EQ(value("strcmp_cpuid_str(GenuineIntel\\-6\\-55\\-.)", {}, facts), 1);  // a pattern of the whole id
  EXPECT_EQ(value("strcmp_cpuid_str(GenuineIntel\\-6\\-55)", {}, facts), 1);      // no stepping: any
  EXPECT_EQ(value("strcmp_cpuid_str(GenuineIntel\\-6\\-5)", {}, facts), 0);       // the whole model
  EXPECT_EQ(value("strcmp_cpuid_str(GenuineIntel\\-6\\-55\\-5)", {}, facts), 0);
  // arm64: the same part, in this variant and revision or a later one.
  facts.cpuid = "0x00000000413fd0c1";  // Neoverse N1 r3p1
  EXPECT_EQ(value("strcmp_cpuid_str(0x410fd0c0)", {}, facts), 1);
  EXPECT_EQ(value("strcmp_cpuid_str(0x413fd0c1)", {}, facts), 1);
  EXPECT_EQ(value("strcmp_cpuid_str(0x413fd0c2)", {}, facts), 0);
  EXPECT_EQ(value("strcmp_cpuid_str(0x414fd0c0)", {}, facts), 0);
  EXPECT_EQ(value("strcmp_cpuid_str(0x410fd400)", {}, facts), 0);  // Neoverse V1
  const MetricExpression expression = MetricExpression::parse("#slots + has_event(a) + #slots + x");
  EXPECT_EQ(expression.literals(), std::vector<std::string>{"#slots"});
  EXPECT_EQ(expression.asked_events(), std::vector<std::string>{"a"});
  EXPECT_EQ(expression.names(), std::vector<std::string>{"x"});  // has_event counts nothing
  // Unresolved, a literal or a fact has no value.
  EXPECT_TRUE(std::isnan(MetricExpression::parse("#slots").evaluate({})));
}

// A branch the facts alone rule out reads nothing: its events need not be counted (perf's
// expr__find_ids); a condition over counts needs both branches.
TEST(MetricExpression, OnlyTheBranchTheFactsChooseIsNeeded) {
  MetricFacts facts;
  facts.literal = [](std::string_view name) -> std::optional<double> {
    return name == "#smt_on" ? std::optional<double>(1) : std::nullopt;
  };
  MetricExpression smt = MetricExpression::parse("(THREAD_ANY / 2 if #SMT_on else THREAD) + other");
  EXPECT_EQ(smt.literals(), std::vector<std::string>{"#smt_on"});  // without case, as perf's
  smt.resolve(facts);
  EXPECT_EQ(smt.names(), (std::vector<std::string>{"THREAD_ANY", "THREAD", "other"}));
  EXPECT_EQ(smt.needed(), (std::vector<bool>{true, false, true}));
  const std::vector<double> values = {10, std::nan(""), 1};
  EXPECT_EQ(smt.evaluate(values), 6);
  MetricExpression counted = MetricExpression::parse("a if b > 1 else c");
  counted.resolve(facts);
  EXPECT_EQ(counted.needed(), (std::vector<bool>{true, true, true}));
}

// perf's mapfile rows against CPU ids as this_cpu_id() writes them (the Xeon one seen on the device
// VM): a row without the stepping matches any stepping, one with it only those it names.
TEST(MetricExpression, CpuIdsMatchAsPerfMatchesThem) {
  EXPECT_TRUE(cpu_id_matches("GenuineIntel-6-(8F|CF)", "GenuineIntel-6-CF-2"));
  EXPECT_FALSE(cpu_id_matches("GenuineIntel-6-(8F|CF)", "GenuineIntel-6-8E-2"));
  EXPECT_TRUE(cpu_id_matches("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-4"));
  EXPECT_FALSE(cpu_id_matches("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-7"));
  EXPECT_TRUE(cpu_id_matches("AuthenticAMD-25-([1][0-9A-F]|[A][0-9A-F])", "AuthenticAMD-25-11-1"));
  EXPECT_FALSE(cpu_id_matches("AuthenticAMD-25-([1][0-9A-F]|[A][0-9A-F])", "AuthenticAMD-25-21-0"));
  EXPECT_FALSE(cpu_id_matches("GenuineIntel-6-CF", ""));
}

TEST(MetricExpression, SourceCountIsHowManyCountersWereSummed) {
  const MetricExpression expression = MetricExpression::parse("a / source_count(a)");
  const std::vector<double> values = {12};
  EXPECT_EQ(expression.evaluate(values), 12);  // one each unless said
  const std::vector<double> counts = {3};
  EXPECT_EQ(expression.evaluate(values, counts), 4);
  const std::vector<double> none = {std::nan("")};
  EXPECT_TRUE(std::isnan(expression.evaluate(none, counts)));
}

TEST(MetricExpression, ErrorsSayWhereAndWhat) {
  EXPECT_EQ(parse_error("a +"),
            "The metric expression 'a +' does not parse: at character 4, expected a number, a name or a parenthesis, "
            "found the end.");
  EXPECT_EQ(parse_error("min(a b)"),
            "The metric expression 'min(a b)' does not parse: at character 7, expected ',', found 'b'.");
  EXPECT_EQ(parse_error("a if b"),
            "The metric expression 'a if b' does not parse: at character 7, expected 'else', found the end.");
  EXPECT_EQ(parse_error("(a"),
            "The metric expression '(a' does not parse: at character 3, expected ')', found the end.");
  EXPECT_EQ(parse_error("a b"),
            "The metric expression 'a b' does not parse: at character 3, expected an operator or the end, found 'b'.");
  EXPECT_EQ(parse_error("a == b"),
            "The metric expression 'a == b' does not parse: at character 3, expected a number, a name, a #literal, an "
            "operator or a parenthesis, found '='.");
  EXPECT_EQ(parse_error("has_event(1 + 2)"),
            "The metric expression 'has_event(1 + 2)' does not parse: at character 11, expected an event's name, found "
            "'1'.");
  EXPECT_NE(parse_error(""), "");
  EXPECT_NE(parse_error("else"), "");
  // Nesting deep enough to exhaust a stack is refused, not followed.
  EXPECT_NE(parse_error(std::string(100000, '(') + "1" + std::string(100000, ')')).find("nested less deeply"),
            std::string::npos);
  EXPECT_NE(parse_error(std::string(100000, '-') + "1").find("nested less deeply"), std::string::npos);
  EXPECT_EQ(value(std::string(200, '(') + "1" + std::string(200, ')')), 1);
}

// The error of a value is the first-order propagation of its inputs' errors, here against the
// formulas worked out by hand: a ratio, a sum, a name read twice (its slopes summed before
// squaring), the branch taken, min, d_ratio's zero.
TEST(MetricExpression, ErrorBarsPropagateFromTheInputs) {
  const MetricExpression ratio = MetricExpression::parse("a / b");
  const std::vector<double> values = {200, 100}, errors = {4, 3};
  std::vector<double> scratch(ratio.scratch_size());
  const MetricValue r = ratio.evaluate(values, errors, scratch);
  EXPECT_DOUBLE_EQ(r.value, 2);
  // d(a/b) = sqrt((da/b)^2 + (a db / b^2)^2) = sqrt(0.04^2 + 0.06^2).
  EXPECT_NEAR(r.error, std::sqrt(0.04 * 0.04 + 0.06 * 0.06), 1e-12);
  auto error_of = [&](const char* text) {
    const MetricExpression expression = MetricExpression::parse(text);
    std::vector<double> room(expression.scratch_size());
    return expression.evaluate(values, errors, room).error;
  };
  EXPECT_NEAR(error_of("a + 2 * b"), std::sqrt(16.0 + 36.0), 1e-12);
  EXPECT_NEAR(error_of("a * a - b"), std::sqrt(std::pow(2 * 200 * 4.0, 2) + 9.0), 1e-9);  // d(a^2) = 2a da
  EXPECT_NEAR(error_of("a if b > 50 else 3 * b"), 4, 1e-12);
  EXPECT_NEAR(error_of("min(a, 3 * b)"), 4, 1e-12);
  EXPECT_NEAR(error_of("-a / 2"), 2, 1e-12);
  EXPECT_EQ(error_of("d_ratio(a, b - 100)"), 0);  // d_ratio of a zero denominator is 0, exactly
  // Exact counts: no error; too little scratch: none computed.
  const std::vector<double> exact = {0, 0};
  EXPECT_EQ(ratio.evaluate(values, exact, scratch).error, 0);
  std::vector<double> small(1);
  EXPECT_EQ(ratio.evaluate(values, errors, small).error, 0);
}

}  // namespace
}  // namespace perfmon
