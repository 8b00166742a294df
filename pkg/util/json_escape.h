// JSON string escaping shared by the API request writer (pkg/api) and the
// JSON log format (pkg/log): quotes and backslashes escaped, \n \r \t by
// name and the other control bytes as \u00XX (as zap, klog's JSON encoder,
// writes them), every other byte (UTF-8 included) as it is.
//
// Out is any byte buffer with append(first, last) and push_back(char):
// std::string, fmt's memory buffers. O(size of s).
#pragma once

#include <string_view>

namespace ksched::util {

// Appends s's escaped bytes, without the surrounding quotes.
template <typename Out>
void AppendJsonEscaped(Out& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t plain = 0;  // start of the run of bytes that need no escape
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + plain, s.data() + i);
    plain = i + 1;
    out.push_back('\\');
    switch (c) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '\n': out.push_back('n'); break;
      case '\r': out.push_back('r'); break;
      case '\t': out.push_back('t'); break;
      default: {
        const char hex[] = {'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
        out.append(hex, hex + sizeof(hex));
      }
    }
  }
  out.append(s.data() + plain, s.data() + s.size());
}

}  // namespace ksched::util
