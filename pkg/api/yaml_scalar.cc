#include "pkg/api/yaml_scalar.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>
#include <system_error>

#include "pkg/util/ascii.h"

namespace ksched::api {

namespace {

constexpr std::string_view kLongTagPrefix = "tag:yaml.org,2002:";

using Resolved = YamlScalar;

Resolved MakeBool(bool b) {
  Resolved r;
  r.kind = Resolved::kBool;
  r.b = b;
  return r;
}

Resolved MakeFloat(double f, Resolved::Kind kind = Resolved::kFloat) {
  Resolved r;
  r.kind = kind;
  r.f = f;
  return r;
}

const char* ShortTagOf(Resolved::Kind kind) {
  switch (kind) {
    case Resolved::kNull: return "!!null";
    case Resolved::kBool: return "!!bool";
    case Resolved::kInt:
    case Resolved::kUint:
    case Resolved::kBigInt: return "!!int";
    case Resolved::kFloat: return "!!float";
    case Resolved::kString: return "!!str";
  }
  return "!!str";
}

// go-yaml's first-character hint: which resolutions are worth trying.
char HintOf(std::string_view in) {
  if (in.empty()) return 'N';
  const char c = in[0];
  if (c == '+' || c == '-') return 'S';
  if (c >= '0' && c <= '9') return 'D';
  if (std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos) return 'M';
  if (c == '.') return '.';
  return 0;
}

bool IsOneOf(std::string_view in, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (in == w) return true;
  }
  return false;
}

// go-yaml v2's table of words with a fixed meaning.
bool LookupWord(std::string_view in, Resolved* out) {
  if (IsOneOf(in, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) {
    *out = MakeBool(true);
  } else if (IsOneOf(in,
                     {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) {
    *out = MakeBool(false);
  } else if (IsOneOf(in, {"", "~", "null", "Null", "NULL"})) {
    *out = Resolved{Resolved::kNull};
  } else if (IsOneOf(in, {".nan", ".NaN", ".NAN"})) {
    *out = MakeFloat(std::numeric_limits<double>::quiet_NaN());
  } else if (IsOneOf(in, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) {
    *out = MakeFloat(std::numeric_limits<double>::infinity());
  } else if (IsOneOf(in, {"-.inf", "-.Inf", "-.INF"})) {
    *out = MakeFloat(-std::numeric_limits<double>::infinity());
  } else {
    return false;
  }
  return true;
}

// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool MatchesYamlFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const size_t start = i;
    while (i < s.size() && util::IsAsciiDigit(s[i])) ++i;
    if (i == start) return false;
  } else {
    const size_t start = i;
    while (i < s.size() && util::IsAsciiDigit(s[i])) ++i;
    if (i == start) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && util::IsAsciiDigit(s[i])) ++i;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t start = i;
    while (i < s.size() && util::IsAsciiDigit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

// strconv.ParseFloat on text already known to be decimal float syntax.
// Overflow fails (Go reports a range error); underflow gives zero.
bool ParseDecimalFloat(std::string_view s, double* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ptr != s.data() + s.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports both overflow and underflow this way; tell them
    // apart by the sign of the decimal exponent.
    const size_t e = s.find_first_of("eE");
    if (e == std::string_view::npos || s.substr(e + 1).find('-') == std::string_view::npos) {
      return false;
    }
    value = 0;
  } else if (ec != std::errc()) {
    return false;
  }
  *out = negative ? -value : value;
  return true;
}

// The digits of an integer in Go's base-0 syntax (after any sign).
struct IntScan {
  bool syntax_ok = false;
  bool overflow = false;    // beyond uint64
  uint64_t magnitude = 0;
  long double approx = 0;   // the value even past 64 bits
};

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

IntScan ScanGoInt(std::string_view s) {
  IntScan r;
  int base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    const char p = s[1];
    if (p == 'x' || p == 'X') {
      base = 16;
      s.remove_prefix(2);
    } else if (p == 'o' || p == 'O') {
      base = 8;
      s.remove_prefix(2);
    } else if (p == 'b' || p == 'B') {
      base = 2;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  if (s.empty()) return r;
  for (char c : s) {
    const int d = DigitValue(c);
    if (d >= base) return r;
    if (r.magnitude > (std::numeric_limits<uint64_t>::max() - d) / base) r.overflow = true;
    r.magnitude = r.magnitude * base + d;
    r.approx = r.approx * base + d;
  }
  r.syntax_ok = true;
  return r;
}

// Integers, floats and the rest for plain scalars starting with a digit or
// a sign, in go-yaml's order: ParseInt, ParseUint, float, big integer.
Resolved ResolveNumber(std::string_view in) {
  std::string plain;
  plain.reserve(in.size());
  for (char c : in) {
    if (c != '_') plain.push_back(c);
  }
  std::string_view digits = plain;
  bool negative = false, signed_text = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    signed_text = true;
    digits.remove_prefix(1);
  }
  const IntScan scan = ScanGoInt(digits);
  if (scan.syntax_ok && !scan.overflow) {
    constexpr uint64_t kMaxInt64 = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (!negative && scan.magnitude <= kMaxInt64) {
      Resolved r{Resolved::kInt};
      r.i = static_cast<int64_t>(scan.magnitude);
      return r;
    }
    if (negative && scan.magnitude <= kMaxInt64 + 1) {
      Resolved r{Resolved::kInt};
      r.i = scan.magnitude == kMaxInt64 + 1 ? std::numeric_limits<int64_t>::min()
                                            : -static_cast<int64_t>(scan.magnitude);
      return r;
    }
    if (!signed_text) {
      Resolved r{Resolved::kUint};
      r.u = scan.magnitude;
      return r;
    }
  }
  double f = 0;
  if (MatchesYamlFloat(plain) && ParseDecimalFloat(plain, &f)) return MakeFloat(f);
  if (scan.syntax_ok) {
    const double big = static_cast<double>(scan.approx);
    return MakeFloat(negative ? -big : big, Resolved::kBigInt);
  }
  return Resolved{Resolved::kString};
}

Resolved ResolvePlain(std::string_view in) {
  const char hint = HintOf(in);
  if (hint == 0) return Resolved{Resolved::kString};
  Resolved word;
  if (LookupWord(in, &word)) return word;
  switch (hint) {
    case '.': {
      double f = 0;
      if (MatchesYamlFloat(in) && ParseDecimalFloat(in, &f)) return MakeFloat(f);
      return Resolved{Resolved::kString};
    }
    case 'D':
    case 'S':
      return ResolveNumber(in);
    default:
      return Resolved{Resolved::kString};
  }
}

util::StatusOr<Resolved> Resolve(std::string_view tag, std::string_view value) {
  if (tag == "?") return ResolvePlain(value);
  if (tag.substr(0, kLongTagPrefix.size()) != kLongTagPrefix) {
    return Resolved{Resolved::kString};  // quoted ("!") or a custom tag
  }
  const std::string_view short_tag = tag.substr(kLongTagPrefix.size());
  Resolved::Kind want;
  if (short_tag == "null") {
    want = Resolved::kNull;
  } else if (short_tag == "bool") {
    want = Resolved::kBool;
  } else if (short_tag == "int") {
    want = Resolved::kInt;
  } else if (short_tag == "float") {
    want = Resolved::kFloat;
  } else {
    return Resolved{Resolved::kString};  // !!str, !!binary, !!timestamp, ...
  }
  Resolved r = ResolvePlain(value);
  const bool is_int = r.kind == Resolved::kInt || r.kind == Resolved::kUint ||
                      r.kind == Resolved::kBigInt;
  if (r.kind == want || (want == Resolved::kInt && is_int)) return r;
  if (want == Resolved::kFloat && is_int) {
    if (r.kind == Resolved::kInt) return MakeFloat(static_cast<double>(r.i));
    if (r.kind == Resolved::kUint) return MakeFloat(static_cast<double>(r.u));
    return MakeFloat(r.f);
  }
  std::string msg = "cannot decode ";
  msg.append(ShortTagOf(r.kind));
  msg.append(" `");
  msg.append(value);
  msg.append("` as a !!");
  msg.append(short_tag);
  return util::InvalidArgument(std::move(msg));
}

// Go's json.Marshal of a float64: integral values below 1e21 print without
// fraction or exponent, so they read back as JSON integers.
nlohmann::json FloatToJson(double f) {
  if (std::isfinite(f) && f == std::trunc(f) && std::fabs(f) < 1e21) {
    if (f >= -9223372036854775808.0 && f < 9223372036854775808.0) {
      return static_cast<int64_t>(f);
    }
    if (f >= 0 && f < 18446744073709551616.0) return static_cast<uint64_t>(f);
  }
  return f;
}

// strconv.FormatFloat(f, 'g', -1, 32): the shortest digits that identify
// the float32, in %e form when the exponent is < -4 or >= 6 ("1e+06").
std::string FormatGoFloat32(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  const float f = static_cast<float>(value);
  if (std::isinf(f)) return f > 0 ? ".inf" : "-.inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), f, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);  // "-1.2345e+03"
  std::string out;
  if (!sci.empty() && sci[0] == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = 0;
  std::from_chars(sci.data() + e + 2, sci.data() + sci.size(), exp);
  if (sci[e + 1] == '-') exp = -exp;
  if (digits == "0") return out + "0";
  if (exp < -4 || exp >= 6) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1);
    }
    char exp_buf[16];
    std::snprintf(exp_buf, sizeof(exp_buf), "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out.append(exp_buf);
    return out;
  }
  const int point = exp + 1;  // digits before the decimal point
  if (point <= 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-point), '0');
    out.append(digits);
  } else if (static_cast<size_t>(point) >= digits.size()) {
    out.append(digits);
    out.append(point - digits.size(), '0');
  } else {
    out.append(digits, 0, point);
    out.push_back('.');
    out.append(digits, point);
  }
  return out;
}

}  // namespace

