// Fuzz target for api::Quantity.
//
// Parses the input as a quantity. Every accepted quantity must print a
// canonical form that parses back to the same value and is its own canonical
// form; arithmetic and the integer views must not crash (ASan/UBSan catch
// overflow) and must agree with each other. Any broken invariant aborts.
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/api/quantity.h"
#include "test/fuzz/fuzz_target.h"

#define Check(cond) KSCHED_FUZZ_CHECK(cond, #cond)

KSCHED_FUZZ_TARGET(quantity) {
  using ksched::api::Quantity;
  auto parsed = Quantity::Parse(input);
  if (!parsed.ok()) return;
  const Quantity& q = *parsed;

  const std::string canonical = q.ToString();
  auto again = Quantity::Parse(canonical);
  Check(again.ok());
  Check(*again == q);
  // A BinarySI value with no binary unit prints as a plain number, which
  // reads back as DecimalSI ("62.5Ki" -> "64000" -> "64k"); from there the
  // canonical form is a fixed point.
  if (again->format() == q.format()) Check(again->ToString() == canonical);
  const std::string settled = again->ToString();
  auto third = Quantity::Parse(settled);
  Check(third.ok() && *third == q && third->ToString() == settled);

  // Sign, zero and ordering agree.
  const Quantity zero;
  Check(q.IsZero() == (q == zero));
  Check((q.Sign() > 0) == (q > zero));
  Check((q.Sign() < 0) == (q < zero));
  Check(q.Cmp(q) == 0);

  // Integer views round away from zero and saturate; they never disagree
  // in sign with the value.
  const int64_t value = q.Value();
  const int64_t milli = q.MilliValue();
  Check((value > 0) == (q.Sign() > 0));
  Check((milli > 0) == (q.Sign() > 0));
  Check((value < 0) == (q.Sign() < 0));
  if (q.Sign() > 0) Check(Quantity::FromInt(value) >= q || value == INT64_MAX);
  if (q.Sign() < 0) Check(Quantity::FromInt(value) <= q || value == INT64_MIN);
  (void)q.AsApproximateDouble();

  // Arithmetic: negation is exact, a - a is zero, and sums order sensibly.
  const Quantity neg = -q;
  Check(neg.Sign() == -q.Sign());
  Check(q - q == zero);
  Check(q + neg == zero);
  const Quantity one = Quantity::FromInt(1);
  const Quantity sum = q + one;
  Check(sum >= q);
  auto sum_again = Quantity::Parse(sum.ToString());
  Check(sum_again.ok() && *sum_again == sum);
  const Quantity twice = q + q;
  auto twice_again = Quantity::Parse(twice.ToString());
  Check(twice_again.ok() && *twice_again == twice);
  Check(q.Sign() <= 0 || twice >= q);
  Quantity acc = q;
  acc += Quantity::FromMilli(1500, Quantity::Format::kBinarySI);
  acc -= q;
  Check(acc.Sign() >= 0);
}
