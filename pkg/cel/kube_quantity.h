// KubeQuantity: a quantity the way Kubernetes' resource.Quantity holds it
// inside CEL, where its internal form shows through: a value parsed on the
// fast path is an int64 times a power of ten ("500m" is 500e-3), otherwise
// an arbitrary-precision decimal (inf.Dec; "1.5Gi" is one). isInteger() and
// asInteger() accept only the first form with a non-negative exponent
// ("1000m".isInteger() is false), asApproximateFloat() multiplies the parts
// as Go does, and comparisons and add()/sub() convert or share the decimal
// form (see QuantityCell). pkg/api's Quantity is value-exact but keeps no
// form, so this package models the form itself, exactly while a decimal
// needs at most about 36 digits (10^26 at nano precision); beyond that,
// operations report an error instead of guessing.
//
// Thread-safety: a KubeQuantity is a value, but copies share their decimal
// (`dec`) as Go's Quantity copies share their *inf.Dec; a QuantityCell is
// confined to one evaluation.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "pkg/util/status.h"

namespace ksched::cel {

// unscaled * 10^-scale, as inf.Dec.
struct DecNum {
  __int128 unscaled = 0;
  int32_t scale = 0;
};

struct KubeQuantity {
  bool is_dec = false;
  int64_t value = 0;  // int form: value * 10^scale
  int32_t scale = 0;
  std::shared_ptr<DecNum> dec;  // decimal form

  static KubeQuantity FromInt(int64_t v) { KubeQuantity q; q.value = v; return q; }
};

// Kubernetes' resource.ParseQuantity, including its leniency ("-", "Ki" and
// "." read as zero). Errors name the string.
util::StatusOr<KubeQuantity> ParseKubeQuantity(std::string_view s);

// A Quantity object that several CEL values may reference (a capacity read
// twice, a cel.bind variable): Kubernetes' comparison functions convert the
// receiver to the decimal form in place, and add()/sub() on a decimal
// receiver update the shared decimal, both visible through every reference.
struct QuantityCell {
  KubeQuantity q;
};

// -1, 0, 1; converts `receiver` to the decimal form unless both are ints.
util::StatusOr<int> CompareQuantity(QuantityCell& receiver, const KubeQuantity& y);
// Quantity.Add / Quantity.Sub on a copy of `receiver`: a shallow copy,
// sharing its decimal (Kubernetes to 1.36: the receiver changes too), or
// with `deep_copy` its own (1.37's DeepCopy).
util::StatusOr<KubeQuantity> AddQuantity(const KubeQuantity& receiver, const KubeQuantity& y, bool subtract,
                                         bool deep_copy = false);
bool QuantityAsInt64(const KubeQuantity& q, int64_t* out);
double QuantityApproximateFloat(const KubeQuantity& q);
int QuantitySign(const KubeQuantity& q);

}  // namespace ksched::cel
