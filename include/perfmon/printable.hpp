// SPDX-License-Identifier: Apache-2.0
// perfmon: text from outside (command names, file names, event strings) made safe to show on a
// terminal.
#pragma once

#include <string>
#include <string_view>

namespace perfmon {

// The text with control characters (C0, DEL and, in UTF-8, C1) written as \xHH or \u00HH, so that
// it can neither split its line nor drive the terminal, and as valid UTF-8: a byte that does not
// begin a well-formed sequence (overlong forms, surrogates and code points above U+10FFFF are not),
// and the noncharacters U+FFFE and U+FFFF, become U+FFFD. What it returns is fit for a terminal,
// JSON and XML text (after XML's own escapes).
std::string printable(std::string_view text);
// The same appended to `out`: no string of its own.
void append_printable(std::string& out, std::string_view text);
// printable() with XML's markup escaped (&, <, >, "): text for an XML element or attribute.
std::string xml_text(std::string_view text);

}  // namespace perfmon
