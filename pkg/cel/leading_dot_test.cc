// Leading-dot (root-scoped) names: `.device`, `.size(x)`, `.net.IP`,
// `.optional.of(x)`, each checked against what Kubernetes answers at 1.35,
// 1.36 and 1.37 (test/k8s/celcompare probes).
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

// 1.35's and 1.36's options (the default is 1.37's).
CompileOptions SeesLocals() {
  CompileOptions o;
  o.leading_dot_sees_locals = true;
  return o;
}

TEST(LeadingDotTest, NamesTheRootScope) {
  EXPECT_TRUE(Match(R"(.device.driver == "gpu.example.com" && . device.attributes["gpu.example.com"].count == 7)"));
  EXPECT_TRUE(Match(R"(has(.device.driver) && .device.?driver.hasValue() && !.device.allowMultipleAllocations)"));
  EXPECT_TRUE(Match(R"(-.device.attributes["gpu.example.com"].count == -7 && type(.device) == map)"));
  // Types, global functions and namespaced ones.
  EXPECT_TRUE(Match(R"(type(1) == .int && type(ip("1.2.3.4")) == .net.IP && .google.protobuf.Duration == type(duration("1s")))"));
  EXPECT_TRUE(Match(R"(.size([1]) == 1 && .int("1") == 1 && .dyn(1) == 1 && .matches("a", "a"))"));
  EXPECT_TRUE(Match(R"(.optional.of(1).hasValue() && .strings.quote("a") == "\"a\"" && .sets.contains([1], [1]))"));
  EXPECT_TRUE(Match(R"(.lists.range(3) == [0, 1, 2] && .quantity("1") == quantity("1") && .isSemver("1.0.0"))"));
  // Functions are never shadowed by variables.
  EXPECT_TRUE(Match("cel.bind(size, 1, .size([1]) == size) && [1].all(sets, .sets.contains([1], [1]))"));
  EXPECT_TRUE(Match("cel.bind(optional, 1, .optional.of(1).hasValue())"));
  EXPECT_TRUE(Match(".1 == 0.1"));  // a number, not a name
}

TEST(LeadingDotTest, UndeclaredNamesKeepTheirDot) {
  EXPECT_TRUE(Has(CompileError(".nope"), "1:2: undeclared reference to '.nope'"));
  EXPECT_TRUE(Has(CompileError(".x(1)"), "1:3: undeclared reference to '.x'"));
  EXPECT_TRUE(Has(CompileError(".device(1)"), "1:8: undeclared reference to '.device'"));
  EXPECT_TRUE(Has(CompileError(".dyn"), "undeclared reference to '.dyn'"));
  EXPECT_TRUE(Has(CompileError(".device.nope"), "undefined field 'nope'"));
  EXPECT_TRUE(Has(CompileError(".int"), "not type(int)"));
  // No macro takes a leading dot.
  EXPECT_TRUE(Has(CompileError(".has(device.driver)"), "1:5: undeclared reference to '.has'"));
  EXPECT_TRUE(Has(CompileError(".cel.bind(x, 1, x) == 1"), "1:2: undeclared reference to '.cel'"));
  EXPECT_TRUE(Has(CompileError(".math.greatest(1, 2) == 2"), "1:2: undeclared reference to '.math'"));
  EXPECT_TRUE(Has(CompileError(".true"), "syntax error"));
  EXPECT_TRUE(Has(CompileError(".null == null"), "syntax error"));
  EXPECT_TRUE(Has(CompileError(".in"), "syntax error"));
  EXPECT_TRUE(Has(CompileError(".if"), "1:1: syntax error: reserved identifier 'if'"));
  EXPECT_TRUE(Has(CompileError("device..driver == \"x\""), "syntax error"));
}

// A macro's leading-dot variable binds a name nothing can refer to.
TEST(LeadingDotTest, MacroVariables) {
  EXPECT_TRUE(Match("[1].all(.x, true) && [1].map(.x, 1) == [1] && [1].transformList(.i, v, v) == [1]"));
  EXPECT_TRUE(Has(CompileError("[1].all(.x, x > 0)"), "undeclared reference to 'x'"));
  EXPECT_TRUE(Has(CompileError("[1].all(.x, .x > 0)"), "undeclared reference to '.x'"));
  EXPECT_TRUE(Has(CompileError("cel.bind(.x, 1, true)"), "undeclared reference to '.x'"));
  EXPECT_TRUE(Has(CompileError("optional.of(1).optMap(.x, 2) == optional.of(2)"), "undeclared reference to '.x'"));
}

// A variable shadowing the name: 1.35 and 1.36 see it, 1.37 looks past it.
TEST(LeadingDotTest, ShadowedNamesFollowTheRelease) {
  const CompileOptions visible = SeesLocals(), skipped;
  for (const char* expr : {"cel.bind(x, 1, .x) == 1", "[[1]].all(x, .x.size() > 0)",
                           R"([device].exists(device, .device.driver == "gpu.example.com"))"}) {
    EXPECT_TRUE(Match(expr, visible)) << expr;
  }
  EXPECT_TRUE(Has(CompileError("cel.bind(x, 1, .x) == 1", skipped), "1:17: undeclared reference to '.x'"));
  EXPECT_TRUE(Has(CompileError("[[1]].all(x, .x.size() > 0)", skipped), "1:15: undeclared reference to '.x'"));
  EXPECT_TRUE(Match(R"([device].exists(device, .device.driver == "gpu.example.com"))", skipped));
  EXPECT_TRUE(Match(R"(cel.bind(device, 1, .device.driver == "gpu.example.com"))", skipped));
  EXPECT_TRUE(Has(CompileError(R"(cel.bind(device, 1, .device.driver == "gpu.example.com"))", visible),
                  "type 'int' does not support field selection"));
  EXPECT_TRUE(Has(CompileError("cel.bind(int, 1, .int == type(1))", skipped), "reference to undefined type: .int"));
  EXPECT_TRUE(Has(CompileError("cel.bind(int, 1, .int == type(1))", visible), "no matching overload for '_==_'"));
  EXPECT_TRUE(Has(CompileError(R"(cel.bind(net, 1, type(ip("1.2.3.4")) == .net.IP))", skipped),
                  "reference to undefined type: .net.IP"));
  EXPECT_TRUE(Match(R"(cel.bind(net, 1, type(ip("1.2.3.4")) == .net.IP))", visible));
  EXPECT_TRUE(Has(CompileError("cel.bind(x, 1, .x.y == 1)", visible), "type 'int' does not support field selection"));
  EXPECT_TRUE(Has(CompileError("cel.bind(x, 1, .x.y == 1)", skipped), "undeclared reference to '.x'"));
  // Inside a comprehension over the device's maps, with no variable of the name.
  EXPECT_TRUE(Match(R"(.device.attributes["gpu.example.com"].all(k, .device.attributes["gpu.example.com"][k] != null))"));
  EXPECT_TRUE(Has(EvalError(R"(.device.attributes["gpu.example.com"].nope == 1)"), "no such key"));
}

}  // namespace
}  // namespace ksched::cel
