// UTF-8 helpers with Go's conventions: an invalid byte decodes as U+FFFD
// and counts as one code point, as ranging over a Go string does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::cel {

std::vector<uint32_t> DecodeRunes(std::string_view s);
// Go's utf8.Valid: every sequence is a shortest encoding of a code point
// that is not a surrogate.
bool IsValidUtf8(std::string_view s);
size_t CountRunes(std::string_view s);
// Appends the UTF-8 encoding of one code point.
void AppendRune(std::string* out, uint32_t cp);
// Appends the backslash escape that Go's strconv.Quote and CEL's
// strings.quote share for `c` (\a \b \f \n \r \t \v \\ \"); false, appending
// nothing, for any other code point.
bool AppendCEscape(std::string* out, uint32_t c);
// The UTF-8 encoding of runes[begin, end).
std::string EncodeRunes(const std::vector<uint32_t>& runes, size_t begin, size_t end);
// Go's strings.SplitN(s, "", n): one piece per UTF-8 sequence (n < 0: all;
// otherwise at most n pieces, the last holding the rest).
std::vector<std::string> SplitRunes(std::string_view s, int64_t n);
// Go's strings.TrimSpace: strips Unicode white space at both ends.
std::string TrimSpace(std::string_view s);

}  // namespace ksched::cel
