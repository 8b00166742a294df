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
// Values with more than nanounit precision are rounded up (away from zero
// for positives) to nano units, as kube does. Parsing never throws: invalid
// strings are errors.
//
// Thread-safety: an immutable value type.
#pragma once

#include <compare>
#include <cstdint>
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

  // Value rounded up to an integer (kube: Quantity.Value()). Saturates at
  // INT64 bounds rather than overflowing.
  int64_t Value() const;
  // Value * 1000 rounded up (kube: Quantity.MilliValue()). Saturates.
  int64_t MilliValue() const;
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

  std::strong_ordering operator<=>(const Quantity& o) const;
  bool operator==(const Quantity& o) const;

 private:
  // value = mantissa_ * 10^scale_, with scale_ >= -9 (nano precision).
  // The mantissa is 128-bit so that sums of large quantities stay exact.
  __int128 mantissa_ = 0;
  int32_t scale_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace ksched::api
