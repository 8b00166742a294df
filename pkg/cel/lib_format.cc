// cel-go's string.format (lib_format.h), re-implemented from its observed
// behaviour: the same parse, in the same order, serves the run time (which
// formats values) and the checker (which checks static types), so that
// both report the first problem cel-go would.
#include "pkg/cel/lib_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>

#include "pkg/cel/double_format.h"
#include "pkg/cel/eval.h"
#include "pkg/cel/go_quote.h"
#include "pkg/cel/utf8.h"

namespace ksched::cel {
namespace {

using K = Value::Kind;
using TK = Type::Kind;

struct FormatClause {
  char verb = 0;
  std::optional<int64_t> precision;
};

// Parses the clause after a '%' at f[*j]: an optional ".digits" precision
// and the verb; advances *j past it. False with cel-go's message.
bool ParseFormatClause(std::string_view f, size_t* j, FormatClause* c, std::string* error) {
  size_t k = *j;
  if (f[k] == '.') {
    const size_t start = ++k;
    for (;; ++k) {
      if (k >= f.size()) {
        *error = "error while parsing precision: could not find end of precision specifier";
        return false;
      }
      if (f[k] < '0' || f[k] > '9') break;
    }
    // Go's strconv.Atoi over the digits: none, or more than an int64.
    const std::string digits(f.substr(start, k - start));
    int64_t p = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
      *error = "error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"" +
               digits + "\": " + (digits.empty() ? "invalid syntax" : "value out of range");
      return false;
    }
    c->precision = p;
  }
  c->verb = f[k];
  *j = k + 1;
  switch (c->verb) {
    case 's': case 'd': case 'f': case 'e': case 'b': case 'x': case 'X': case 'o':
      return true;
    default: {
      // cel-go reads the verb as one byte and prints it as the code point
      // of that value.
      std::string verb;
      AppendRune(&verb, static_cast<unsigned char>(c->verb));
      *error = "unrecognized formatting clause \"" + verb + "\"";
      return false;
    }
  }
}

// Walks format string `f` over `nargs` arguments: literal text and "%%" go
// to *out, each clause to `clause(index, clause, &text, &error)`. At run
// time cel-go fetches a clause's argument before it checks that the string
// goes on; its checker only counts. *used is the number of clauses.
template <typename ClauseFn>
bool WalkFormat(std::string_view f, size_t nargs, bool runtime, ClauseFn&& clause, std::string* out,
                std::string* error, size_t* used) {
  size_t arg = 0;
  for (size_t i = 0; i < f.size();) {
    if (f[i] != '%') {
      out->push_back(f[i++]);
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '%') {
      out->push_back('%');
      i += 2;
      continue;
    }
    const std::string out_of_range = "index " + std::to_string(arg) + " out of range";
    if (runtime && arg >= nargs) {
      *error = out_of_range;
      return false;
    }
    if (i + 1 >= f.size()) {
      *error = "unexpected end of string";
      return false;
    }
    if (arg >= nargs) {
      *error = out_of_range;
      return false;
    }
    FormatClause c;
    size_t j = i + 1;
    std::string failure;
    if (!ParseFormatClause(f, &j, &c, &failure)) {
      *error = "could not parse formatting clause: " + failure;
      return false;
    }
    std::string text;
    if (!clause(arg, c, &text, &failure)) {
      *error = "error during formatting: " + failure;
      return false;
    }
    out->append(text);
    i = j;
    ++arg;
  }
  *used = arg;
  return true;
}

// ---- Run time -------------------------------------------------------------

const char kStringClauseTypes[] =
    "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and "
    "timestamps, was given ";

// An integer in base 2, 8 or 16 as Go's fmt prints an int64 or uint64: a
// minus sign and the magnitude.
std::string Radix(uint64_t magnitude, bool negative, unsigned base, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  do {
    out.push_back(digits[magnitude % base]);
    magnitude /= base;
  } while (magnitude);
  if (negative) out.push_back('-');
  std::reverse(out.begin(), out.end());
  return out;
}

std::string SignedRadix(int64_t v, unsigned base, bool upper) {
  const uint64_t magnitude = v < 0 ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
  return Radix(magnitude, v < 0, base, upper);
}

bool BytesAsString(const Value& v, std::string* out, std::string* error) {
  if (!IsValidUtf8(v.s)) {
    *error = "could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string";
    return false;
  }
  *out = v.s;
  return true;
}

bool FormatList(const Value& v, std::string* out, std::string* error);
bool FormatMap(const Value& v, std::string* out, std::string* error);

// %s: the value's string conversion; lists and maps as literals.
bool FormatAsString(const Value& v, std::string* out, std::string* error) {
  switch (v.kind) {
    case K::kList: return FormatList(v, out, error);
    case K::kMap: return FormatMap(v, out, error);
    case K::kInt: *out = std::to_string(v.i); return true;
    case K::kUint: *out = std::to_string(v.u); return true;
    case K::kDouble: *out = FormatGoDouble(v.d); return true;
    case K::kBool: *out = v.b ? "true" : "false"; return true;
    case K::kString: *out = v.s; return true;
    case K::kBytes: return BytesAsString(v, out, error);
    case K::kDuration:
    case K::kTimestamp: *out = CallTimeFunction("string", false, {v}).s; return true;
    case K::kType: *out = v.s; return true;
    case K::kNull: *out = "null"; return true;
    default: *error = kStringClauseTypes + std::string(KindName(v.kind)); return false;
  }
}

// A double inside a list or map: Go's "%.6f", the non-finite ones quoted.
std::string ListDouble(double d) {
  if (std::isnan(d)) return "\"NaN\"";
  if (std::isinf(d)) return d > 0 ? "\"+Inf\"" : "\"-Inf\"";
  char buf[400];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed, 6);
  return std::string(buf, res.ptr);
}

