// SPDX-License-Identifier: Apache-2.0
// Command-line options in perf's style: -e X, -eX, --event X, --event=X, clustered -aA, and the
// first word that is not an option (or whatever follows "--") starts the command to run.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfmon::cli {

// A mistake in the command line: printed with a hint to --help, exit status 129 (as perf).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An option the command does not know, as it was spelled ("--stats", "-F"): perf's are refused as
// perf's (perf_options.hpp).
class UnknownOption : public UsageError {
 public:
  UnknownOption(const std::string& sentence, std::string spelled)
      : UsageError(sentence), spelled_(std::move(spelled)) {}
  const std::string& spelled() const { return spelled_; }

 private:
  std::string spelled_;
};

struct Option {
  char short_name = 0;  // 0: long form only
  std::string_view long_name;
  std::string_view value_name;  // empty: a flag without a value
  std::string_view help;
  std::function<void(std::string_view)> apply;
  // Set for a value that may be left out (perf's -g): one not attached (-gcaller, --call-graph=x) is
  // the next word where this says the word is one, else the option is applied with "".
  std::function<bool(std::string_view)> takes_next_word = nullptr;
};

// Applies the options in args and returns the remaining words (the command). Throws UsageError.
std::vector<std::string> parse_options(std::span<char* const> args, const std::vector<Option>& options);

std::string usage_text(std::string_view synopsis, const std::vector<Option>& options);

// A manual page's SYNOPSIS and OPTIONS sections (roff), from the same table as --help, so that the
// two cannot drift; `perfmon --man-page CMD` wraps them in the page.
std::string man_sections(std::string_view synopsis, const std::vector<Option>& options);

// Text set in roff: a leading dot or quote cannot start a request, hyphens of options are minus
// signs (so that a copied `--event` stays two ASCII hyphens), backslashes are printed.
std::string roff_text(std::string_view text);

// A subcommand's whole command line, in one place: adds -h/--help (prints the synopsis and the
// options, exit 0), perf's --list-opts (the long options on one line, which bash completion reads)
// and --man-sections (man_sections, for the manual pages the build makes); a mistake, including one `check` finds in
// the remaining words, is one sentence with a hint to --help (exit 129). Otherwise returns nullopt and the remaining
// words.
std::optional<int> parse_command_line(std::span<char* const> args, std::string_view command, std::string_view synopsis,
                                      std::vector<Option> options, std::vector<std::string>& rest,
                                      const std::function<void(const std::vector<std::string>&)>& check = nullptr);

// A `check` for the commands that read a file (-i) and run nothing: words left over are a mistake.
std::function<void(const std::vector<std::string>&)> reads_a_file_only(std::string_view command);

// Helpers for option values; they throw UsageError naming the option.
long parse_long(std::string_view text, std::string_view option, long min, long max);
// "a,b,,c" as {"a", "b", "c"}: perf's comma-separated lists of names.
std::vector<std::string> comma_list(std::string_view text);

}  // namespace perfmon::cli
