// SPDX-License-Identifier: Apache-2.0
#include "serve/exposition.hpp"

#include <algorithm>
#include <charconv>

#include "perfmon/printable.hpp"

namespace perfmon::serve {

namespace {

// A label value as both formats escape it: backslash, double quote and newline. Both formats are
// UTF-8: a name that is not (a cgroup made with Latin-1 bytes) is shown as printable() shows it,
// its odd bytes as U+FFFD, so that one directory's name never makes the whole scrape invalid.
void append_escaped(std::string& out, std::string_view text) {
  // Printable ASCII (and newlines, which both formats escape), as nearly every name is, as it is:
  // no copy per label on the scrape's path.
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte >= 0x20 && byte < 0x7f) || c == '\n';
  });
  std::string shown;
  if (!plain) shown = printable(text);
  for (const char c : plain ? text : std::string_view(shown)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

template <typename Number>
void append_number(std::string& out, Number value) {
  char text[32];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  out.append(text, error == std::errc() ? end : text);
}

bool is_counter(const Family& family) {
  return std::string_view(family.type) == "counter";
}

// What a sample's name adds to its family's: "_total" for a counter, "_info" for an info, nothing
// for a gauge.
const char* sample_suffix(const Family& family) {
  const std::string_view type = family.type;
  return type == "counter" ? "_total" : type == "info" ? "_info" : "";
}

}  // namespace

void Exposition::begin(const Family& family) {
  const bool open_metrics = format_ == ExpositionFormat::OpenMetrics;
  // Text 0.0.4 knows no info type and names a family by its samples' name.
  const std::string name = std::string(family.name) + (open_metrics ? "" : sample_suffix(family));
  out_ += "# HELP " + name + " " + family.help + "\n";
  out_ += "# TYPE " + name + " " + (open_metrics || is_counter(family) ? family.type : "gauge") + "\n";
  if (open_metrics && *family.unit != '\0') out_ += "# UNIT " + name + " " + family.unit + "\n";
}

void Exposition::sample(const Family& family) {
  out_ += family.name;
  out_ += sample_suffix(family);
  first_label_ = true;
}

void Exposition::label(std::string_view key, std::string_view value) {
  open_label(key);
  append_escaped(out_, value);
  out_ += '"';
}

void Exposition::label(std::string_view key, std::uint64_t value) {
  open_label(key);
  append_number(out_, value);
  out_ += '"';
}

void Exposition::open_label(std::string_view key) {
  out_ += first_label_ ? '{' : ',';
  first_label_ = false;
  out_ += key;
  out_ += "=\"";
}

void Exposition::value(double value) {
  out_ += first_label_ ? " " : "} ";
  append_number(out_, value);
  out_ += '\n';
}

void Exposition::value(std::uint64_t value) {
  out_ += first_label_ ? " " : "} ";
  append_number(out_, value);
  out_ += '\n';
}

std::string Exposition::finish() {
  if (format_ == ExpositionFormat::OpenMetrics) out_ += "# EOF\n";
  return std::move(out_);
}

}  // namespace perfmon::serve
