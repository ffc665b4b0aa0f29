// SPDX-License-Identifier: Apache-2.0
// perf's metric language: a lexer that takes the longest match as flex does (expr.l), a
// precedence-climbing parser of expr.y's grammar into nodes that refer to earlier nodes, and an
// evaluator of expr.y's semantics when it computes a value.
#include "perfmon/metric_expression.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "perfmon/error.hpp"

namespace perfmon {

namespace {

using Op = MetricExpression::Node::Op;
constexpr std::size_t kDeepest = 256;  // nesting: a hostile text must not exhaust the stack

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
// expr.l's sym: [0-9a-zA-Z_.:@?]
bool is_symbol_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == ':' ||
         c == '@' || c == '?';
}
// expr.l's spec: a backslash before one of [-,=]
bool is_escape(std::string_view text, std::size_t at) {
  return text[at] == '\\' && at + 1 < text.size() &&
         (text[at + 1] == '-' || text[at + 1] == ',' || text[at + 1] == '=');
}
// expr.l's literal: #[0-9a-zA-Z_.\-]+
bool is_literal_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '-';
}

// The length of expr.l's number at the start of `text`: ([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)?
std::size_t number_length(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size() && is_digit(text[at])) ++at;
  const std::size_t whole = at;
  if (at < text.size() && text[at] == '.') {
    std::size_t fraction = at + 1;
    while (fraction < text.size() && is_digit(text[fraction])) ++fraction;
    if (whole == 0 && fraction == at + 1) return 0;  // "." alone
    at = fraction;
  } else if (whole == 0) {
    return 0;
  }
  if (at < text.size() && text[at] == 'e') {
    std::size_t exponent = at + 1;
    if (exponent < text.size() && text[exponent] == '-') ++exponent;
    const std::size_t digits = exponent;
    while (exponent < text.size() && is_digit(text[exponent])) ++exponent;
    if (exponent > digits) at = exponent;
  }
  return at;
}

std::size_t symbol_length(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    if (is_symbol_char(text[at]))
      ++at;
    else if (is_escape(text, at))
      at += 2;
    else
      break;
  }
  return at;
}

enum class Kind { End, Number, Name, Literal, Keyword, Punctuation };

struct Token {
  Kind kind = Kind::End;
  std::string_view text;  // as written
  std::size_t at = 0;     // its first character's offset
  double number = 0;
};

constexpr std::string_view kKeywords[] = {"if",      "else",         "min",       "max",
                                          "d_ratio", "source_count", "has_event", "strcmp_cpuid_str"};

// A name as perf's parser gets it: escapes undone, '?' the runtime parameter, '@' a '/'.
std::string normalized(std::string_view written, int runtime_parameter) {
  std::string name;
  for (std::size_t at = 0; at < written.size(); ++at) {
    if (written[at] == '\\')
      name += written[++at];
    else if (written[at] == '?')
      name += std::to_string(runtime_parameter);
    else
      name += written[at] == '@' ? '/' : written[at];
  }
  return name;
}

std::uint32_t index_in(std::vector<std::string>& list, std::string name) {
  const auto found = std::find(list.begin(), list.end(), name);
  if (found != list.end()) return static_cast<std::uint32_t>(found - list.begin());
  list.push_back(std::move(name));
  return static_cast<std::uint32_t>(list.size() - 1);
}

}  // namespace

std::string escaped_metric_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == ',' || c == '=') out += '\\';
    out += c == '/' ? '@' : c;
  }
  return out;
}

bool cpu_id_matches(const std::string& pattern, const std::string& cpuid) {
  if (cpuid.empty()) return false;
  if (cpuid.starts_with("0x") && pattern.starts_with("0x")) {
    constexpr std::uint64_t kVariant = 0xfULL << 20, kRevision = 0xfULL;
    const std::uint64_t wanted = std::strtoull(pattern.c_str(), nullptr, 16),
                        have = std::strtoull(cpuid.c_str(), nullptr, 16);
    if ((wanted & ~(kVariant | kRevision)) != (have & ~(kVariant | kRevision))) return false;
    return (have & kVariant) > (wanted & kVariant) ||
           ((have & kVariant) == (wanted & kVariant) && (have & kRevision) >= (wanted & kRevision));
  }
  // A pattern of other than three '-' (perf's test for one with the stepping, ranges in brackets
  // counted too) is matched against the id without its stepping.
  const bool full = std::count(pattern.begin(), pattern.end(), '-') == 3;
  const std::string id = full || cpuid.rfind('-') == std::string::npos ? cpuid : cpuid.substr(0, cpuid.rfind('-'));
  // Most rows are plain ids (GenuineIntel-6-3C): compared as text, without building a regex (a
  // mapfile has dozens of rows, read on every run that chooses metrics).
  const std::size_t special = pattern.find_first_of("[](){}|*+?.^$\\");
  if (special == std::string::npos) return id == pattern;
  if (id.compare(0, special, pattern, 0, special) != 0) return false;  // another vendor or family
  try {
    return std::regex_match(id, std::regex(pattern, std::regex::extended));
  } catch (const std::regex_error&) {
    return false;
  }
}