// An element of a list or a map's value, as a CEL literal.
bool FormatElement(const Value& v, std::string* out, std::string* error) {
  switch (v.kind) {
    case K::kInt: *out = std::to_string(v.i); return true;
    case K::kUint: *out = std::to_string(v.u); return true;
    case K::kString: *out = GoQuote(v.s); return true;
    case K::kBytes: {
      std::string s;
      if (!BytesAsString(v, &s, error)) return false;
      *out = "b" + GoQuote(s);
      return true;
    }
    case K::kBool:
    case K::kNull:
    case K::kType: return FormatAsString(v, out, error);
    case K::kDuration:
    case K::kTimestamp:
      *out = std::string(v.kind == K::kDuration ? "duration(" : "timestamp(") +
             GoQuote(CallTimeFunction("string", false, {v}).s) + ")";
      return true;
    case K::kList: return FormatList(v, out, error);
    case K::kMap: return FormatMap(v, out, error);
    case K::kDouble: *out = ListDouble(v.d); return true;
    default: *error = std::string("no formatting function for ") + KindName(v.kind); return false;
  }
}

bool FormatList(const Value& v, std::string* out, std::string* error) {
  std::string s = "[";
  for (size_t k = 0; k < v.list->size(); ++k) {
    std::string e;
    if (!FormatElement((*v.list)[k], &e, error)) return false;
    if (k) s += ", ";
    s += e;
  }
  *out = s + "]";
  return true;
}

// Entries in the byte order of their keys' text (a quoted string sorts
// before a number, and a number before a bool).
bool FormatMap(const Value& v, std::string* out, std::string* error) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [key, value] : v.map->entries) {
    std::string k, e;
    switch (key.kind) {
      case K::kString: k = GoQuote(key.s); break;
      case K::kBool: k = key.b ? "true" : "false"; break;
      case K::kInt: k = std::to_string(key.i); break;
      case K::kUint: k = std::to_string(key.u); break;
      default: *error = std::string("no formatting function for map key of type ") + KindName(key.kind); return false;
    }
    if (!FormatElement(value, &e, error)) return false;
    entries.emplace_back(std::move(k), std::move(e));
  }
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string s = "{";
  for (size_t k = 0; k < entries.size(); ++k) {
    if (k) s += ", ";
    s += entries[k].first + ":" + entries[k].second;
  }
  *out = s + "}";
  return true;
}

