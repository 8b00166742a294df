#include "pkg/api/json_reader.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>

#include "pkg/util/ascii.h"

namespace ksched::api {

void JsonReader::SkipWsSlow() {
  while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
}

bool JsonReader::Literal(std::string_view word) {
  if (static_cast<size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) {
    return false;
  }
  p_ += word.size();
  return true;
}

bool JsonReader::ConsumeNull() { return Peek() == 'n' && Literal("null"); }

const char* PlainStringEnd(const char* p, const char* end) {
  // Eight bytes at a time. Each term below sets a byte's high bit where the
  // byte is a match; the subtractions can also set bits above a true match
  // (a borrow), never below one, so the lowest set bit is the first match.
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  static_assert(std::endian::native == std::endian::little, "the lowest set bit must be the first byte");
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    const uint64_t quote = w ^ (kOnes * '"');
    const uint64_t backslash = w ^ (kOnes * '\\');
    const uint64_t hits = (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) |
                           ((w - kOnes * 0x20) & ~w) | w) &
                          kHigh;
    if (hits != 0) return p + (std::countr_zero(hits) >> 3);
    p += 8;
  }
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return p;
  }
  return end;
}

bool JsonReader::ReadString(std::string_view* out, std::string* scratch) {
  if (Peek() != '"') return false;
  const char* start = ++p_;
  // The common case: no escapes, plain ASCII.
  const char* q = PlainStringEnd(start, end_);
  if (q < end_ && *q == '"') {
    *out = std::string_view(start, static_cast<size_t>(q - start));
    p_ = q + 1;
    return true;
  }
  // Escapes: the string is unescaped into *scratch.
  scratch->clear();
  while (true) {
    // *q ends a plain run.
    scratch->append(start, q);
    if (q >= end_) return false;
    if (*q == '"') {
      *out = *scratch;
      p_ = q + 1;
      return true;
    }
    // Control characters are invalid JSON; bytes >= 0x80 would need the
    // UTF-8 validation nlohmann does: both go the slow way.
    if (*q != '\\') return false;
    if (++q >= end_) return false;
    switch (*q) {
      case '"': scratch->push_back('"'); break;
      case '\\': scratch->push_back('\\'); break;
      case '/': scratch->push_back('/'); break;
      case 'b': scratch->push_back('\b'); break;
      case 'f': scratch->push_back('\f'); break;
      case 'n': scratch->push_back('\n'); break;
      case 'r': scratch->push_back('\r'); break;
      case 't': scratch->push_back('\t'); break;
      default: return false;  // \uXXXX (and anything invalid): the slow way
    }
    start = q + 1;
    q = PlainStringEnd(start, end_);
  }
}

bool JsonReader::ReadBool(bool* out) {
  char c = Peek();
  if (c == 't' && Literal("true")) {
    *out = true;
    return true;
  }
  if (c == 'f' && Literal("false")) {
    *out = false;
    return true;
  }
  return false;
}

bool JsonReader::ReadInt(int64_t lo, int64_t hi, int64_t* out) {
  char c = Peek();
  if (c != '-' && !util::IsAsciiDigit(c)) return false;
  const char* start = p_;
  const char* q = p_;
  if (*q == '-') ++q;
  if (q >= end_ || !util::IsAsciiDigit(*q)) return false;
  // JSON forbids leading zeros ("01").
  if (*q == '0' && q + 1 < end_ && util::IsAsciiDigit(q[1])) return false;
  while (q < end_ && util::IsAsciiDigit(*q)) ++q;
  if (q < end_ && (*q == '.' || *q == 'e' || *q == 'E')) return false;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(start, q, v);
  if (ec != std::errc() || ptr != q || v < lo || v > hi) return false;
  *out = v;
  p_ = q;
  return true;
}

bool JsonReader::BeginObject() {
  if (Peek() != '{') return false;
  ++p_;
  return true;
}

int JsonReader::NextMember(bool* first, std::string_view* key, std::string* scratch) {
  char c = Peek();
  if (c == '}') {
    ++p_;
    return 0;
  }
  if (!*first) {
    if (c != ',') return -1;
    ++p_;
  }
  *first = false;
  if (!ReadString(key, scratch)) return -1;
  if (Peek() != ':') return -1;
  ++p_;
  return 1;
}

