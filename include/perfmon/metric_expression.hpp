// SPDX-License-Identifier: Apache-2.0
// perfmon: perf's metric language — the MetricExpr of perf's pmu-events JSON tables (and of
// intel/perfmon's and Arm's tables in perf's shape), parsed once, evaluated at every reading:
//
//   perfmon::MetricExpression ipc = perfmon::MetricExpression::parse("instructions / cycles");
//   // ipc.names() is {"instructions", "cycles"}: their values, in that order, make the value
//   const std::array<double, 2> counts = {2e9, 1e9};
//   double value = ipc.evaluate(counts);  // 2
//
// The language as perf's expr.y and expr.l define it:
//   numbers      1, 2.5, .5, 1e-3, NaN
//   names        events as perf names them (INST_RETIRED.ANY, cpu_core@cycles@ — '@' for the '/'
//                of a PMU term, a backslash before ',', '-' or '=' inside one — ), other
//                metrics' names, duration_time, user_time, system_time
//   literals     (without case) #slots, #smt_on, #num_cpus, #num_cpus_online, #num_cores, #num_dies,
//                #num_packages, #core_wide, #system_tsc_freq: facts of the machine
//   operators    + - * / % (by precedence, lowest first: `if else`; |; ^; &; < >; + -; * / %;
//                unary -), ( ), with | & ^ on truth values (0 false, anything else true)
//   functions    min(a, b), max(a, b), d_ratio(a, b) (a / b, 0 where b is 0),
//                source_count(EVENT) (how many counters were summed into its value),
//                has_event(EVENT) (1 where this machine can count it), strcmp_cpuid_str(REGEX)
//                (1 where the CPU's id matches: the table's rows for one stepping)
//   conditions   A if C else B (B where C is 0); `else` binds to the nearest `if`
// As in perf, a name without a value and x / 0 give NaN, as does arithmetic on NaN; a condition
// that is NaN counts as true. Where a value is NaN a tool prints no figure: a metric that cannot be
// computed is never shown as 0.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfmon {

// What an expression asks of the machine beyond counts: its literals, whether an event can be
// counted, and the CPU's id (perf's: "GenuineIntel-6-55-4", an arm64 MIDR "0x00000000410fd0c1").
struct MetricFacts {
  std::function<std::optional<double>(std::string_view literal)> literal;  // "#slots"; nullopt: unknown (NaN)
  std::function<bool(std::string_view event)> has_event;                   // unset: no event is known
  std::string cpuid;
};

// A value with its standard error (0 for exact counts): error propagated to first order from the
// inputs' own, taken as independent.
struct MetricValue {
  double value = 0;
  double error = 0;
};

// perf's test of a CPU id against a table's pattern (strcmp_cpuid_str, and the rows of its
// mapfile.csv): on arm64 (MIDRs, "0x...") the same part in the pattern's variant and revision or a
// later one; elsewhere the pattern, an extended regular expression, matching the whole id (without
// its stepping where the pattern has none: "GenuineIntel-6-(7D|7E)" matches "GenuineIntel-6-7E-5").
bool cpu_id_matches(const std::string& pattern, const std::string& cpuid);

// An event's name written so that the expression reads it back as that name (names()): '-', ','
// and '=' escaped with a backslash, a PMU's '/' as '@' (cpu_core/cycles/ as cpu_core@cycles@).
std::string escaped_metric_name(std::string_view name);

class MetricExpression {
 public:
  // Throws perfmon::Error (InvalidArgument) naming the character where the text stops making sense
  // and what was expected there. A '?' in a name becomes `runtime_parameter` (perf's --runtime).
  static MetricExpression parse(std::string_view text, int runtime_parameter = 0);

  const std::string& text() const noexcept { return text_; }
  // The names whose values the expression reads, in the order of their first use, as perf gives
  // them to its event parser: backslash escapes undone, each '@' a '/' (cpu_core@cycles@ is
  // cpu_core/cycles/). Not among them: has_event's and strcmp_cpuid_str's arguments.
  const std::vector<std::string>& names() const noexcept { return names_; }
  // The #literals it reads, in the order of their first use ("#slots").
  const std::vector<std::string>& literals() const noexcept { return literals_; }
  // has_event's arguments (names as above).
  const std::vector<std::string>& asked_events() const noexcept { return asked_events_; }

  // Answers the literals, has_event and strcmp_cpuid_str from `facts`, once: evaluate() then reads
  // the answers. Before, each of them is NaN.
  void resolve(const MetricFacts& facts);

  // For each of names(), whether the value may read it: a branch of `A if C else B` that the facts
  // alone rule out (C reads no name: #smt_on, has_event(...)) needs nothing counted, as in perf.
  // Meaningful after resolve().
  std::vector<bool> needed() const;

  // The value, given each name's value in the order of names() (NaN where one has none), and how
  // many counters were summed into each (source_count; empty: 1 each). No allocation, no throw.
  double evaluate(std::span<const double> values, std::span<const double> source_counts = {}) const noexcept;
  // The value and its error from each name's value and standard error (the multiplexing estimate's:
  // 0 where a count is exact), propagated to first order through the expression's derivatives.
  // `scratch` (scratch_size() doubles) is the caller's; smaller, the error is left 0.
  MetricValue evaluate(std::span<const double> values, std::span<const double> errors, std::span<double> scratch,
                       std::span<const double> source_counts = {}) const noexcept;
  std::size_t scratch_size() const noexcept { return 2 * nodes_.size() + names_.size(); }

  // One operation of the parsed expression; its operands are earlier nodes (or names, literals,
  // questions by index).
  struct Node {
    enum class Op : std::uint8_t {
      Number,
      Name,
      SourceCount,
      Literal,
      HasEvent,
      CpuidMatches,  // leaves: `index` says which
      Negate,
      Add,
      Subtract,
      Multiply,
      Divide,
      Modulo,
      Less,
      Greater,
      Or,
      And,
      Xor,
      Min,
      Max,
      DRatio,
      If,  // a if b else c
    };
    // Whether the node reads operand a, b, c (the binary operators are those from Add to DRatio).
    bool reads_a() const noexcept { return op >= Op::Negate; }
    bool reads_b() const noexcept { return op >= Op::Add; }
    bool reads_c() const noexcept { return op == Op::If; }
    Op op = Op::Number;
    std::uint32_t index = 0, a = 0, b = 0, c = 0;
    double number = 0;
  };

 private:
  class Parser;
  MetricExpression() = default;
  double value_of(std::uint32_t node, std::span<const double> values, std::span<const double> counts) const noexcept;
  // A node's value from its operands' values (a, b, c as the node names them; unused ones ignored).
  double apply(const Node& node, double a, double b, double c, std::span<const double> values,
               std::span<const double> counts) const noexcept;

  std::string text_;
  std::vector<std::string> names_, literals_, asked_events_, cpuid_patterns_;
  std::vector<double> literal_values_, asked_event_answers_, cpuid_answers_;
  std::vector<Node> nodes_;
  std::uint32_t root_ = 0;
};

}  // namespace perfmon
