#include "pkg/cel/lexer.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "pkg/cel/utf8.h"
#include "pkg/util/ascii.h"

namespace ksched::cel {
namespace {

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
using util::HexDigitValue;
using util::IsAsciiDigit;
bool IsHex(char c) { return HexDigitValue(c) >= 0; }

class Lexer {
 public:
  explicit Lexer(std::string_view in) : in_(in) {}

  util::StatusOr<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      SkipSpaceAndComments();
      Token t;
      t.pos = i_;
      if (i_ >= in_.size()) {
        out.push_back(t);
        return out;
      }
      char c = in_[i_];
      util::Status st;
      if (IsStringStart()) {
        st = String(&t);
      } else if (IsIdentStart(c)) {
        size_t start = i_;
        while (i_ < in_.size() && (IsIdentStart(in_[i_]) || IsAsciiDigit(in_[i_]))) ++i_;
        t.kind = Token::Kind::kIdent;
        t.text = std::string(in_.substr(start, i_ - start));
      } else if (c == '`') {
        st = BacktickIdent(&t);
      } else if (IsAsciiDigit(c) || (c == '.' && i_ + 1 < in_.size() && IsAsciiDigit(in_[i_ + 1]))) {
        st = Number(&t);
      } else {
        st = Punct(&t);
      }
      if (!st.ok()) return st;
      out.push_back(std::move(t));
    }
  }

 private:
  util::Status Error(size_t pos, const std::string& what) {
    return util::InvalidArgument(Location(in_, pos) + ": syntax error: " + what);
  }

