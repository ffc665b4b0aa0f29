// SPDX-License-Identifier: Apache-2.0
#include "perfmon/printable.hpp"

#include <cstdint>
#include <cstdio>

namespace perfmon {

namespace {

// The code point of the UTF-8 sequence at text[i] and its length, or length 0 where the bytes are
// not one: a stray or missing continuation byte, an overlong form, a surrogate (U+D800 to U+DFFF),
// or a code point above U+10FFFF.
struct Decoded {
  std::uint32_t code_point = 0;
  std::size_t length = 0;
};

Decoded decode_utf8(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return {c, 1};
  std::size_t length = 0;
  std::uint32_t code_point = 0, smallest = 0;
  if ((c & 0xe0) == 0xc0) {
    length = 2, code_point = c & 0x1fu, smallest = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    length = 3, code_point = c & 0x0fu, smallest = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    length = 4, code_point = c & 0x07u, smallest = 0x10000;
  } else {
    return {};
  }
  if (i + length > text.size()) return {};
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xc0) != 0x80) return {};
    code_point = code_point << 6 | (next & 0x3fu);
  }
  if (code_point < smallest || code_point > 0x10ffff || (code_point >= 0xd800 && code_point <= 0xdfff)) return {};
  return {code_point, length};
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  append_printable(out, text);
  return out;
}

void append_printable(std::string& out, std::string_view text) {
  // Most text is printable ASCII, taken as it is.
  std::size_t plain = 0;
  while (plain < text.size() && text[plain] >= 0x20 && text[plain] < 0x7f) ++plain;
  out.append(text.substr(0, plain));
  char escaped[8];
  for (std::size_t i = plain; i < text.size();) {
    const Decoded decoded = decode_utf8(text, i);
    const std::uint32_t c = decoded.code_point;
    if (decoded.length == 0 || c == 0xfffe || c == 0xffff) {
      out += "\xef\xbf\xbd";  // U+FFFD; U+FFFE and U+FFFF are no characters (XML refuses them)
      i += decoded.length == 0 ? 1 : decoded.length;
      continue;
    }
    if (c < 0x20 || c == 0x7f) {
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else if (c >= 0x80 && c <= 0x9f) {  // the C1 controls
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out.append(text, i, decoded.length);
    }
    i += decoded.length;
  }
}

std::string xml_text(std::string_view raw) {
  const std::string text = printable(raw);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace perfmon
