#include "pkg/api/quantity.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "pkg/util/ascii.h"

namespace ksched::api {
namespace {

using i128 = __int128;
using u128 = unsigned __int128;

// Stored mantissas stay below 10^38; operands are aligned to at most 37
// digits before adding so that the sum cannot overflow 128 bits.
constexpr int kMaxDigits = 38;
constexpr int kAlignDigits = 37;
constexpr int32_t kNanoScale = -9;
// The largest decimal exponent kept. Parsing rejects larger values and
// arithmetic saturates there, so every printed value parses back and the
// int32 scale never overflows.
constexpr int64_t kMaxScale = std::numeric_limits<int32_t>::max() - 64;

constexpr std::array<u128, 39> kPowersOf10 = [] {
  std::array<u128, 39> p{};
  p[0] = 1;
  for (size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
  return p;
}();

u128 Pow10(int n) { return kPowersOf10[static_cast<size_t>(n)]; }  // n in [0, 38]

int DigitCount(u128 v) {
  int n = 1;
  while (v > std::numeric_limits<uint64_t>::max()) {
    v /= 10;
    ++n;
  }
  // Most quantities fit 64 bits, where division is cheap.
  for (uint64_t w = static_cast<uint64_t>(v); w >= 10; w /= 10) ++n;
  return n;
}

u128 Abs(i128 v) { return v < 0 ? static_cast<u128>(0) - static_cast<u128>(v) : static_cast<u128>(v); }

std::string U128ToString(u128 v) {
  std::string out;
  do {
    out.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  std::reverse(out.begin(), out.end());
  return out;
}

struct SuffixInfo {
  int base = 10;  // 10 or 2
  int64_t exponent = 0;
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

// Strict "<sign>?<digits>" (Go's strconv.ParseInt accepts exactly this),
// limited to int32 like kube's exponent.
bool ParseExponent(std::string_view s, int64_t* out) {
  bool neg = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    neg = s[i] == '-';
    ++i;
  }
  if (i == s.size()) return false;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (!util::IsAsciiDigit(s[i])) return false;
    v = v * 10 + (s[i] - '0');
    if (v > static_cast<int64_t>(std::numeric_limits<int32_t>::max()) + 1) return false;
  }
  v = neg ? -v : v;
  if (v > std::numeric_limits<int32_t>::max() || v < std::numeric_limits<int32_t>::min()) return false;
  *out = v;
  return true;
}

bool InterpretSuffix(std::string_view s, SuffixInfo* info) {
  struct Entry {
    std::string_view suffix;
    int base;
    int exponent;
  };
  static constexpr Entry kTable[] = {
      {"", 10, 0},   {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"k", 10, 3},   {"M", 10, 6},
      {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10},  {"Mi", 2, 20},
      {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
  };
  for (const Entry& e : kTable) {
    if (s == e.suffix) {
      info->base = e.base;
      info->exponent = e.exponent;
      info->format = e.base == 2 ? Quantity::Format::kBinarySI : Quantity::Format::kDecimalSI;
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    info->base = 10;
    info->format = Quantity::Format::kDecimalExponent;
    return ParseExponent(s.substr(1), &info->exponent);
  }
  return false;
}

// Multiplies the decimal digit string in place by 2^shift (shift <= 60).
void MultiplyDigitsByPow2(std::string* digits, int shift) {
  const u128 mult = static_cast<u128>(1) << shift;
  u128 carry = 0;
  for (size_t i = digits->size(); i-- > 0;) {
    u128 cur = static_cast<u128>((*digits)[i] - '0') * mult + carry;
    (*digits)[i] = static_cast<char>('0' + static_cast<int>(cur % 10));
    carry = cur / 10;
  }
  std::string head;
  while (carry != 0) {
    head.push_back(static_cast<char>('0' + static_cast<int>(carry % 10)));
    carry /= 10;
  }
  std::reverse(head.begin(), head.end());
  digits->insert(0, head);
}

// Turns digits * 10^exp10 into (mantissa, scale): rounds away from zero to
// nano precision and to kMaxDigits significant digits. Returns false when the
// value is too large to represent.
bool DecimalFromDigits(std::string_view digits, int64_t exp10, u128* mantissa, int64_t* scale) {
  size_t first = 0;
  while (first < digits.size() && digits[first] == '0') ++first;
  if (first == digits.size()) {
    *mantissa = 0;
    *scale = 0;
    return true;
  }
  size_t last = digits.size();
  while (digits[last - 1] == '0') {
    --last;
    ++exp10;
  }
  const int64_t len = static_cast<int64_t>(last - first);
  int64_t new_scale = std::max<int64_t>(exp10, kNanoScale);
  if (len - (new_scale - exp10) > kMaxDigits) new_scale = exp10 + len - kMaxDigits;
  const int64_t drop = new_scale - exp10;
  if (new_scale > kMaxScale) return false;
  if (drop >= len) {
    // Every significant digit is below the kept precision: the smallest
    // non-zero value, as kube rounds up rather than to zero.
    *mantissa = 1;
    *scale = new_scale;
    return true;
  }
  u128 m = 0;
  for (size_t i = first; i < last - static_cast<size_t>(drop); ++i) m = m * 10 + static_cast<u128>(digits[i] - '0');
  // The last kept-away digit is non-zero (trailing zeros were stripped), so
  // any drop loses precision and rounds up.
  if (drop > 0) ++m;
  *mantissa = m;
  *scale = new_scale;
  return true;
}

// Rounds |m| * 10^-shift away from zero; shift > 0.
i128 ShiftRightRoundAway(i128 m, int64_t shift) {
  const u128 mag = Abs(m);
  u128 q = 0;
  if (shift <= kMaxDigits) {
    const u128 p = Pow10(static_cast<int>(shift));
    q = mag / p;
    if (mag % p != 0) ++q;
  } else {
    q = mag == 0 ? 0 : 1;
  }
  return m < 0 ? -static_cast<i128>(q) : static_cast<i128>(q);
}

}  // namespace

Quantity::Quantity(__int128 mantissa, int64_t scale, Format f) : mantissa_(mantissa), format_(f) {
  Normalize(scale);
}

void Quantity::Normalize(int64_t scale) {
  if (mantissa_ == 0) {
    scale_ = 0;
    return;
  }
  while (mantissa_ % 10 == 0) {
    mantissa_ /= 10;
    ++scale;
  }
  // Only reachable through billions of additions of 10^(10^9)-sized values;
  // saturating the exponent keeps the int32 defined.
  scale_ = static_cast<int32_t>(std::min(scale, kMaxScale));
}

// The common quantity: a sign, at most 18 integer digits and a suffix of
// the table ("100m", "500Mi", "4"). It gives what the general path below
// gives, without its digit strings: the value fits 64 bits, so nothing is
// rounded or capped, and no fraction can turn BinarySI into DecimalSI.
std::optional<Quantity> Quantity::ParseInteger(std::string_view s) {
  size_t pos = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) ++pos;
  const size_t int_start = pos;
  uint64_t v = 0;
  while (pos < s.size() && util::IsAsciiDigit(s[pos])) v = v * 10 + static_cast<uint64_t>(s[pos++] - '0');
  if (pos == int_start || pos - int_start > 18) return std::nullopt;
  SuffixInfo suffix;
  if (!InterpretSuffix(s.substr(pos), &suffix) || suffix.format == Format::kDecimalExponent) return std::nullopt;
  int64_t scale = 0;
  if (suffix.base == 10) {
    scale = suffix.exponent;
  } else {
    if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) >> suffix.exponent)) return std::nullopt;
    v <<= suffix.exponent;
  }
  if (v == 0) return Quantity(0, 0, suffix.format);
  // Trailing zeros go in 64 bits; the constructor's 128-bit loop then finds none.
  for (; v % 10 == 0; v /= 10) ++scale;
  const i128 mantissa = static_cast<i128>(v);
  return Quantity(negative ? -mantissa : mantissa, scale, suffix.format);
}

