#include "pkg/cel/utf8.h"

namespace ksched::cel {
namespace {

// Decodes one sequence at s[i]; returns its length (1 for an invalid byte,
// whose rune is U+FFFD).
size_t DecodeOne(std::string_view s, size_t i, uint32_t* rune) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    *rune = c;
    return 1;
  }
  size_t len = 0;
  uint32_t cp = 0, min = 0;
  if ((c & 0xE0) == 0xC0) {
    len = 2; cp = c & 0x1F; min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3; cp = c & 0x0F; min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4; cp = c & 0x07; min = 0x10000;
  } else {
    *rune = 0xFFFD;
    return 1;
  }
  if (i + len > s.size()) {
    *rune = 0xFFFD;
    return 1;
  }
  for (size_t k = 1; k < len; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) {
      *rune = 0xFFFD;
      return 1;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) {
    *rune = 0xFFFD;
    return 1;
  }
  *rune = cp;
  return len;
}


bool IsSpace(uint32_t r) {
  switch (r) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case ' ': case 0x85: case 0xA0:
    case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return r >= 0x2000 && r <= 0x200A;
  }
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    uint32_t rune = 0;
    const size_t len = DecodeOne(s, i, &rune);
    // An invalid byte decodes as U+FFFD of length 1; a real U+FFFD has 3.
    if (rune == 0xFFFD && len == 1) return false;
    i += len;
  }
  return true;
}

bool AppendCEscape(std::string* out, uint32_t c) {
  switch (c) {
    case '\a': *out += "\\a"; return true;
    case '\b': *out += "\\b"; return true;
    case '\f': *out += "\\f"; return true;
    case '\n': *out += "\\n"; return true;
    case '\r': *out += "\\r"; return true;
    case '\t': *out += "\\t"; return true;
    case '\v': *out += "\\v"; return true;
    case '\\': *out += "\\\\"; return true;
    case '"': *out += "\\\""; return true;
    default: return false;
  }
}

void AppendRune(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::vector<uint32_t> DecodeRunes(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    uint32_t r = 0;
    i += DecodeOne(s, i, &r);
    out.push_back(r);
  }
  return out;
}

size_t CountRunes(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) {
    uint32_t r = 0;
    i += DecodeOne(s, i, &r);
  }
  return n;
}

std::string EncodeRunes(const std::vector<uint32_t>& runes, size_t begin, size_t end) {
  std::string out;
  for (size_t k = begin; k < end; ++k) AppendRune(&out, runes[k]);
  return out;
}

std::vector<std::string> SplitRunes(std::string_view s, int64_t n) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    if (n > 0 && static_cast<int64_t>(out.size()) == n - 1) {
      out.emplace_back(s.substr(i));
      return out;
    }
    uint32_t r = 0;
    size_t len = DecodeOne(s, i, &r);
    // An invalid byte becomes U+FFFD, as Go's explode does.
    if (r == 0xFFFD && len == 1) {
      std::string bad;
      AppendRune(&bad, 0xFFFD);
      out.push_back(bad);
    } else {
      out.emplace_back(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

std::string TrimSpace(std::string_view s) {
  size_t begin = 0, end = s.size();
  while (begin < end) {
    uint32_t r = 0;
    size_t len = DecodeOne(s, begin, &r);
    if (!IsSpace(r) || (r == 0xFFFD && len == 1)) break;
    begin += len;
  }
  while (end > begin) {
    // Step back to the start of the last sequence.
    size_t start = end - 1;
    while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 && end - start < 4) --start;
    uint32_t r = 0;
    size_t len = DecodeOne(s, start, &r);
    if (start + len != end) {
      start = end - 1;
      len = 1;
      r = 0xFFFD;
    }
    if (!IsSpace(r)) break;
    end = start;
  }
  return std::string(s.substr(begin, end - begin));
}

}  // namespace ksched::cel