bool JsonReader::BeginArray() {
  if (Peek() != '[') return false;
  ++p_;
  return true;
}

int JsonReader::NextElement(bool* first) {
  char c = Peek();
  if (c == ']') {
    ++p_;
    return 0;
  }
  if (!*first) {
    if (c != ',') return -1;
    ++p_;
  }
  *first = false;
  // A value must follow ("[1,]" is invalid).
  c = Peek();
  return c == '\0' || c == ']' ? -1 : 1;
}

bool JsonReader::SkipNumber() {
  const char* q = p_;
  if (q < end_ && *q == '-') ++q;
  if (q >= end_ || !util::IsAsciiDigit(*q)) return false;
  if (*q == '0') {
    ++q;
  } else {
    while (q < end_ && util::IsAsciiDigit(*q)) ++q;
  }
  if (q < end_ && *q == '.') {
    ++q;
    if (q >= end_ || !util::IsAsciiDigit(*q)) return false;
    while (q < end_ && util::IsAsciiDigit(*q)) ++q;
  }
  if (q < end_ && (*q == 'e' || *q == 'E')) {
    ++q;
    if (q < end_ && (*q == '+' || *q == '-')) ++q;
    if (q >= end_ || !util::IsAsciiDigit(*q)) return false;
    while (q < end_ && util::IsAsciiDigit(*q)) ++q;
  }
  // nlohmann reads a number that is not an int64/uint64 as a double and
  // rejects one that overflows it ("1e400", 400 digits): such a number goes
  // the slow way too. (Underflow, which nlohmann accepts as 0, is sent
  // there as well; that costs nothing but a second pass.)
  const bool integer = std::find_if(p_, q, [](char c) { return c == '.' || c == 'e' || c == 'E'; }) == q;
  if (!integer || q - p_ > 19) {
    double v = 0;
    const auto [end, ec] = std::from_chars(p_, q, v);
    if (ec != std::errc() || end != q) return false;
  }
  p_ = q;
  return true;
}

bool JsonReader::SkipString() {
  if (Peek() != '"') return false;
  // What ReadString accepts, without unescaping: plain runs and the short
  // escapes.
  const char* q = PlainStringEnd(p_ + 1, end_);
  while (q < end_) {
    if (*q == '"') {
      p_ = q + 1;
      return true;
    }
    if (*q != '\\' || ++q >= end_) return false;
    switch (*q) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': break;
      default: return false;
    }
    q = PlainStringEnd(q + 1, end_);
  }
  return false;
}

bool JsonReader::SkipValue(int depth) {
  if (depth > kMaxDepth) return false;
  switch (Peek()) {
    case '"':
      return SkipString();
    case 't':
      return Literal("true");
    case 'f':
      return Literal("false");
    case 'n':
      return Literal("null");
    case '{': {
      ++p_;
      if (Peek() == '}') {
        ++p_;
        return true;
      }
      while (true) {
        if (!SkipString() || Peek() != ':') return false;
        ++p_;
        if (!SkipValue(depth + 1)) return false;
        const char c = Peek();
        if (c != ',' && c != '}') return false;
        ++p_;
        if (c == '}') return true;
      }
    }
    case '[': {
      ++p_;
      if (Peek() == ']') {
        ++p_;
        return true;
      }
      while (true) {
        if (!SkipValue(depth + 1)) return false;
        const char c = Peek();
        if (c != ',' && c != ']') return false;
        ++p_;
        if (c == ']') return true;
      }
    }
    default:
      return SkipNumber();
  }
}

bool JsonReader::CaptureValue(std::string_view* out) {
  SkipWs();
  const char* start = p_;
  if (!SkipValue()) return false;
  *out = std::string_view(start, static_cast<size_t>(p_ - start));
  return true;
}

bool JsonReader::AtEnd() {
  SkipWs();
  return p_ == end_;
}

}  // namespace ksched::api