util::StatusOr<Quantity> Quantity::Parse(std::string_view s) {
  if (std::optional<Quantity> q = ParseInteger(s)) return *q;
  auto error = [&](const char* why) {
    return util::InvalidArgument("quantity \"" + std::string(s) + "\": " + why);
  };
  if (s.empty()) return error("empty string");
  size_t pos = 0;
  bool negative = false;
  if (s[pos] == '+' || s[pos] == '-') {
    negative = s[pos] == '-';
    ++pos;
  }
  const size_t int_start = pos;
  while (pos < s.size() && util::IsAsciiDigit(s[pos])) ++pos;
  std::string_view int_digits = s.substr(int_start, pos - int_start);
  std::string_view frac_digits;
  if (pos < s.size() && s[pos] == '.') {
    const size_t frac_start = ++pos;
    while (pos < s.size() && util::IsAsciiDigit(s[pos])) ++pos;
    frac_digits = s.substr(frac_start, pos - frac_start);
  }
  if (int_digits.empty() && frac_digits.empty()) return error("no digits in the number");
  SuffixInfo suffix;
  if (!InterpretSuffix(s.substr(pos), &suffix)) return error("unknown suffix or trailing characters");

  u128 mantissa = 0;
  int64_t scale = 0;
  Format format = suffix.format;
  if (suffix.base == 10) {
    std::string digits;
    digits.reserve(int_digits.size() + frac_digits.size());
    digits.append(int_digits).append(frac_digits);
    const int64_t exp10 = suffix.exponent - static_cast<int64_t>(frac_digits.size());
    if (!DecimalFromDigits(digits, exp10, &mantissa, &scale)) return error("value too large");
  } else {
    // Trailing fractional zeros change nothing; dropping them keeps the
    // exact binary multiplication short.
    while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.remove_suffix(1);
    std::string digits;
    digits.reserve(int_digits.size() + frac_digits.size() + 20);
    digits.append(int_digits).append(frac_digits);
    MultiplyDigitsByPow2(&digits, static_cast<int>(suffix.exponent));
    if (!DecimalFromDigits(digits, -static_cast<int64_t>(frac_digits.size()), &mantissa, &scale)) {
      return error("value too large");
    }
    // kube caps BinarySI magnitudes at 2^63-1 ...
    const Quantity magnitude(static_cast<i128>(mantissa), scale, format);
    const Quantity cap(static_cast<i128>(std::numeric_limits<int64_t>::max()), 0, format);
    if (magnitude.Cmp(cap) > 0) {
      mantissa = static_cast<u128>(std::numeric_limits<int64_t>::max());
      scale = 0;
    }
    // ... and reads a fraction of one as DecimalSI.
    if (mantissa != 0 && magnitude.Cmp(Quantity(1, 0, format)) < 0) format = Format::kDecimalSI;
  }
  i128 signed_mantissa = static_cast<i128>(mantissa);
  if (negative) signed_mantissa = -signed_mantissa;
  return Quantity(signed_mantissa, scale, format);
}

