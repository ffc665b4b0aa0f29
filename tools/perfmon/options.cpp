// SPDX-License-Identifier: Apache-2.0
#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "errors.hpp"
#include "perf_options.hpp"
#include "perfmon/error.hpp"
#include "perfmon/nearest_names.hpp"

namespace perfmon::cli {

namespace {
const Option* find_long(const std::vector<Option>& options, std::string_view name) {
  if (name.empty()) return nullptr;  // a short option only has no long name to match
  for (const Option& option : options)
    if (option.long_name == name) return &option;
  return nullptr;
}
const Option* find_short(const std::vector<Option>& options, char name) {
  for (const Option& option : options)
    if (option.short_name != 0 && option.short_name == name) return &option;
  return nullptr;
}

// Every option value means something: an empty one is a mistake (-e '' would otherwise count the
// default events, -o '' write to the terminal).
void apply_value(const Option& option, std::string_view spelled, std::string_view value) {
  if (value.empty())
    throw UsageError("option '" + std::string(spelled) + "' needs a value (" + std::string(option.value_name) +
                     "), not an empty one");
  option.apply(value);
}
}  // namespace

std::vector<std::string> parse_options(std::span<char* const> args, const std::vector<Option>& options) {
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // the command starts here
    if (arg.starts_with("--")) {
      std::string_view body = arg.substr(2);
      std::size_t equals = body.find('=');
      std::string_view name = body.substr(0, equals);
      const Option* option = find_long(options, name);
      if (option == nullptr) {
        std::vector<std::string> known;
        for (const Option& candidate : options)
          if (!candidate.long_name.empty()) known.push_back("--" + std::string(candidate.long_name));
        throw UnknownOption("unknown option '--" + std::string(name) + "'" +
                                did_you_mean(nearest_names("--" + std::string(name), known)),
                            "--" + std::string(name));
      }
      if (option->value_name.empty()) {
        if (equals != std::string_view::npos) throw UsageError("option '--" + std::string(name) + "' takes no value");
        option->apply("");
      } else if (equals != std::string_view::npos) {
        apply_value(*option, "--" + std::string(name), body.substr(equals + 1));
      } else if (option->takes_next_word) {
        const bool next = i + 1 < args.size() && option->takes_next_word(args[i + 1]);
        option->apply(next ? std::string_view(args[++i]) : std::string_view());
      } else {
        if (i + 1 >= args.size())
          throw UsageError("option '--" + std::string(name) + "' needs a value (" + std::string(option->value_name) +
                           ")");
        apply_value(*option, "--" + std::string(name), args[++i]);
      }
      continue;
    }
    for (std::size_t k = 1; k < arg.size(); ++k) {
      const Option* option = find_short(options, arg[k]);
      if (option == nullptr)
        throw UnknownOption("unknown switch '-" + std::string(1, arg[k]) + "'", "-" + std::string(1, arg[k]));
      if (option->value_name.empty()) {
        option->apply("");
        continue;
      }
      if (k + 1 < arg.size()) {
        option->apply(arg.substr(k + 1));
      } else if (option->takes_next_word) {
        const bool next = i + 1 < args.size() && option->takes_next_word(args[i + 1]);
        option->apply(next ? std::string_view(args[++i]) : std::string_view());
      } else {
        if (i + 1 >= args.size())
          throw UsageError("switch '-" + std::string(1, arg[k]) + "' needs a value (" +
                           std::string(option->value_name) + ")");
        apply_value(*option, "-" + std::string(1, arg[k]), args[++i]);
      }
      break;
    }
  }
  return {args.begin() + static_cast<std::ptrdiff_t>(i), args.end()};
}

std::string usage_text(std::string_view synopsis, const std::vector<Option>& options) {
  std::string text = "\n usage: " + std::string(synopsis) + "\n\n";
  for (const Option& option : options) {
    std::string left = "    ";
    if (option.long_name.empty()) {
      left += std::string("-") + option.short_name;  // a short option only (perf's -g)
    } else {
      left += option.short_name ? std::string("-") + option.short_name + ", " : "    ";
      left += "--" + std::string(option.long_name);
    }
    if (!option.value_name.empty())
      left += (option.takes_next_word ? "[=<" : " <") + std::string(option.value_name) +
              (option.takes_next_word ? ">]" : ">");
    if (left.size() < 30)
      left.resize(30, ' ');
    else
      left += "\n" + std::string(30, ' ');
    text += left + std::string(option.help) + "\n";
  }
  return text + "\n";
}

