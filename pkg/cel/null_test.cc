// null where a value of another type is expected: cel-go's checker lets
// null stand for a duration, a timestamp, an opaque value (optional,
// net.IP, kubernetes.Quantity, ...) or the device, and the other way round,
// but not for a primitive, list, map or type. Each checked against what
// Kubernetes answers (test/k8s/celcompare probes).
#include <string>

#include <gtest/gtest.h>

#include "pkg/cel/cel_test_util.h"
#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

using test::CompileError;
using test::EvalError;
using test::Has;
using test::Match;

TEST(NullTest, ComparesWithNullableTypes) {
  EXPECT_TRUE(Match(R"(duration("1s") != null && null != timestamp(0) && !(ip("1.2.3.4") == null))"));
  EXPECT_TRUE(Match(R"(quantity("1") != null && semver("1.0.0") != null && cidr("10.0.0.0/8") != null)"));
  EXPECT_TRUE(Match(R"(url("http://a/") != null && optional.none() != null && device != null && null == null)"));
  EXPECT_TRUE(Match(R"([null] != [duration("1s")] && {"a": null} != {"a": quantity("1")})"));
  EXPECT_TRUE(Match(R"(optional.of(null) != optional.of(ip("1.2.3.4")) && !(null in [duration("1s")]))"));
  for (const char* expr : {"1 == null", "\"a\" != null", "[1] == null", "{} == null", "int == null", "b\"a\" == null"}) {
    EXPECT_TRUE(Has(CompileError(expr), "found no matching overload")) << expr;
  }
}

// A conditional of null and a nullable type has its first branch's type.
TEST(NullTest, ConditionalsTakeTheFirstBranchesType) {
  EXPECT_TRUE(Match(R"((true ? duration("1s") : null) + duration("1s") == duration("2s"))"));
  EXPECT_TRUE(Match(R"(type(false ? null : duration("1s")) == google.protobuf.Duration)"));
  EXPECT_TRUE(Has(CompileError(R"((true ? duration("1s") : null).getSeconds() + "a" == 1)"),
                  "found no matching overload for '_+_' applied to '(int, string)'"));
  // null's type: its getSeconds() compiles (duration's and timestamp's
  // overloads, both int) and fails at run time.
  EXPECT_TRUE(Match(R"(true || (true ? null : duration("1s")).getSeconds() == 1)"));
  EXPECT_TRUE(Has(EvalError(R"((true ? null : duration("1s")).getSeconds() == 1)"), "no such overload"));
  EXPECT_TRUE(Has(CompileError(R"((true ? null : 1) == null)"), "found no matching overload for '_?_:_'"));
}

// null fills a nullable parameter or receiver: the call compiles and fails
// at run time, unless a short-circuit skips it.
TEST(NullTest, FillsNullableParameters) {
  EXPECT_TRUE(Match(R"(true || duration("1s") + null == duration("1s"))"));
  EXPECT_TRUE(Match(R"(true || null.getFullYear() == 1 || null.isLoopback() || null.hasValue())"));
  // Kubernetes validates duration() and timestamp() of a literal, null too.
  EXPECT_TRUE(Has(CompileError("true || timestamp(null) == timestamp(0)"), "invalid timestamp argument"));
  EXPECT_TRUE(Match(R"(true || quantity("1").compareTo(null) == 0 || optional.unwrap([null]) == [])"));
  EXPECT_TRUE(Match(R"(optional.of(1).or(null).hasValue() && optional.none().orValue(null) == null)"));
  EXPECT_TRUE(Has(EvalError("null.isLoopback()"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("null.optMap(x, 1) == optional.none()"), "no such overload"));
  EXPECT_TRUE(Has(CompileError("true || isQuantity(null)"), "found no matching overload"));
  EXPECT_TRUE(Has(CompileError("true || 1 + null == 1"), "found no matching overload"));
}

}  // namespace
}  // namespace ksched::cel
