// ASCII character tests for the hand-written parsers (JSON numbers, YAML
// scalars, Quantity, Go durations, CEL literals, HTTP chunk sizes,
// percent-encoding). Unlike <cctype>
// they ignore the locale and are defined for every char value.
//
// Thread-safety: pure constexpr functions.
#pragma once

namespace ksched::util {

constexpr bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// The value of the hexadecimal digit `c` (0-15; either case), or -1 when `c`
// is not one.
constexpr int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace ksched::util