class MetricExpression::Parser {
 public:
  Parser(MetricExpression& out, int runtime_parameter) : out_(out), text_(out.text_), runtime_(runtime_parameter) {
    next();
  }

  void parse() {
    out_.root_ = if_expression();
    if (token_.kind != Kind::End) fail("expected an operator or the end");
  }

 private:
  [[noreturn]] void fail(const std::string& expected) const {
    const std::string found = token_.kind == Kind::End ? "the end" : "'" + std::string(token_.text) + "'";
    throw Error(ErrorKind::InvalidArgument, "The metric expression '" + text_ + "' does not parse: at character " +
                                                std::to_string(token_.at + 1) + ", " + expected + ", found " + found +
                                                ".");
  }

  void next() {
    std::size_t at = position_;
    while (at < text_.size() && (text_[at] == ' ' || text_[at] == '\t' || text_[at] == '\n' || text_[at] == '\r')) ++at;
    token_ = Token{Kind::End, {}, at};
    if (at == text_.size()) {
      position_ = at;
      return;
    }
    const std::string_view rest = std::string_view(text_).substr(at);
    const std::size_t number = number_length(rest), symbol = symbol_length(rest);
    std::size_t length = 1;
    if (number > 0 && number >= symbol) {  // flex: the longest match, the earlier rule on a tie
      length = number;
      token_.kind = Kind::Number;
      token_.number = std::strtod(std::string(rest.substr(0, number)).c_str(), nullptr);
    } else if (symbol > 0) {
      length = symbol;
      const std::string_view word = rest.substr(0, symbol);
      if (word == "NaN") {
        token_.kind = Kind::Number;
        token_.number = std::nan("");
      } else {
        token_.kind = std::find(std::begin(kKeywords), std::end(kKeywords), word) != std::end(kKeywords) ? Kind::Keyword
                                                                                                         : Kind::Name;
      }
    } else if (rest[0] == '#' && rest.size() > 1 && is_literal_char(rest[1])) {
      while (length < rest.size() && is_literal_char(rest[length])) ++length;
      token_.kind = Kind::Literal;
    } else if (std::string_view("|^&<>-+*/%(),").find(rest[0]) != std::string_view::npos) {
      token_.kind = Kind::Punctuation;
    } else {
      token_ = Token{Kind::Punctuation, rest.substr(0, 1), at};  // named as found
      fail("expected a number, a name, a #literal, an operator or a parenthesis");
    }
    token_.text = rest.substr(0, length);
    position_ = at + length;
  }

  bool is(std::string_view text) const {
    return (token_.kind == Kind::Punctuation || token_.kind == Kind::Keyword) && token_.text == text;
  }
  void expect(std::string_view text) {
    if (!is(text)) fail("expected '" + std::string(text) + "'");
    next();
  }

  std::uint32_t add(MetricExpression::Node node) {
    out_.nodes_.push_back(node);
    return static_cast<std::uint32_t>(out_.nodes_.size() - 1);
  }

  // if_expr: expr 'if' expr 'else' if_expr | expr
  std::uint32_t if_expression() {
    if (++depth_ > kDeepest)
      fail("expected an expression nested less deeply (at most " + std::to_string(kDeepest) + ")");
    const std::uint32_t then = binary(0);
    std::uint32_t result = then;
    if (is("if")) {
      next();
      const std::uint32_t condition = binary(0);
      expect("else");
      const std::uint32_t otherwise = if_expression();
      result = add({.op = Op::If, .a = then, .b = condition, .c = otherwise});
    }
    --depth_;
    return result;
  }