Quantity Quantity::MustParse(std::string_view s) {
  auto q = Parse(s);
  if (!q.ok()) {
    std::fprintf(stderr, "Quantity::MustParse: %s\n", q.status().ToString().c_str());
    std::abort();
  }
  return *q;
}

Quantity Quantity::FromMilli(int64_t milli, Format f) { return Quantity(milli, -3, f); }

Quantity Quantity::FromInt(int64_t value, Format f) { return Quantity(value, 0, f); }

int64_t Quantity::ScaledValue(int unit_scale) const {
  if (mantissa_ == 0) return 0;
  const u128 mag = Abs(mantissa_);
  const int64_t exp = static_cast<int64_t>(scale_) - unit_scale;
  const u128 limit = mantissa_ < 0 ? static_cast<u128>(std::numeric_limits<int64_t>::max()) + 1
                                   : static_cast<u128>(std::numeric_limits<int64_t>::max());
  u128 result = 0;
  if (exp >= 0) {
    if (DigitCount(mag) + exp > kMaxDigits) {
      result = limit;
    } else {
      result = mag * Pow10(static_cast<int>(exp));
    }
  } else {
    result = Abs(ShiftRightRoundAway(mantissa_, -exp));
  }
  result = std::min(result, limit);
  if (mantissa_ < 0) return static_cast<int64_t>(-static_cast<i128>(result));
  return static_cast<int64_t>(result);
}

int64_t Quantity::Value() const { return ScaledValue(0); }

int64_t Quantity::MilliValue() const { return ScaledValue(-3); }

double Quantity::AsApproximateDouble() const {
  if (mantissa_ == 0) return 0.0;
  return static_cast<double>(mantissa_) * std::pow(10.0, static_cast<double>(scale_));
}

bool Quantity::IsZero() const { return mantissa_ == 0; }

int Quantity::Sign() const { return mantissa_ < 0 ? -1 : (mantissa_ > 0 ? 1 : 0); }