std::string roff_text(std::string_view text) {
  std::string out;
  bool in_option = false;  // within a word that starts with '-': all its hyphens are minus signs
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char before = i == 0 ? ' ' : text[i - 1];
    if ((c == '.' || c == '\'') && (i == 0 || before == '\n')) out += "\\&";
    if (std::string_view(" \n'`(").find(c) != std::string_view::npos) in_option = false;
    if (c == '-' && std::string_view(" \n-'`([").find(before) != std::string_view::npos) in_option = true;
    if (c == '\\')
      out += "\\e";
    else if (c == '-' && in_option)
      out += "\\-";
    else
      out += c;
  }
  return out;
}

std::string man_sections(std::string_view synopsis, const std::vector<Option>& options) {
  std::string page = ".SH SYNOPSIS\n.nf\n" + roff_text(synopsis) + "\n.fi\n.SH OPTIONS\n";
  for (const Option& option : options) {
    std::string names;
    if (option.short_name != 0) names = "\\fB\\-" + std::string(1, option.short_name) + "\\fR";
    if (!option.long_name.empty())
      names +=
          (names.empty() ? "" : ", ") + std::string("\\fB") + roff_text("--" + std::string(option.long_name)) + "\\fR";
    if (!option.value_name.empty())
      names += (option.takes_next_word ? " [\\fI" : " \\fI") + roff_text(option.value_name) +
               (option.takes_next_word ? "\\fR]" : "\\fR");
    page += ".TP\n" + names + "\n" + roff_text(option.help) + "\n";
  }
  return page;
}

std::optional<int> parse_command_line(std::span<char* const> args, std::string_view command, std::string_view synopsis,
                                      std::vector<Option> options, std::vector<std::string>& rest,
                                      const std::function<void(const std::vector<std::string>&)>& check) {
  bool help = false;
  options.push_back({'h', "help", "", "show this help", [&](std::string_view) { help = true; }});
  auto refuse = [&](const std::string& sentence) {
    std::fprintf(stderr, "perfmon %.*s: %s\nRun 'perfmon %.*s --help' for the options.\n",
                 static_cast<int>(command.size()), command.data(), printable(sentence).c_str(),
                 static_cast<int>(command.size()), command.data());
    return 129;
  };
  if (args.size() == 1 && std::string_view(args[0]) == "--list-opts") {
    std::string names;
    for (const Option& option : options)
      if (!option.long_name.empty()) names += (names.empty() ? "--" : " --") + std::string(option.long_name);
    std::puts(names.c_str());
    return 0;
  }
  if (args.size() == 1 && std::string_view(args[0]) == "--man-sections") {
    std::fputs(man_sections(synopsis, options).c_str(), stdout);
    return 0;
  }
  try {
    rest = parse_options(args, options);
    if (help) {
      std::fputs(usage_text(synopsis, options).c_str(), stdout);
      return 0;
    }
    if (check) check(rest);
  } catch (const UnknownOption& error) {
    if (const std::optional<std::string> refusal = perf_option_refusal(command, error.spelled()))
      return refuse(*refusal + ".");
    return refuse(std::string(error.what()) + (std::string_view(error.what()).ends_with('?') ? "" : "."));
  } catch (const UsageError& error) {
    const std::string sentence = error.what();
    return refuse(sentence.ends_with('?') ? sentence : sentence + ".");  // a question ends itself
  } catch (const Error& error) {  // an option value the library refused: its sentence as it is
    return refuse(error.what());
  }
  return std::nullopt;
}

std::function<void(const std::vector<std::string>&)> reads_a_file_only(std::string_view command) {
  return [name = std::string(command)](const std::vector<std::string>& words) {
    if (!words.empty()) throw UsageError(name + " takes no command; give the file with -i");
  };
}

long parse_long(std::string_view text, std::string_view option, long min, long max) {
  long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    throw UsageError("option '" + std::string(option) + "' needs a whole number from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", not '" + std::string(text) + "'");
  return value;
}

std::vector<std::string> comma_list(std::string_view text) {
  std::vector<std::string> names;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    if (comma > at) names.emplace_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return names;
}

}  // namespace perfmon::cli
