// perfmon: text from outside (command names, file names, event strings) made safe to show on a
// terminal.
#pragma once

#include <string>
#include <string_view>

namespace perfmon {

// The text with control characters (C0, DEL and, in UTF-8, C1) written as \xHH or \u00HH, so that
// it can neither split its line nor drive the terminal.
std::string printable(std::string_view text);

}  // namespace perfmon
