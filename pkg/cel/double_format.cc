#include "pkg/cel/double_format.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <system_error>

namespace ksched::cel {

std::string FormatGoDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  // Shortest round-trip digits in scientific form: [-]D[.DDD]e[+-]XX.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  bool neg = sci[0] == '-';
  if (neg) sci.remove_prefix(1);
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = std::atoi(std::string(sci.substr(e + 1)).c_str());
  std::string out = neg ? "-" : "";
  // %g with the shortest precision: exponent form below 1e-4 or from 1e6.
  if (exp < -4 || exp >= 6) {
    out += digits[0];
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += 'e';
    out += exp < 0 ? '-' : '+';
    int a = std::abs(exp);
    if (a < 10) out += '0';
    out += std::to_string(a);
    return out;
  }
  if (exp < 0) {
    out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    return out;
  }
  size_t int_len = static_cast<size_t>(exp) + 1;
  if (digits.size() <= int_len) {
    out += digits + std::string(int_len - digits.size(), '0');
  } else {
    out += digits.substr(0, int_len) + "." + digits.substr(int_len);
  }
  return out;
}

bool ParseGoFloat(const std::string& s, double* out) {
  if (s.empty()) return false;
  // Underscores may separate digits, as in Go literals ("1_000"); they are
  // dropped once checked.
  std::string lower;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    if (c == '_') {
      bool hex = s.size() > 2 && (s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0 || s.rfind("-0x", 0) == 0 ||
                                  s.rfind("+0x", 0) == 0);
      auto digit = [&](char d) {
        return hex ? std::isxdigit(static_cast<unsigned char>(d)) != 0 : std::isdigit(static_cast<unsigned char>(d)) != 0;
      };
      bool prev_ok = i > 0 && (digit(s[i - 1]) || (hex && (s[i - 1] == 'x' || s[i - 1] == 'X')));
      if (!prev_ok || i + 1 >= s.size() || !digit(s[i + 1])) return false;
      continue;
    }
    lower.push_back(c);
  }
  std::string_view v = lower;
  bool neg = false;
  if (v[0] == '+' || v[0] == '-') {
    neg = v[0] == '-';
    v.remove_prefix(1);
  }
  if (v == "inf" || v == "infinity") {
    *out = neg ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  if (v == "nan") {
    *out = std::nan("");
    return true;
  }
  // Hexadecimal mantissas need a binary exponent ("0x1p-2"), as in Go.
  if (v.size() > 2 && v[0] == '0' && v[1] == 'x') {
    if (v.find('p') == std::string_view::npos) return false;
    for (char c : v.substr(2)) {
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'p' && c != '+' && c != '-') return false;
    }
    std::string tmp(v);
    char* end = nullptr;
    errno = 0;
    double h = std::strtod(tmp.c_str(), &end);
    if (end != tmp.c_str() + tmp.size() || std::isinf(h)) return false;
    *out = neg ? -h : h;
    return true;
  }
  // Decimal digits, one optional point, an optional exponent.
  size_t k = 0, mantissa_digits = 0;
  while (k < v.size() && std::isdigit(static_cast<unsigned char>(v[k]))) { ++k; ++mantissa_digits; }
  if (k < v.size() && v[k] == '.') {
    ++k;
    while (k < v.size() && std::isdigit(static_cast<unsigned char>(v[k]))) { ++k; ++mantissa_digits; }
  }
  if (mantissa_digits == 0) return false;
  if (k < v.size() && v[k] == 'e') {
    ++k;
    if (k < v.size() && (v[k] == '+' || v[k] == '-')) ++k;
    size_t exp_digits = 0;
    while (k < v.size() && std::isdigit(static_cast<unsigned char>(v[k]))) { ++k; ++exp_digits; }
    if (exp_digits == 0) return false;
  }
  if (k != v.size()) return false;
  double d = 0;
  auto res = std::from_chars(v.data(), v.data() + v.size(), d);
  if (res.ec == std::errc::result_out_of_range) {
    // Go reports overflow as an error; underflow rounds to zero.
    std::string tmp(v);
    double approx = std::strtod(tmp.c_str(), nullptr);
    if (std::isinf(approx)) return false;
    d = approx;
  } else if (res.ec != std::errc()) {
    return false;
  }
  *out = neg ? -d : d;
  return true;
}

bool ParseGoDecimalUint(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

}  // namespace ksched::cel
