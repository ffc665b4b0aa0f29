// SPDX-License-Identifier: Apache-2.0
// Text from outside (command and file names from recordings, event strings) made printable: the
// result must be well-formed UTF-8 by Unicode's table of well-formed byte sequences (checked here
// independently of printable()'s decoder), hold no C0, DEL or C1 control and no U+FFFE or U+FFFF,
// and be printable's own fixed point. Any violation is a finding (a trap).
#include <cstddef>
#include <cstdint>
#include <string>

#include "perfmon/printable.hpp"

namespace {

// The length of the well-formed sequence at s[i] (Unicode 15, table 3-7), 0 if there is none.
std::size_t well_formed(const std::string& s, std::size_t i) {
  auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0x100u; };
  const unsigned b0 = at(0);
  auto in = [](unsigned b, unsigned low, unsigned high) { return b >= low && b <= high; };
  if (b0 <= 0x7f) return 1;
  if (in(b0, 0xc2, 0xdf)) return in(at(1), 0x80, 0xbf) ? 2 : 0;
  if (b0 == 0xe0) return in(at(1), 0xa0, 0xbf) && in(at(2), 0x80, 0xbf) ? 3 : 0;
  if (in(b0, 0xe1, 0xec) || in(b0, 0xee, 0xef)) return in(at(1), 0x80, 0xbf) && in(at(2), 0x80, 0xbf) ? 3 : 0;
  if (b0 == 0xed) return in(at(1), 0x80, 0x9f) && in(at(2), 0x80, 0xbf) ? 3 : 0;
  if (b0 == 0xf0) return in(at(1), 0x90, 0xbf) && in(at(2), 0x80, 0xbf) && in(at(3), 0x80, 0xbf) ? 4 : 0;
  if (in(b0, 0xf1, 0xf3)) return in(at(1), 0x80, 0xbf) && in(at(2), 0x80, 0xbf) && in(at(3), 0x80, 0xbf) ? 4 : 0;
  if (b0 == 0xf4) return in(at(1), 0x80, 0x8f) && in(at(2), 0x80, 0xbf) && in(at(3), 0x80, 0xbf) ? 4 : 0;
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string shown = perfmon::printable(std::string(reinterpret_cast<const char*>(data), size));
  for (std::size_t i = 0; i < shown.size();) {
    const std::size_t length = well_formed(shown, i);
    if (length == 0) __builtin_trap();  // not UTF-8
    const auto c = static_cast<unsigned char>(shown[i]);
    if (length == 1 && (c < 0x20 || c == 0x7f)) __builtin_trap();  // a C0 control or DEL
    const auto c1 = i + 1 < shown.size() ? static_cast<unsigned char>(shown[i + 1]) : 0;
    if (length == 2 && c == 0xc2 && c1 <= 0x9f) __builtin_trap();  // a C1 control
    if (length == 3 && shown.compare(i, 3, "\xef\xbf\xbe") == 0) __builtin_trap();  // U+FFFE
    if (length == 3 && shown.compare(i, 3, "\xef\xbf\xbf") == 0) __builtin_trap();  // U+FFFF
    i += length;
  }
  if (perfmon::printable(shown) != shown) __builtin_trap();  // not its own fixed point
  return 0;
}