// The argument of %f and %e: a double, or one of the strings naming the
// non-finite doubles.
bool FloatArgument(const Value& v, double* d) {
  if (v.kind == K::kDouble) {
    *d = v.d;
    return true;
  }
  if (v.kind != K::kString) return false;
  if (v.s == "NaN") {
    *d = std::nan("");
  } else if (v.s == "Infinity" || v.s == "-Infinity") {
    *d = v.s[0] == '-' ? -HUGE_VAL : HUGE_VAL;
  } else {
    return false;
  }
  return true;
}

// The special values as the en_US printer writes them; false for a finite
// value.
bool NonFinite(double d, std::string* out) {
  if (std::isnan(d)) {
    *out = "NaN";
  } else if (std::isinf(d)) {
    *out = d < 0 ? "-∞" : "∞";
  } else {
    return false;
  }
  return true;
}

// Significant digits without leading or trailing zeros, and the decimal
// point's place: the value is 0.digits × 10^exp (no digits for zero).
struct DecimalDigits {
  std::string digits;
  int64_t exp = 0;
};

DecimalDigits Normalize(std::string digits, int64_t exp) {
  size_t lead = 0;
  while (lead < digits.size() && digits[lead] == '0') ++lead;
  digits.erase(0, lead);
  exp -= static_cast<int64_t>(lead);
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  if (digits.empty()) exp = 0;
  return {std::move(digits), exp};
}

// |d| rounded to `frac` decimals (half to even on the exact value, as
// strconv does), or to its shortest round-trip digits when frac < 0.
DecimalDigits DigitsOf(double d, int frac) {
  const double a = std::fabs(d);
  std::string buf(frac >= 0 ? 340 + static_cast<size_t>(frac) : 64, '\0');
  if (frac >= 0) {
    auto res = std::to_chars(buf.data(), buf.data() + buf.size(), a, std::chars_format::fixed, frac);
    std::string_view s(buf.data(), static_cast<size_t>(res.ptr - buf.data()));
    const size_t dot = s.find('.');
    const std::string_view whole = s.substr(0, dot);
    std::string digits(whole);
    if (dot != std::string_view::npos) digits += s.substr(dot + 1);
    return Normalize(std::move(digits), static_cast<int64_t>(whole.size()));
  }
  auto res = std::to_chars(buf.data(), buf.data() + buf.size(), a, std::chars_format::scientific);
  std::string_view s(buf.data(), static_cast<size_t>(res.ptr - buf.data()));
  const size_t e = s.find('e');
  std::string digits;
  for (char c : s.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  return Normalize(std::move(digits), std::atoll(std::string(s.substr(e + 1)).c_str()) + 1);
}

// %f: the en_US printer's decimal form. The printer keeps the precision's
// low 8 bits as the minimum and its low 16 bits, signed, as the maximum
// number of decimals (a negative maximum: the shortest digits).
std::string FixedEnUs(double d, int64_t precision) {
  std::string out;
  if (NonFinite(d, &out)) return out;
  const auto min_frac = static_cast<uint8_t>(precision & 0xFF);
  const auto max_frac = static_cast<int16_t>(static_cast<uint16_t>(precision & 0xFFFF));
  const DecimalDigits n = DigitsOf(d, max_frac);
  const int64_t len = static_cast<int64_t>(n.digits.size());
  const int64_t end = n.digits.empty() ? min_frac : std::max(len, n.exp + min_frac);
  const int64_t num_frac = end - n.exp;
  // -0.0 has no sign; a negative value rounded to zero does.
  if (d < 0) out.push_back('-');
  const int64_t num_int = std::max<int64_t>(n.exp, 0);
  if (num_int == 0) out.push_back('0');
  for (int64_t i = 0; i < num_int; ++i) {
    out.push_back(i < len ? n.digits[static_cast<size_t>(i)] : '0');
    const int64_t left = num_int - i - 1;  // digits still to come
    if (left > 0 && left % 3 == 0) out.push_back(',');
  }
  if (num_frac > 0) {
    out.push_back('.');
    int64_t k = 0;
    for (; k < -n.exp; ++k) out.push_back('0');
    for (int64_t i = std::max<int64_t>(n.exp, 0); i < len; ++i, ++k) out.push_back(n.digits[static_cast<size_t>(i)]);
    for (; k < num_frac; ++k) out.push_back('0');
  }
  return out;
}

// %e: the en_US printer's scientific form, always with six decimals
// (cel-go hands it the precision as a width): "-1.234568×10⁻⁰⁸", padded
// with spaces in front to `width` code points when width > 0.
std::string ScientificEnUs(double d, int64_t width) {
  std::string out;
  if (!NonFinite(d, &out)) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), std::fabs(d), std::chars_format::scientific, 6);
    std::string_view s(buf, static_cast<size_t>(res.ptr - buf));
    const size_t e = s.find('e');
    int exp = std::atoi(std::string(s.substr(e + 1)).c_str());
    if (d < 0) out.push_back('-');
    out.append(s.substr(0, e));
    out += "×10";
    if (exp < 0) out += "⁻";
    static const char* const kSuperscript[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    const std::string digits = (std::abs(exp) < 10 ? "0" : "") + std::to_string(std::abs(exp));
    for (char c : digits) out += kSuperscript[c - '0'];
  }
  // The printer keeps the width's low 16 bits.
  const size_t target = width > 0 ? static_cast<uint16_t>(width & 0xFFFF) : 0;
  const size_t runes = CountRunes(out);
  if (runes < target) out.insert(0, target - runes, ' ');
  return out;
}

