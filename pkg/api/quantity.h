// Quantity: Kubernetes resource quantities ("100m", "1Gi", "2.5e3", "0.1").
//
// Grammar (k8s.io/apimachinery/pkg/api/resource):
//   <quantity> ::= <signedNumber><suffix>
//   <suffix>   ::= <binarySI> | <decimalExponent> | <decimalSI>
//   <binarySI> ::= Ki | Mi | Gi | Ti | Pi | Ei
//   <decimalSI>::= n | u | m | "" | k | M | G | T | P | E
//   <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>
//
// The value is kept exactly as a decimal: an integer mantissa times 10^scale,
// so "0.1" and "100m" compare equal and MilliValue() is exact where kube's is.
// Values with more than nanounit precision are rounded away from zero to nano
// units, as kube does; BinarySI values are capped at 2^63-1 in magnitude, as
// kube does. Parsing never throws: invalid strings are errors.
//
// Differences from kube, all at the edges: a number must have at least one
// digit (kube reads "Ki", "." or "-" as zero); an exponent outside int32 is an
// error (kube truncates it); mantissas beyond 38 significant digits are
// rounded away from zero (kube keeps them exactly); a DecimalSI value above
// 999E prints in exponent form ("1e21", where kube prints a bare "1"); a
// BinarySI sum beyond 2^63-1 prints in decimal (so it reads back unchanged);
// "+1", "01" and "1E3" print as "1", "1", "1e3" (kube echoes such inputs);
// sums whose operands differ by more than 37 orders of magnitude round the
// smaller operand away from zero; exponents beyond about 2^31 are rejected
// and sums saturate there. Every operation is O(1) in the exponent:
// "1e999999" neither hangs nor overflows.
//
// Thread-safety: an immutable value type.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/util/status.h"

namespace ksched::api {

class Quantity {
 public:
  enum class Format { kDecimalSI, kBinarySI, kDecimalExponent };

  Quantity() = default;  // zero, DecimalSI

  // Parses the grammar above. Errors name the offending string.
  static util::StatusOr<Quantity> Parse(std::string_view s);
  // Like Parse but aborts on error; for literals in code and tests.
  static Quantity MustParse(std::string_view s);

  static Quantity FromMilli(int64_t milli, Format f = Format::kDecimalSI);
  static Quantity FromInt(int64_t value, Format f = Format::kDecimalSI);

  // Value rounded away from zero to an integer (kube: Quantity.Value()), so
  // 1.2 -> 2 and -1.2 -> -2. Saturates at INT64 bounds rather than
  // overflowing.
  int64_t Value() const;
  // Value * 1000 rounded away from zero (kube: Quantity.MilliValue()).
  // Saturates.
  int64_t MilliValue() const;
  // The value as a double, for scoring ratios; may lose precision and is
  // +-inf beyond the double range.
  double AsApproximateDouble() const;
  bool IsZero() const;
  int Sign() const;

  Format format() const { return format_; }

  // Canonical string form, as kube's Quantity.String() prints it: "1Gi",
  // "100m", "1500Mi", "1e3", "0".
  std::string ToString() const;

  Quantity operator+(const Quantity& o) const;
  Quantity operator-(const Quantity& o) const;
  Quantity& operator+=(const Quantity& o);
  Quantity& operator-=(const Quantity& o);

  Quantity operator-() const;  // keeps the format

  // -1, 0 or 1 as *this is less than, equal to or greater than o, by value.
  int Cmp(const Quantity& o) const;
  std::strong_ordering operator<=>(const Quantity& o) const;
  bool operator==(const Quantity& o) const;

 private:
  Quantity(__int128 mantissa, int64_t scale, Format f);
  // Parse's fast path; nullopt sends `s` the general way.
  static std::optional<Quantity> ParseInteger(std::string_view s);
  // Strips trailing decimal zeros from the mantissa into the scale (so each
  // value has one representation) and bounds the scale.
  void Normalize(int64_t scale);
  // ceil-away-from-zero of value * 10^-unit_scale, saturated to int64.
  int64_t ScaledValue(int unit_scale) const;

  // value = mantissa_ * 10^scale_, with scale_ >= -9 (nano precision),
  // |mantissa_| < 10^38 and no trailing zero in a non-zero mantissa_.
  // The mantissa is 128-bit so that sums of large quantities stay exact.
  __int128 mantissa_ = 0;
  int32_t scale_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace ksched::api