  // expr.y's binary operators by precedence, lowest first; each level is left-associative.
  std::uint32_t binary(int level) {
    static constexpr std::pair<std::string_view, Op> kLevels[][3] = {
        {{"|", Op::Or}, {}, {}},
        {{"^", Op::Xor}, {}, {}},
        {{"&", Op::And}, {}, {}},
        {{"<", Op::Less}, {">", Op::Greater}, {}},
        {{"+", Op::Add}, {"-", Op::Subtract}, {}},
        {{"*", Op::Multiply}, {"/", Op::Divide}, {"%", Op::Modulo}},
    };
    if (level == static_cast<int>(std::size(kLevels))) return unary();
    std::uint32_t left = binary(level + 1);
    for (;;) {
      const auto* op = std::find_if(std::begin(kLevels[level]), std::end(kLevels[level]),
                                    [&](const auto& entry) { return !entry.first.empty() && is(entry.first); });
      if (op == std::end(kLevels[level])) return left;
      next();
      const std::uint32_t right = binary(level + 1);
      left = add({.op = op->second, .a = left, .b = right});
    }
  }

  std::uint32_t unary() {
    if (!is("-")) return primary();
    if (++depth_ > kDeepest)
      fail("expected an expression nested less deeply (at most " + std::to_string(kDeepest) + ")");
    next();
    const std::uint32_t operand = unary();
    --depth_;
    return add({.op = Op::Negate, .a = operand});
  }

  // An event or metric name as a function's argument.
  std::string argument_name() {
    if (token_.kind != Kind::Name) fail("expected an event's name");
    std::string name = normalized(token_.text, runtime_);
    next();
    return name;
  }

  std::uint32_t primary() {
    switch (token_.kind) {
      case Kind::Number: {
        const double number = token_.number;
        next();
        return add({.op = Op::Number, .number = number});
      }
      case Kind::Name: {
        const std::uint32_t index = index_in(out_.names_, normalized(token_.text, runtime_));
        next();
        return add({.op = Op::Name, .index = index});
      }
      case Kind::Literal: {
        // perf compares literals without case (#SMT_on is #smt_on).
        std::string literal(token_.text);
        for (char& c : literal) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const std::uint32_t index = index_in(out_.literals_, std::move(literal));
        next();
        return add({.op = Op::Literal, .index = index});
      }
      case Kind::End:
        fail("expected a number, a name or a parenthesis");
      case Kind::Punctuation:
        if (!is("(")) fail("expected a number, a name or a parenthesis");
        {
          next();
          const std::uint32_t inner = if_expression();
          expect(")");
          return inner;
        }
      case Kind::Keyword:
        break;
    }
    const std::string_view function = token_.text;
    if (function == "if" || function == "else") fail("expected a number, a name or a parenthesis");
    next();
    expect("(");
    std::uint32_t node = 0;
    if (function == "source_count") {
      node = add({.op = Op::SourceCount, .index = index_in(out_.names_, argument_name())});
    } else if (function == "has_event") {
      node = add({.op = Op::HasEvent, .index = index_in(out_.asked_events_, argument_name())});
    } else if (function == "strcmp_cpuid_str") {
      node = add({.op = Op::CpuidMatches, .index = index_in(out_.cpuid_patterns_, argument_name())});
    } else {
      const std::uint32_t first = binary(0);
      expect(",");
      const std::uint32_t second = binary(0);
      node = add({.op = function == "min"   ? Op::Min
                        : function == "max" ? Op::Max
                                            : Op::DRatio,
                  .a = first,
                  .b = second});
    }
    expect(")");
    return node;
  }

  MetricExpression& out_;
  const std::string& text_;
  const int runtime_;
  std::size_t position_ = 0, depth_ = 0;
  Token token_;
};

MetricExpression MetricExpression::parse(std::string_view text, int runtime_parameter) {
  MetricExpression expression;
  expression.text_ = std::string(text);
  Parser(expression, runtime_parameter).parse();
  const double unknown = std::nan("");
  expression.literal_values_.assign(expression.literals_.size(), unknown);
  expression.asked_event_answers_.assign(expression.asked_events_.size(), unknown);
  expression.cpuid_answers_.assign(expression.cpuid_patterns_.size(), unknown);
  return expression;
}

