#include "pkg/cel/kube_quantity.h"

#include <cmath>
#include <string>

namespace ksched::cel {
namespace {

using i128 = __int128;
constexpr i128 kLimit = static_cast<i128>(1) << 120;  // headroom below int128 overflow

util::Status OutOfRange() { return util::InvalidArgument("quantity out of the supported range"); }

bool MulPow10(i128* v, int k) {
  for (int i = 0; i < k; ++i) {
    if (*v > kLimit / 10 || *v < -kLimit / 10) return false;
    *v *= 10;
  }
  return true;
}

// Go's strconv.ParseInt(s, 10, 64) for digit strings.
bool ParseInt64Digits(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (static_cast<uint64_t>(INT64_MAX) - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = static_cast<int64_t>(v);
  return true;
}

bool Mul64(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

// int64Amount's positiveScaleInt64: base * 10^scale without overflow.
bool PositiveScale(int64_t base, int32_t scale, int64_t* out) {
  int64_t v = base;
  for (int32_t i = 0; i < scale; ++i) {
    if (!Mul64(v, 10, &v)) return false;
  }
  *out = v;
  return true;
}

DecNum ToDecNum(const KubeQuantity& q) {
  if (q.is_dec) return *q.dec;
  return DecNum{static_cast<i128>(q.value), -q.scale};
}

// Brings both to the larger scale (inf.Dec's upscale).
bool Upscale(DecNum* a, DecNum* b) {
  if (a->scale < b->scale) {
    if (!MulPow10(&a->unscaled, b->scale - a->scale)) return false;
    a->scale = b->scale;
  } else if (b->scale < a->scale) {
    if (!MulPow10(&b->unscaled, a->scale - b->scale)) return false;
    b->scale = a->scale;
  }
  return true;
}

// int64Amount.Add: false on overflow, leaving *a unchanged.
bool AddInt(KubeQuantity* a, int64_t bv, int32_t bs) {
  if (bv == 0) return true;
  if (a->value == 0) {
    a->value = bv;
    a->scale = bs;
    return true;
  }
  int64_t c = 0;
  if (a->scale == bs) {
    if (__builtin_add_overflow(a->value, bv, &c)) return false;
    a->value = c;
  } else if (a->scale > bs) {
    if (!PositiveScale(a->value, a->scale - bs, &c)) return false;
    if (__builtin_add_overflow(c, bv, &c)) return false;
    a->scale = bs;
    a->value = c;
  } else {
    if (!PositiveScale(bv, bs - a->scale, &c)) return false;
    if (__builtin_add_overflow(a->value, c, &c)) return false;
    a->value = c;
  }
  return true;
}

// math.Pow10 as Go computes it, from exact tables.
double GoPow10(int n) {
  static const double kTab[32] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10,
                                  1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
                                  1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31};
  static const double kPos32[] = {1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288};
  static const double kNeg32[] = {1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320};
  if (n >= 0 && n <= 308) return kPos32[n / 32] * kTab[n % 32];
  if (n < 0 && n >= -323) return kNeg32[-n / 32] / kTab[-n % 32];
  return n > 0 ? HUGE_VAL : 0;
}

int Digits(i128 v) {
  int n = 0;
  for (; v != 0; v /= 10) ++n;
  return n;
}

// Exact comparison of two decimals of any scale: by sign, then by order of
// magnitude, and only then by aligned digits (which then fit).
util::StatusOr<int> CompareDec(DecNum a, DecNum b) {
  int sa = a.unscaled < 0 ? -1 : (a.unscaled > 0 ? 1 : 0);
  int sb = b.unscaled < 0 ? -1 : (b.unscaled > 0 ? 1 : 0);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  int64_t ma = static_cast<int64_t>(Digits(a.unscaled)) - a.scale;
  int64_t mb = static_cast<int64_t>(Digits(b.unscaled)) - b.scale;
  if (ma != mb) return (ma < mb ? -1 : 1) * sa;
  if (!Upscale(&a, &b)) return OutOfRange();
  return a.unscaled < b.unscaled ? -1 : (a.unscaled > b.unscaled ? 1 : 0);
}

}  // namespace

util::StatusOr<KubeQuantity> ParseKubeQuantity(std::string_view str) {
  auto bad = [&](const char* why) {
    return util::InvalidArgument("quantity \"" + std::string(str) + "\": " + why);
  };
  if (str.empty()) return bad("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  if (str == "0") return KubeQuantity{};
  // parseQuantityString: sign, leading zeros, digits, fraction, suffix.
  size_t pos = 0, end = str.size();
  bool positive = true;
  if (str[0] == '-' || str[0] == '+') {
    positive = str[0] == '+';
    ++pos;
  }
  std::string_view num, denom, suffix, value;
  while (pos < end && str[pos] == '0') ++pos;
  bool done = false;
  if (pos >= end) {
    num = "0";
    value = num;
    done = true;
  }
  if (!done) {
    size_t start = pos;
    while (pos < end && str[pos] >= '0' && str[pos] <= '9') ++pos;
    num = str.substr(start, pos - start);
    if (pos >= end) {
      value = str;
      done = true;
    } else if (num.empty()) {
      num = "0";
    }
  }
  if (!done) {
    if (str[pos] == '.') {
      ++pos;
      size_t start = pos;
      while (pos < end && str[pos] >= '0' && str[pos] <= '9') ++pos;
      denom = str.substr(start, pos - start);
      if (pos >= end) {
        value = str;
        done = true;
      }
    }
  }
  if (!done) {
    value = str.substr(0, pos);
    size_t suffix_start = pos;
    size_t i = pos;
    while (i < end && std::string_view("eEinumkKMGTP").find(str[i]) != std::string_view::npos) ++i;
    if (i < end) {
      pos = i;
      if (str[pos] == '-' || str[pos] == '+') ++pos;
      for (size_t j = pos; j < end; ++j) {
        if (str[j] < '0' || str[j] > '9') return bad("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
      }
    }
    suffix = str.substr(suffix_start);
  }
  // The suffix: base and exponent.
  int base = 10;
  int32_t exponent = 0;
  enum { kDecimalSI, kBinarySI, kDecimalExponent } format = kDecimalSI;
  static const std::pair<std::string_view, int32_t> kDecimal[] = {
      {"", 0}, {"n", -9}, {"u", -6}, {"m", -3}, {"k", 3}, {"M", 6}, {"G", 9}, {"T", 12}, {"P", 15}, {"E", 18}};
  static const std::pair<std::string_view, int32_t> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  bool known = false;
  for (const auto& [s, e] : kDecimal) {
    if (suffix == s) { exponent = e; known = true; }
  }
  for (const auto& [s, e] : kBinary) {
    if (suffix == s) { exponent = e; base = 2; format = kBinarySI; known = true; }
  }
  if (!known && suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view digits = suffix.substr(1);
    bool neg = false;
    if (digits[0] == '+' || digits[0] == '-') {
      neg = digits[0] == '-';
      digits.remove_prefix(1);
    }
    int64_t e = 0;
    if (!ParseInt64Digits(digits, &e) || e > INT32_MAX) return bad("unsupported exponent");
    exponent = static_cast<int32_t>(neg ? -e : e);
    format = kDecimalExponent;
    known = true;
  }
  if (!known) return bad("unable to parse quantity's suffix");

  int32_t precision = 0, scale = 0;
  int64_t mantissa = 1;
  if (format == kBinarySI) {
    if (exponent >= 0 && denom.empty()) {
      mantissa = static_cast<int64_t>(1) << exponent;
      precision = 15 - static_cast<int32_t>(num.size()) -
                  static_cast<int32_t>(static_cast<float>(exponent) * 3 / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = 18 - static_cast<int32_t>(num.size() + denom.size());
  }
  if (precision >= 0) {
    scale -= static_cast<int32_t>(denom.size());
    if (scale >= -9) {
      std::string shifted = std::string(num) + std::string(denom);
      int64_t v = 0;
      if (!ParseInt64Digits(shifted, &v)) return bad("the number is out of range");
      int64_t r = 0;
      if (Mul64(v, mantissa, &r)) {
        KubeQuantity q;
        q.value = positive ? r : -r;
        q.scale = scale;
        return q;
      }
    }
  }
  // The slow path: an inf.Dec of the written number, scaled by the suffix,
  // rounded up to nano precision.
  DecNum d;
  {
    std::string_view digits = value;
    bool neg = false;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
      neg = digits[0] == '-';
      digits.remove_prefix(1);
    }
    int32_t frac = -1;
    for (char c : digits) {
      if (c == '.') {
        frac = 0;
        continue;
      }
      if (!MulPow10(&d.unscaled, 1)) return OutOfRange();
      d.unscaled += c - '0';
      if (frac >= 0) ++frac;
    }
    d.scale = frac > 0 ? frac : 0;
    if (neg) d.unscaled = -d.unscaled;
  }
  if (base == 10) {
    d.scale -= exponent;
  } else {
    for (int32_t i = 0; i < exponent; ++i) {
      if (d.unscaled > kLimit / 2 || d.unscaled < -kLimit / 2) return OutOfRange();
      d.unscaled *= 2;
    }
  }
  bool negative = d.unscaled < 0;
  if (negative) d.unscaled = -d.unscaled;
  if (d.unscaled != 0) {
    if (d.scale < 9) {
      if (!MulPow10(&d.unscaled, 9 - d.scale)) return OutOfRange();
    } else if (d.scale > 9) {
      i128 div = 1;
      for (int32_t i = 0; i < d.scale - 9; ++i) {
        if (div > kLimit / 10) {
          div = 0;
          break;
        }
        div *= 10;
      }
      // RoundUp away from zero (the value is non-negative here).
      d.unscaled = div == 0 ? 1 : (d.unscaled + div - 1) / div;
    }
    d.scale = 9;
  }
  if (format == kBinarySI) {
    // Capped at 2^63-1 (scale 0), as Kubernetes caps binary quantities.
    DecNum cap{static_cast<i128>(INT64_MAX), 0};
    DecNum a = d;
    if (!Upscale(&a, &cap)) return OutOfRange();
    if (a.unscaled > cap.unscaled) d = DecNum{static_cast<i128>(INT64_MAX), 0};
  }
  if (negative) d.unscaled = -d.unscaled;
  KubeQuantity q;
  q.is_dec = true;
  q.dec = std::make_shared<DecNum>(d);
  return q;
}

util::StatusOr<int> CompareQuantity(QuantityCell& receiver, const KubeQuantity& y) {
  if (!receiver.q.is_dec && !y.is_dec) return CompareDec(ToDecNum(receiver.q), ToDecNum(y));
  if (!receiver.q.is_dec) {
    receiver.q.dec = std::make_shared<DecNum>(ToDecNum(receiver.q));
    receiver.q.is_dec = true;
    receiver.q.value = 0;
    receiver.q.scale = 0;
  }
  return CompareDec(*receiver.q.dec, ToDecNum(y));
}

util::StatusOr<KubeQuantity> AddQuantity(const KubeQuantity& receiver, const KubeQuantity& y, bool subtract,
                                         bool deep_copy) {
  KubeQuantity copy = receiver;  // shares a decimal with the receiver...
  if (deep_copy && copy.is_dec) copy.dec = std::make_shared<DecNum>(*copy.dec);  // ...unless copied
  if (!copy.is_dec && !y.is_dec) {
    // Go negates with wrap-around, as int64Amount.Sub does.
    int64_t yv = subtract ? static_cast<int64_t>(0 - static_cast<uint64_t>(y.value)) : y.value;
    if (AddInt(&copy, yv, y.scale)) return copy;
  }
  if (!copy.is_dec) {
    copy.dec = std::make_shared<DecNum>(ToDecNum(copy));
    copy.is_dec = true;
    copy.value = 0;
    copy.scale = 0;
  }
  DecNum a = *copy.dec, b = ToDecNum(y);
  if (!Upscale(&a, &b)) return OutOfRange();
  a.unscaled = subtract ? a.unscaled - b.unscaled : a.unscaled + b.unscaled;
  *copy.dec = a;  // in place: visible through every holder of this decimal
  return copy;
}

bool QuantityAsInt64(const KubeQuantity& q, int64_t* out) {
  if (q.is_dec) return false;
  if (q.scale == 0) {
    *out = q.value;
    return true;
  }
  if (q.scale < 0) return false;
  return PositiveScale(q.value, q.scale, out);
}

double QuantityApproximateFloat(const KubeQuantity& q) {
  double base = 0;
  int exponent = 0;
  if (q.is_dec) {
    base = static_cast<double>(q.dec->unscaled);
    exponent = -q.dec->scale;
  } else {
    base = static_cast<double>(q.value);
    exponent = q.scale;
  }
  if (exponent == 0) return base;
  return base * GoPow10(exponent);
}

int QuantitySign(const KubeQuantity& q) {
  if (q.is_dec) return q.dec->unscaled < 0 ? -1 : (q.dec->unscaled > 0 ? 1 : 0);
  return q.value < 0 ? -1 : (q.value > 0 ? 1 : 0);
}

}  // namespace ksched::cel
