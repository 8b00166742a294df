// Go's strconv.Quote over all of Unicode: what string.format prints for a
// string or bytes inside a list or map (fmt's %q), and how Go's errors that
// pkg/cel reproduces quote their input (net/netip, net/url).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ksched::cel {

// Go's strconv.IsPrint: letters, marks, numbers, punctuation, symbols and
// the ASCII space, from unicode_tables (Unicode 15.0.0, as Go 1.24-1.26
// have it).
bool GoIsPrint(uint32_t cp);

// `s` in double quotes as strconv.Quote writes it: printable code points
// as they are, \a \b \f \n \r \t \v \\ \" escaped, other ASCII as \xHH,
// other code points as \uHHHH or \UHHHHHHHH, and each byte of an invalid
// UTF-8 sequence as \xHH.
std::string GoQuote(std::string_view s);

}  // namespace ksched::cel