util::StatusOr<YamlScalar> TypeYamlScalar(std::string_view tag, std::string_view value) {
  return Resolve(tag, value);
}

util::StatusOr<nlohmann::json> ResolveYamlScalar(std::string_view tag, std::string_view value) {
  auto resolved = Resolve(tag, value);
  if (!resolved.ok()) return resolved.status();
  const Resolved& r = *resolved;
  switch (r.kind) {
    case Resolved::kNull: return nlohmann::json(nullptr);
    case Resolved::kBool: return nlohmann::json(r.b);
    case Resolved::kInt: return nlohmann::json(r.i);
    case Resolved::kUint: return nlohmann::json(r.u);
    case Resolved::kBigInt:
    case Resolved::kFloat: return FloatToJson(r.f);
    case Resolved::kString: break;
  }
  return nlohmann::json(std::string(value));
}

util::StatusOr<std::string> ResolveYamlKey(std::string_view tag, std::string_view value) {
  auto resolved = Resolve(tag, value);
  if (!resolved.ok()) return resolved.status();
  const Resolved& r = *resolved;
  switch (r.kind) {
    case Resolved::kString: return std::string(value);
    case Resolved::kBool: return std::string(r.b ? "true" : "false");
    case Resolved::kInt: return std::to_string(r.i);
    case Resolved::kFloat: return FormatGoFloat32(r.f);
    case Resolved::kNull:
    case Resolved::kUint:
    case Resolved::kBigInt: break;
  }
  return util::InvalidArgument("unsupported mapping key `" + std::string(value) + "` of type " +
                               ShortTagOf(r.kind));
}

bool IsYamlMergeKey(std::string_view tag, std::string_view value) {
  if (value != "<<") return false;
  return tag == "?" || tag == "tag:yaml.org,2002:merge";
}

}  // namespace ksched::api