void MetricExpression::resolve(const MetricFacts& facts) {
  for (std::size_t i = 0; i < literals_.size(); ++i) {
    const std::optional<double> value = facts.literal ? facts.literal(literals_[i]) : std::nullopt;
    literal_values_[i] = value ? *value : std::nan("");
  }
  for (std::size_t i = 0; i < asked_events_.size(); ++i)
    asked_event_answers_[i] = facts.has_event && facts.has_event(asked_events_[i]) ? 1 : 0;
  for (std::size_t i = 0; i < cpuid_patterns_.size(); ++i)
    cpuid_answers_[i] = cpu_id_matches(cpuid_patterns_[i], facts.cpuid) ? 1 : 0;
}

std::vector<bool> MetricExpression::needed() const {
  std::vector<bool> needed(names_.size(), false);
  if (nodes_.empty()) return needed;
  auto operands = [](const Node& node) {
    std::vector<std::uint32_t> read;
    if (node.reads_a()) read.push_back(node.a);
    if (node.reads_b()) read.push_back(node.b);
    if (node.reads_c()) read.push_back(node.c);
    return read;
  };
  auto reads_name = [](const Node& node) { return node.op == Op::Name || node.op == Op::SourceCount; };
  // Whether a subtree reads no name: its value is known from the facts alone. Operands come
  // before the node that uses them.
  std::vector<bool> constant(nodes_.size(), true);
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    constant[n] = !reads_name(nodes_[n]);
    for (std::uint32_t operand : operands(nodes_[n])) constant[n] = constant[n] && constant[operand];
  }
  std::vector<std::uint32_t> pending = {root_};
  while (!pending.empty()) {
    const Node& node = nodes_[pending.back()];
    pending.pop_back();
    if (reads_name(node)) {
      needed[node.index] = true;
    } else if (node.op == Op::If && constant[node.b]) {
      // A condition of the facts alone decides the branch, as perf decides which events to count.
      pending.push_back(value_of(node.b, {}, {}) == 0 ? node.c : node.a);
    } else {
      for (std::uint32_t operand : operands(node)) pending.push_back(operand);
    }
  }
  return needed;
}

double MetricExpression::value_of(std::uint32_t index, std::span<const double> values,
                                  std::span<const double> counts) const noexcept {
  const Node& node = nodes_[index];
  // perf: a condition of 0 takes the else branch; any other value, NaN too, the first (only that
  // one is evaluated here; apply() says the same of both evaluated).
  if (node.op == Op::If)
    return value_of(node.b, values, counts) == 0 ? value_of(node.c, values, counts) : value_of(node.a, values, counts);
  return apply(node, node.reads_a() ? value_of(node.a, values, counts) : 0,
               node.reads_b() ? value_of(node.b, values, counts) : 0, 0, values, counts);
}

double MetricExpression::apply(const Node& node, double a, double b, double c, std::span<const double> values,
                               std::span<const double> counts) const noexcept {
  const double nan = std::nan("");
  switch (node.op) {
    case Op::Number:
      return node.number;
    case Op::Name:
      return node.index < values.size() ? values[node.index] : nan;
    case Op::SourceCount:
      if (node.index >= values.size() || std::isnan(values[node.index])) return nan;
      return node.index < counts.size() ? counts[node.index] : 1;
    case Op::Literal:
      return literal_values_[node.index];
    case Op::HasEvent:
      return asked_event_answers_[node.index];
    case Op::CpuidMatches:
      return cpuid_answers_[node.index];
    case Op::Negate:
      return -a;
    case Op::If:
      return b == 0 ? c : a;
    default:
      break;
  }
  const bool finite_a = std::isfinite(a), finite_b = std::isfinite(b);
  switch (node.op) {
    case Op::Add:
      return a + b;
    case Op::Subtract:
      return a - b;
    case Op::Multiply:
      return a * b;
    case Op::Divide:
      return b == 0 ? nan : a / b;
    case Op::Modulo: {
      // On whole numbers, as perf's (long) casts; one whose magnitude a long cannot hold is NaN.
      constexpr double kLongest = 9.2e18;
      if (std::isnan(a) || std::isnan(b) || std::fabs(a) >= kLongest || std::fabs(b) >= kLongest) return nan;
      const long divisor = static_cast<long>(b);
      return divisor == 0 ? nan : static_cast<double>(static_cast<long>(a) % divisor);
    }
    case Op::Less:
      return std::isnan(a) || std::isnan(b) ? nan : (a < b ? 1 : 0);
    case Op::Greater:
      return std::isnan(a) || std::isnan(b) ? nan : (a > b ? 1 : 0);
    // | & ^ as perf evaluates them: a value that is not finite is not known, so the known side
    // decides where it can (0 | x is x, 1 | x is 1) and the result is NaN where it cannot.
    case Op::Or:
      if (finite_a && finite_b) return a != 0 || b != 0 ? 1 : 0;
      if (finite_a) return a == 0 ? b : 1;
      if (finite_b) return b == 0 ? a : 1;
      return nan;
    case Op::And:
      if (finite_a && finite_b) return a != 0 && b != 0 ? 1 : 0;
      if (finite_a) return a != 0 ? b : 0;
      if (finite_b) return b != 0 ? a : 0;
      return nan;
    case Op::Xor:
      return finite_a && finite_b ? ((a == 0) != (b == 0) ? 1 : 0) : nan;
    case Op::Min:
      return a < b ? a : b;
    case Op::Max:
      return a > b ? a : b;
    case Op::DRatio:
      return b == 0 ? 0 : a / b;
    default:
      return nan;
  }
}

