#include "pkg/cel/go_quote.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <span>
#include <string_view>

#include "pkg/cel/unicode_tables.h"
#include "pkg/cel/utf8.h"

namespace ksched::cel {
namespace {

// Whether `cp` is in `table` (sorted by lo, disjoint).
bool InRanges(std::span<const unicode_tables::Range> table, uint32_t cp) {
  auto it = std::upper_bound(table.begin(), table.end(), cp,
                             [](uint32_t c, const unicode_tables::Range& r) { return c < r.lo; });
  if (it == table.begin()) return false;
  const unicode_tables::Range& r = *std::prev(it);
  return cp <= r.hi && (cp - r.lo) % r.stride == 0;
}

// The length of the UTF-8 sequence starting at s[i] when it is a valid
// one, else 0 (Go decodes the byte alone as U+FFFD).
size_t QuotedSequence(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = static_cast<unsigned char>(s[i]);
  const size_t n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
  if (n == 0 || i + n > s.size() || !IsValidUtf8(s.substr(i, n))) return 0;
  const std::vector<uint32_t> runes = DecodeRunes(s.substr(i, n));
  *cp = runes[0];
  return n;
}

void AppendQuoteHex(std::string* out, uint32_t v, int digits) {
  static const char kHex[] = "0123456789abcdef";
  for (int k = digits - 1; k >= 0; --k) out->push_back(kHex[(v >> (4 * k)) & 0xF]);
}

}  // namespace

bool GoIsPrint(uint32_t cp) {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7F;
  // Above ASCII, Go's printable code points are its graphic ones but
  // spaces: letters, marks, numbers, punctuation and symbols.
  static const std::array<std::span<const unicode_tables::Range>, 5> kPrintable = [] {
    std::array<std::span<const unicode_tables::Range>, 5> out;
    const std::span<const unicode_tables::Class> classes = unicode_tables::Classes();
    const std::string_view names[] = {"L", "M", "N", "P", "S"};
    for (size_t i = 0; i < out.size(); ++i) {
      auto it = std::lower_bound(classes.begin(), classes.end(), names[i],
                                 [](const unicode_tables::Class& c, std::string_view n) { return c.name < n; });
      if (it != classes.end() && it->name == names[i]) out[i] = it->table;
    }
    return out;
  }();
  return std::any_of(kPrintable.begin(), kPrintable.end(),
                     [cp](std::span<const unicode_tables::Range> table) { return InRanges(table, cp); });
}

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = QuotedSequence(s, i, &cp);
    if (n == 0) {
      out += "\\x";
      AppendQuoteHex(&out, static_cast<unsigned char>(s[i]), 2);
      ++i;
      continue;
    }
    if (cp == '"' || cp == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(cp));
    } else if (GoIsPrint(cp)) {
      out.append(s.substr(i, n));
    } else if (!AppendCEscape(&out, cp)) {
      if (cp < 0x20 || cp == 0x7F) {
        out += "\\x";
        AppendQuoteHex(&out, cp, 2);
      } else if (cp < 0x10000) {
        out += "\\u";
        AppendQuoteHex(&out, cp, 4);
      } else {
        out += "\\U";
        AppendQuoteHex(&out, cp, 8);
      }
    }
    i += n;
  }
  out.push_back('"');
  return out;
}

}  // namespace ksched::cel