// Precisions whose leading seven digits exceed a million overflow the
// printer's parser, which then prints "%!(NOVERB)" and the argument.
constexpr int64_t kLargestPrecision = 10'000'009;

bool FormatClauseValue(const FormatClause& c, const Value& v, std::string* out, std::string* error) {
  auto wrong = [&](const char* what) {
    *error = std::string(what) + KindName(v.kind);
    return false;
  };
  switch (c.verb) {
    case 's':
      return FormatAsString(v, out, error);
    case 'd':
      if (v.kind == K::kInt) *out = std::to_string(v.i);
      else if (v.kind == K::kUint) *out = std::to_string(v.u);
      else return wrong("decimal clause can only be used on integers, was given ");
      return true;
    case 'f':
    case 'e': {
      double d = 0;
      if (!FloatArgument(v, &d)) {
        return wrong(c.verb == 'f' ? "fixed-point clause can only be used on doubles, was given "
                                   : "scientific clause can only be used on doubles, was given ");
      }
      const int64_t p = c.precision.value_or(6);
      if (p > kLargestPrecision) {
        *error = "a precision over " + std::to_string(kLargestPrecision) + " is not supported";
        return false;
      }
      *out = c.verb == 'f' ? FixedEnUs(d, p) : ScientificEnUs(d, p);
      return true;
    }
    case 'b':
      if (v.kind == K::kInt) *out = SignedRadix(v.i, 2, false);
      else if (v.kind == K::kUint) *out = Radix(v.u, false, 2, false);
      else if (v.kind == K::kBool) *out = v.b ? "1" : "0";
      else return wrong("only integers and bools can be formatted as binary, was given ");
      return true;
    case 'x':
    case 'X': {
      const bool upper = c.verb == 'X';
      if (v.kind == K::kInt) {
        *out = SignedRadix(v.i, 16, upper);
      } else if (v.kind == K::kUint) {
        *out = Radix(v.u, false, 16, upper);
      } else if (v.kind == K::kString || v.kind == K::kBytes) {
        const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
        out->clear();
        for (unsigned char b : v.s) {
          out->push_back(digits[b >> 4]);
          out->push_back(digits[b & 0xF]);
        }
      } else {
        return wrong("only integers, byte buffers, and strings can be formatted as hex, was given ");
      }
      return true;
    }
    default:  // 'o'
      if (v.kind == K::kInt) *out = SignedRadix(v.i, 8, false);
      else if (v.kind == K::kUint) *out = Radix(v.u, false, 8, false);
      else return wrong("octal clause can only be used on integers, was given ");
      return true;
  }
}