std::string Quantity::ToString() const {
  if (mantissa_ == 0) return "0";
  const u128 mag = Abs(mantissa_);
  const std::string sign = mantissa_ < 0 ? "-" : "";
  Format format = format_;
  if (format == Format::kBinarySI) {
    // Below 1024 or fractional values read better (and exactly) in decimal.
    // Sums beyond 2^63-1 print in decimal too: Parse caps BinarySI there, so
    // "8Ei" would not read back as the same value.
    const bool small = Cmp(FromInt(1024)) < 0 && Cmp(FromInt(-1024)) > 0;
    const bool beyond_cap = Cmp(FromInt(std::numeric_limits<int64_t>::max())) > 0 ||
                            Cmp(FromInt(-std::numeric_limits<int64_t>::max())) < 0;
    if (small || beyond_cap || scale_ < 0) {
      format = Format::kDecimalSI;
    } else {
      u128 n = mag * Pow10(scale_);
      int exp = 0;
      while (n >= 1024 && n % 1024 == 0) {
        n /= 1024;
        ++exp;
      }
      static constexpr const char* kBinarySuffix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
      // n < 2^63, so it holds at most six factors of 1024.
      return sign + U128ToString(n) + kBinarySuffix[exp];
    }
  }
  // The exponent becomes a multiple of three by moving digits into the
  // number, never by adding a fraction.
  std::string number = U128ToString(mag);
  int64_t exp = scale_;
  const int64_t pad = ((exp % 3) + 3) % 3;
  number.append(static_cast<size_t>(pad), '0');
  exp -= pad;
  if (format == Format::kDecimalSI && exp <= 18) {
    static constexpr const char* kDecimalSuffix[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    return sign + number + kDecimalSuffix[(exp + 9) / 3];
  }
  if (exp == 0) return sign + number;
  return sign + number + "e" + std::to_string(exp);
}

Quantity Quantity::operator+(const Quantity& o) const {
  // As kube's Add: a zero receiver takes the other operand's format, so a
  // sum that starts from Quantity{} keeps the units of what it adds.
  const Format format = mantissa_ == 0 ? o.format_ : format_;
  if (o.mantissa_ == 0) return Quantity(mantissa_, scale_, format);
  if (mantissa_ == 0) return Quantity(o.mantissa_, o.scale_, format);
  // Fast path for the common case: equal scales, mantissas far from the
  // 128-bit limit.
  const i128 kSafe = static_cast<i128>(Pow10(kAlignDigits));
  if (scale_ == o.scale_ && mantissa_ < kSafe && mantissa_ > -kSafe && o.mantissa_ < kSafe && o.mantissa_ > -kSafe) {
    return Quantity(mantissa_ + o.mantissa_, scale_, format);
  }
  const int64_t mag_a = DigitCount(Abs(mantissa_)) + static_cast<int64_t>(scale_);
  const int64_t mag_b = DigitCount(Abs(o.mantissa_)) + static_cast<int64_t>(o.scale_);
  int64_t target = std::min(scale_, o.scale_);
  const int64_t top = std::max(mag_a, mag_b);
  if (top - target > kAlignDigits) target = top - kAlignDigits;
  auto align = [target](i128 m, int64_t scale) -> i128 {
    if (scale >= target) return m * static_cast<i128>(Pow10(static_cast<int>(scale - target)));
    return ShiftRightRoundAway(m, target - scale);
  };
  return Quantity(align(mantissa_, scale_) + align(o.mantissa_, o.scale_), target, format);
}

Quantity Quantity::operator-() const { return Quantity(-mantissa_, scale_, format_); }

Quantity Quantity::operator-(const Quantity& o) const { return *this + (-o); }

Quantity& Quantity::operator+=(const Quantity& o) { return *this = *this + o; }

Quantity& Quantity::operator-=(const Quantity& o) { return *this = *this - o; }

int Quantity::Cmp(const Quantity& o) const {
  const int sa = Sign();
  const int sb = o.Sign();
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  if (scale_ == o.scale_) return mantissa_ < o.mantissa_ ? -1 : (mantissa_ > o.mantissa_ ? 1 : 0);
  // Same sign: compare magnitudes, then flip for negatives.
  const u128 ma = Abs(mantissa_);
  const u128 mb = Abs(o.mantissa_);
  const int64_t mag_a = DigitCount(ma) + static_cast<int64_t>(scale_);
  const int64_t mag_b = DigitCount(mb) + static_cast<int64_t>(o.scale_);
  int cmp = 0;
  if (mag_a != mag_b) {
    cmp = mag_a < mag_b ? -1 : 1;
  } else {
    // Equal orders of magnitude: aligning to the smaller scale keeps both
    // within the digits of the longer mantissa.
    const int32_t low = std::min(scale_, o.scale_);
    const u128 a = ma * Pow10(scale_ - low);
    const u128 b = mb * Pow10(o.scale_ - low);
    cmp = a < b ? -1 : (a > b ? 1 : 0);
  }
  return sa > 0 ? cmp : -cmp;
}

std::strong_ordering Quantity::operator<=>(const Quantity& o) const {
  const int c = Cmp(o);
  if (c < 0) return std::strong_ordering::less;
  if (c > 0) return std::strong_ordering::greater;
  return std::strong_ordering::equal;
}

bool Quantity::operator==(const Quantity& o) const { return Cmp(o) == 0; }

}  // namespace ksched::api