double MetricExpression::evaluate(std::span<const double> values,
                                  std::span<const double> source_counts) const noexcept {
  return nodes_.empty() ? std::nan("") : value_of(root_, values, source_counts);
}

MetricValue MetricExpression::evaluate(std::span<const double> values, std::span<const double> errors,
                                       std::span<double> scratch,
                                       std::span<const double> source_counts) const noexcept {
  if (nodes_.empty() || scratch.size() < scratch_size() ||
      std::none_of(errors.begin(), errors.end(), [](double error) { return error > 0; }))
    return {evaluate(values, source_counts), 0};
  // First-order propagation in one pass each way (reverse mode): every node's value, operands
  // first (they come before it); then each node's derivative of the result, from the root down,
  // summed per name; the error is the root of the sum of (derivative x error)^2, the inputs
  // independent.
  const std::size_t count = nodes_.size();
  double* value = scratch.data();
  double* adjoint = value + count;
  double* slope = adjoint + count;  // per name
  for (std::size_t i = 0; i < count; ++i) {
    const Node& node = nodes_[i];
    value[i] = apply(node, node.reads_a() ? value[node.a] : 0, node.reads_b() ? value[node.b] : 0,
                     node.reads_c() ? value[node.c] : 0, values, source_counts);
    adjoint[i] = 0;
  }
  // The value is the root's (the same as evaluate()'s: a branch not taken is computed, not used).
  MetricValue result{value[root_], 0};
  if (!std::isfinite(result.value)) return result;
  std::fill(slope, slope + names_.size(), 0.0);
  adjoint[root_] = 1;
  for (std::size_t i = root_ + 1; i-- > 0;) {
    const double g = adjoint[i];
    if (g == 0 || !std::isfinite(g)) continue;
    const Node& node = nodes_[i];
    const double a = node.reads_b() ? value[node.a] : 0, b = node.reads_b() ? value[node.b] : 0;
    switch (node.op) {
      case Op::Name:
        if (node.index < names_.size()) slope[node.index] += g;
        break;
      case Op::Negate:
        adjoint[node.a] -= g;
        break;
      case Op::If:
        adjoint[value[node.b] == 0 ? node.c : node.a] += g;
        break;
      case Op::Add:
        adjoint[node.a] += g;
        adjoint[node.b] += g;
        break;
      case Op::Subtract:
        adjoint[node.a] += g;
        adjoint[node.b] -= g;
        break;
      case Op::Multiply:
        adjoint[node.a] += g * b;
        adjoint[node.b] += g * a;
        break;
      case Op::Divide:
      case Op::DRatio:
        if (b != 0) {
          adjoint[node.a] += g / b;
          adjoint[node.b] -= g * a / (b * b);
        }
        break;
      case Op::Modulo:
        if (b != 0) {
          adjoint[node.a] += g;
          adjoint[node.b] -= g * std::trunc(a / b);
        }
        break;
      case Op::Min:
        adjoint[a < b ? node.a : node.b] += g;
        break;
      case Op::Max:
        adjoint[a > b ? node.a : node.b] += g;
        break;
      default:  // numbers, literals, answers, comparisons and logic: no slope in any input
        break;
    }
  }
  double variance = 0;
  for (std::size_t i = 0; i < names_.size() && i < values.size() && i < errors.size(); ++i) {
    if (!(errors[i] > 0)) continue;
    const double change = slope[i] * errors[i];
    if (std::isfinite(change)) variance += change * change;
  }
  result.error = std::sqrt(variance);
  return result;
}

}  // namespace perfmon