// ---- Compile time ---------------------------------------------------------

// cel-go's checker compares kinds only, and lets dyn (not any) through.
bool KindOneOf(const Type& t, std::initializer_list<TK> kinds) {
  if (t.kind == TK::kDyn || t.kind == TK::kFree) return true;
  return std::find(kinds.begin(), kinds.end(), t.kind) != kinds.end();
}

// %s over a static type, into list and map literals: the first expression
// %s cannot print, or nullptr.
const Expr* UnprintableIn(const Expr& e) {
  if (!KindOneOf(e.type, {TK::kList, TK::kMap, TK::kInt, TK::kUint, TK::kDouble, TK::kBool, TK::kString,
                          TK::kTimestamp, TK::kBytes, TK::kDuration, TK::kType, TK::kNull})) {
    return &e;
  }
  if (e.kind == Expr::Kind::kList || e.kind == Expr::Kind::kMap) {
    for (const auto& a : e.args) {
      if (const Expr* bad = UnprintableIn(*a)) return bad;
    }
  }
  return nullptr;
}

}  // namespace

Value CallFormatFunction(const std::vector<Value>& args) {
  if (args.size() != 2 || args[0].kind != K::kString || args[1].kind != K::kList) {
    return Value::NoSuchOverload("format");
  }
  const ValueList& list = *args[1].list;
  std::string out, error;
  size_t used = 0;
  auto clause = [&](size_t k, const FormatClause& c, std::string* text, std::string* failure) {
    return FormatClauseValue(c, list[k], text, failure);
  };
  if (!WalkFormat(args[0].s, list.size(), true, clause, &out, &error, &used)) return Value::Error(error);
  return Value::String(std::move(out));
}

bool ValidateFormatCall(const Expr& call, size_t* pos, std::string* message) {
  const std::vector<std::unique_ptr<Expr>>& elems = call.args[0]->args;
  *pos = call.pos;
  auto clause = [&](size_t k, const FormatClause& c, std::string*, std::string* failure) {
    const Expr& arg = *elems[k];
    const Expr* bad = nullptr;
    const char* what = nullptr;
    switch (c.verb) {
      case 's':
        bad = UnprintableIn(arg);
        what = kStringClauseTypes;
        break;
      case 'd':
        if (!KindOneOf(arg.type, {TK::kInt, TK::kUint})) bad = &arg;
        what = "decimal clause can only be used on integers, was given ";
        break;
      case 'f':
      case 'e':
        if (!KindOneOf(arg.type, {TK::kDouble, TK::kString})) bad = &arg;
        what = c.verb == 'f' ? "fixed-point clause can only be used on doubles, was given "
                             : "scientific clause can only be used on doubles, was given ";
        break;
      case 'b':
        if (!KindOneOf(arg.type, {TK::kInt, TK::kUint, TK::kBool})) bad = &arg;
        what = "only integers and bools can be formatted as binary, was given ";
        break;
      case 'x':
      case 'X':
        if (!KindOneOf(arg.type, {TK::kInt, TK::kUint, TK::kString, TK::kBytes})) bad = &arg;
        what = "only integers, byte buffers, and strings can be formatted as hex, was given ";
        break;
      default:  // 'o'
        if (!KindOneOf(arg.type, {TK::kInt, TK::kUint})) bad = &arg;
        what = "octal clause can only be used on integers, was given ";
        break;
    }
    if (!bad) return true;
    *failure = what + bad->type.Name();
    *pos = bad->pos;
    return false;
  };
  std::string ignored;
  size_t used = 0;
  if (!WalkFormat(call.target->literal.s, elems.size(), false, clause, &ignored, message, &used)) return false;
  if (elems.size() > used) {
    *pos = call.pos;
    *message = "too many arguments supplied to string.format (expected " + std::to_string(used) + ", got " +
               std::to_string(elems.size()) + ")";
    return false;
  }
  return true;
}

}  // namespace ksched::cel