  void SkipSpaceAndComments() {
    while (i_ < in_.size()) {
      char c = in_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++i_;
      } else if (c == '/' && i_ + 1 < in_.size() && in_[i_ + 1] == '/') {
        while (i_ < in_.size() && in_[i_] != '\n') ++i_;
      } else {
        return;
      }
    }
  }

  // A string or bytes literal starts here: a quote, optionally after b/B,
  // r/R, or b/B then r/R (CEL's grammar has no "rb" or "bb").
  bool IsStringStart() const {
    size_t j = i_;
    if (j < in_.size() && (in_[j] == 'b' || in_[j] == 'B')) ++j;
    if (j < in_.size() && (in_[j] == 'r' || in_[j] == 'R')) ++j;
    return j < in_.size() && (in_[j] == '"' || in_[j] == '\'');
  }

  util::Status String(Token* t) {
    bool raw = false, bytes = false;
    while (in_[i_] != '"' && in_[i_] != '\'') {
      char c = in_[i_++];
      if (c == 'r' || c == 'R') raw = true;
      if (c == 'b' || c == 'B') bytes = true;
    }
    char q = in_[i_];
    bool triple = in_.substr(i_, 3) == std::string(3, q);
    i_ += triple ? 3 : 1;
    std::string out;
    while (true) {
      if (i_ >= in_.size()) return Error(t->pos, "unterminated string literal");
      char c = in_[i_];
      if (triple ? in_.substr(i_, 3) == std::string(3, q) : c == q) {
        i_ += triple ? 3 : 1;
        break;
      }
      if (!triple && (c == '\n' || c == '\r')) return Error(t->pos, "newline in string literal");
      if (c == '\\' && !raw) {
        util::Status st = Escape(&out, bytes);
        if (!st.ok()) return st;
        continue;
      }
      out.push_back(c);
      ++i_;
    }
    t->kind = bytes ? Token::Kind::kBytes : Token::Kind::kString;
    t->text = std::move(out);
    return util::Status::Ok();
  }

  util::Status Escape(std::string* out, bool bytes) {
    size_t at = i_;
    ++i_;  // the backslash
    if (i_ >= in_.size()) return Error(at, "invalid escape sequence");
    char c = in_[i_++];
    switch (c) {
      case 'a': out->push_back('\a'); return util::Status::Ok();
      case 'b': out->push_back('\b'); return util::Status::Ok();
      case 'f': out->push_back('\f'); return util::Status::Ok();
      case 'n': out->push_back('\n'); return util::Status::Ok();
      case 'r': out->push_back('\r'); return util::Status::Ok();
      case 't': out->push_back('\t'); return util::Status::Ok();
      case 'v': out->push_back('\v'); return util::Status::Ok();
      case '\\': case '\'': case '"': case '`': case '?': out->push_back(c); return util::Status::Ok();
      default: break;
    }
    int digits = 0, base = 16;
    if (c == 'x' || c == 'X') {
      digits = 2;
    } else if (c == 'u' && !bytes) {
      digits = 4;
    } else if (c == 'U' && !bytes) {
      digits = 8;
    } else if (c >= '0' && c <= '3') {
      digits = 2;
      base = 8;
    } else {
      return Error(at, "invalid escape sequence");
    }
    uint32_t v = base == 8 ? static_cast<uint32_t>(c - '0') : 0;
    for (int k = 0; k < digits; ++k) {
      if (i_ >= in_.size()) return Error(at, "invalid escape sequence");
      char h = in_[i_++];
      if (base == 8 ? (h < '0' || h > '7') : !IsHex(h)) return Error(at, "invalid escape sequence");
      v = v * base + static_cast<uint32_t>(HexDigitValue(h));
    }
    if (bytes) {
      out->push_back(static_cast<char>(v));
    } else {
      if (v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) return Error(at, "invalid unicode code point");
      AppendRune(out, v);
    }
    return util::Status::Ok();
  }

  // `name`: CEL's ESC_IDENTIFIER, one or more letters, digits, '_', '.',
  // '-', '/' or spaces between backticks, taken as written (no escapes).
  // The grammar has it at every release; whether the parser accepts it
  // is the release's (CompileOptions::refuse_backtick_identifiers).
  util::Status BacktickIdent(Token* t) {
    const size_t start = i_++;
    while (i_ < in_.size() && IsBacktickIdentChar(in_[i_])) ++i_;
    if (i_ == in_.size() || in_[i_] != '`' || i_ == start + 1) {
      // ANTLR's lexer quotes what it read up to and including the character
      // that stopped it (all of a multi-byte one).
      size_t end = std::min(i_ + 1, in_.size());
      while (end < in_.size() && (static_cast<unsigned char>(in_[end]) & 0xC0) == 0x80) ++end;
      return Error(start, "token recognition error at: '" + std::string(in_.substr(start, end - start)) + "'");
    }
    t->kind = Token::Kind::kBacktickIdent;
    t->text = std::string(in_.substr(start + 1, i_ - start - 1));
    ++i_;
    return util::Status::Ok();
  }

  static bool IsBacktickIdentChar(char c) {
    return IsIdentStart(c) || IsAsciiDigit(c) || c == '.' || c == '-' || c == '/' || c == ' ';
  }

  util::Status Number(Token* t) {
    size_t start = i_;
    if (in_[i_] == '0' && i_ + 1 < in_.size() && (in_[i_ + 1] == 'x' || in_[i_ + 1] == 'X')) {
      i_ += 2;
      size_t hs = i_;
      while (i_ < in_.size() && IsHex(in_[i_])) ++i_;
      if (i_ == hs) return Error(start, "invalid hex literal");
      return Integer(t, start, in_.substr(hs, i_ - hs), 16);
    }
    while (i_ < in_.size() && IsAsciiDigit(in_[i_])) ++i_;
    bool is_double = false;
    if (i_ + 1 < in_.size() && in_[i_] == '.' && IsAsciiDigit(in_[i_ + 1])) {
      is_double = true;
      ++i_;
      while (i_ < in_.size() && IsAsciiDigit(in_[i_])) ++i_;
    }
    if (i_ < in_.size() && (in_[i_] == 'e' || in_[i_] == 'E')) {
      size_t j = i_ + 1;
      if (j < in_.size() && (in_[j] == '+' || in_[j] == '-')) ++j;
      if (j < in_.size() && IsAsciiDigit(in_[j])) {
        is_double = true;
        i_ = j;
        while (i_ < in_.size() && IsAsciiDigit(in_[i_])) ++i_;
      }
    }
    if (is_double) {
      std::string text(in_.substr(start, i_ - start));
      errno = 0;
      t->d = std::strtod(text.c_str(), nullptr);
      if (errno == ERANGE && (t->d > 1 || t->d < -1)) return Error(start, "double literal out of range");
      t->kind = Token::Kind::kDouble;
      t->text = text;
      return util::Status::Ok();
    }
    return Integer(t, start, in_.substr(start, i_ - start), 10);
  }

  util::Status Integer(Token* t, size_t start, std::string_view digits, int base) {
    uint64_t v = 0;
    bool overflow = false;
    for (char c : digits) {
      uint64_t d = static_cast<uint64_t>(HexDigitValue(c));
      if (v > (UINT64_MAX - d) / static_cast<uint64_t>(base)) overflow = true;
      v = v * static_cast<uint64_t>(base) + d;
    }
    bool is_uint = i_ < in_.size() && (in_[i_] == 'u' || in_[i_] == 'U');
    if (is_uint) ++i_;
    if (overflow) return Error(start, "integer literal out of range");
    t->kind = is_uint ? Token::Kind::kUint : Token::Kind::kInt;
    t->u = v;
    t->text = std::string(in_.substr(start, i_ - start));
    return util::Status::Ok();
  }

  util::Status Punct(Token* t) {
    static const char* kTwo[] = {"==", "!=", "<=", ">=", "&&", "||", ".?", "[?"};
    for (const char* p : kTwo) {
      if (in_.substr(i_, 2) == p) {
        t->kind = Token::Kind::kPunct;
        t->text = p;
        i_ += 2;
        return util::Status::Ok();
      }
    }
    static const std::string_view kOne = "+-*/%<>!?:.,[]{}()";
    char c = in_[i_];
    if (kOne.find(c) == std::string_view::npos) {
      return Error(i_, std::string("unexpected character '") + c + "'");
    }
    t->kind = Token::Kind::kPunct;
    t->text = std::string(1, c);
    ++i_;
    return util::Status::Ok();
  }

  std::string_view in_;
  size_t i_ = 0;
};

}  // namespace

util::StatusOr<std::vector<Token>> Tokenize(std::string_view expr) { return Lexer(expr).Run(); }

std::string Location(std::string_view expr, size_t pos) {
  size_t line = 1, col = 1;
  for (size_t k = 0; k < pos && k < expr.size(); ++k) {
    if (expr[k] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

}  // namespace ksched::cel
