#include "pkg/cel/program.h"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "pkg/cel/cel_test_util.h"

namespace ksched::cel {
namespace {

using test::CompileError;
using test::EvalError;
using test::Has;
using test::Match;
using test::TestGpu;

// Selectors in the style of Kubernetes' DRA documentation.
TEST(ProgramTest, DocumentationSelectors) {
  EXPECT_TRUE(Match(R"(device.driver == "gpu.example.com")"));
  EXPECT_FALSE(Match(R"(device.driver == "dra.example.com")"));
  EXPECT_TRUE(Match(R"(device.attributes["gpu.example.com"].model == "a100")"));
  EXPECT_TRUE(Match(R"(device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0)"));
  EXPECT_FALSE(Match(R"(device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("40Gi")))"));
  EXPECT_TRUE(Match(R"(device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0")))"));
  EXPECT_TRUE(Match(R"(device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("1.10.0")))"));
  EXPECT_FALSE(Match(R"(cel.bind(dra, device.attributes["dra.example.com"], dra.oneBool && dra.anotherBool))"));
  EXPECT_TRUE(Match(R"(cel.bind(dra, device.attributes["dra.example.com"], dra.oneBool || dra.anotherBool))"));
  EXPECT_TRUE(Match(R"(device.attributes["gpu.example.com"].cores >= 100 && device.attributes["gpu.example.com"]["model"].startsWith("a"))"));
}

TEST(ProgramTest, UnqualifiedNamesBelongToTheDriverDomain) {
  EXPECT_TRUE(Match(R"("model" in device.attributes["gpu.example.com"])"));
  EXPECT_TRUE(Match(R"("cores" in device.attributes["gpu.example.com"])"));
  EXPECT_FALSE(Match(R"("model" in device.attributes["dra.example.com"])"));
  EXPECT_TRUE(Match(R"("slices" in device.capacity["dra.example.com"])"));
}

TEST(ProgramTest, MissingAttributesAreErrorsButNotForHasOrIn) {
  std::string err = EvalError(R"(device.attributes["gpu.example.com"].missing == 1)");
  EXPECT_NE(err.find("no such key: missing"), std::string::npos) << err;
  EXPECT_NE(err.find(R"(CEL expression "device.attributes["gpu.example.com"].missing == 1")"), std::string::npos);
  EXPECT_FALSE(Match(R"(has(device.attributes["gpu.example.com"].missing))"));
  EXPECT_TRUE(Match(R"(has(device.attributes["gpu.example.com"].model))"));
  // A missing domain is an empty map: present to has(), absent to in.
  EXPECT_TRUE(Match(R"(device.attributes["nowhere.example.com"] == {})"));
  EXPECT_TRUE(Match(R"(has(device.attributes.nowhere))"));
  EXPECT_FALSE(Match(R"("nowhere.example.com" in device.attributes)"));
  // Device maps, present or not, are keyed by strings and hash nothing.
  EXPECT_FALSE(Match(R"(dyn(semver("1.0.0")) in device.attributes["nowhere.example.com"])"));
  EvalError(R"(dyn(semver("1.0.0")) in {"a": 1} || true)");
  EXPECT_FALSE(Match(R"(has(device.attributes["gpu.example.com"].cores.foo))"));
}

TEST(ProgramTest, LogicalOperatorsAbsorbErrorsCommutatively) {
  const std::string missing = R"(device.attributes["gpu.example.com"].missing)";
  EXPECT_TRUE(Match(missing + " || true"));
  EXPECT_TRUE(Match("true || " + missing));
  EXPECT_FALSE(Match(missing + " && false"));
  EXPECT_FALSE(Match("false && " + missing));
  EvalError(missing + " && true");
  EvalError("false || " + missing);
  EvalError(missing + " ? true : false");
}

TEST(ProgramTest, DynamicTypeMismatchesFailAtRunTime) {
  std::string err = EvalError(R"(device.attributes["gpu.example.com"].model > 5)");
  EXPECT_NE(err.find("no such overload"), std::string::npos) << err;
  // Equality across kinds is false, except for quantities and versions.
  EXPECT_FALSE(Match(R"(device.attributes["gpu.example.com"].model == 5)"));
  EXPECT_TRUE(Match(R"(device.attributes["gpu.example.com"].cores == 108.0)"));
  EvalError(R"(device.attributes["gpu.example.com"].driverVersion == "1.2.3")");
  EXPECT_TRUE(Match(R"(device.attributes["gpu.example.com"].driverVersion != "1.2.3")"));
}

TEST(ProgramTest, CompileErrorsNameTheExpressionAndPosition) {
  std::string err = CompileError("device.driver == ");
  EXPECT_NE(err.find(R"(CEL expression "device.driver == ")"), std::string::npos) << err;
  EXPECT_NE(err.find("1:18: syntax error"), std::string::npos) << err;
  EXPECT_NE(CompileError("devices.driver == \"x\"").find("undeclared reference to 'devices'"), std::string::npos);
  EXPECT_NE(CompileError("device.model == \"x\"").find("undefined field 'model'"), std::string::npos);
  EXPECT_NE(CompileError(R"(device.driver == 1)").find("no matching overload for '_==_'"), std::string::npos);
  EXPECT_NE(CompileError("device.driver").find("must evaluate to bool"), std::string::npos);
  EXPECT_NE(CompileError("dyn(true)").find("not dyn"), std::string::npos);
  EXPECT_NE(CompileError(R"([device.attributes["d"].a, 1] == [])").find("expected type 'any' but found 'int'"),
            std::string::npos);
  EXPECT_NE(CompileError(R"(quantity("1").sign() == 1)").find("no matching overload for 'sign'"), std::string::npos);
  EXPECT_TRUE(Match(R"(sign(quantity("-1")) == -1)"));
}

TEST(ProgramTest, UnsupportedCelIsAnErrorNeverAMatch) {
  for (const char* expr : {"google.protobuf.Any{} == null", "google.protobuf.Empty{} == null"}) {
    std::string err = CompileError(expr);
    EXPECT_NE(err.find("not supported"), std::string::npos) << expr << ": " << err;
    EXPECT_NE(err.find(expr), std::string::npos) << err;
  }
}

TEST(ProgramTest, Comprehensions) {
  EXPECT_TRUE(Match("[1, 2, 3].all(x, x > 0) && [1, 2, 3].exists(x, x > 2) && ![1, 2, 3].exists_one(x, x > 1)"));
  EXPECT_TRUE(Match("[1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].map(x, x > 1, x * 2) == [4, 6]"));
  EXPECT_TRUE(Match("[1, 2, 3].filter(x, x > 1) == [2, 3]"));
  // Maps range over their keys; a domain's attributes are a map.
  EXPECT_TRUE(Match(R"(device.attributes["gpu.example.com"].exists(k, k == "model"))"));
  EXPECT_TRUE(Match(R"(device.attributes["dra.example.com"].all(k, device.attributes["dra.example.com"][k] in [true, false]))"));
  // Errors are absorbed as by && and ||, whatever the order.
  EXPECT_FALSE(Match("[0, 1].all(x, 1 / x < 0)"));
  EXPECT_TRUE(Match("[0, 1].exists(x, 1 / x > 0)"));
  EvalError("[1, 0].all(x, 1 / x > 0)");
  EvalError("[0, 1].exists_one(x, 1 / x > 0)");
  EvalError("[0, 1].map(x, 1 / x) == []");
  // The variable is scoped to the macro and shadows outer bindings.
  EXPECT_TRUE(Match("cel.bind(x, 5, [1, 2].all(x, x < 3) && x == 5)"));
  EXPECT_NE(CompileError("[1, 2].exists(x, x == 2) && x == 2").find("undeclared reference to 'x'"), std::string::npos);
  EXPECT_NE(CompileError("[1, 2].all(x, x)").find("must be a bool"), std::string::npos);
  EXPECT_NE(CompileError(R"(device.attributes["gpu.example.com"].model.all(x, true))").find("cannot be the range"),
            std::string::npos);
  EXPECT_NE(CompileError("[1, 2].all(1, true)").find("simple name"), std::string::npos);
}

TEST(ProgramTest, TwoVariableComprehensions) {
  EXPECT_TRUE(Match("[1, 2, 3].all(i, v, v > i) && [1, 2, 3].exists(i, v, i == 2 && v == 3)"));
  EXPECT_TRUE(Match("[1, 2, 3].existsOne(i, v, v > 2) && ![1, 2, 3].exists_one(i, v, v > 1)"));
  EXPECT_TRUE(Match("[1, 2, 3].transformList(i, v, i * v) == [0, 2, 6]"));
  EXPECT_TRUE(Match("[1, 2, 3].transformList(i, v, i > 0, v) == [2, 3]"));
  EXPECT_TRUE(Match(R"({"a": 1, "b": 2}.transformMap(k, v, v > 1, v * 10) == {"b": 20})"));
  EXPECT_TRUE(Match(R"({"a": 1, "b": 2}.transformMapEntry(k, v, {v: k}) == {1: "a", 2: "b"})"));
  std::string err = EvalError(R"({"a": 1, "b": 1}.transformMapEntry(k, v, {v: k}) == {})");
  EXPECT_NE(err.find("already exists"), std::string::npos) << err;
  EXPECT_TRUE(Match(R"(device.attributes["gpu.example.com"].exists(k, v, k == "cores" && v == 108))"));
  EXPECT_NE(CompileError("[1, 2].all(x, x, true)").find("duplicate variable name"), std::string::npos);
  EXPECT_FALSE(Program::Compile("[1, 2].filter(i, v, true)").ok());
}

TEST(ProgramTest, SetsExtension) {
  EXPECT_TRUE(Match("sets.contains([1, 2, 3], [2, 3]) && !sets.contains([1, 2], [2, 3]) && sets.contains([1], [])"));
  EXPECT_TRUE(Match("sets.equivalent([1, 2, 2], [2, 1]) && sets.intersects([1, 2], [2, 3]) && !sets.intersects([1], [])"));
  EXPECT_TRUE(Match(R"(sets.intersects(device.driver.split("."), ["example"]))"));
  EXPECT_FALSE(Program::Compile("sets.contains([1], 1)").ok());
  EXPECT_NE(CompileError("sets.foo([1], [1])").find("1:1: undeclared reference to 'sets'"), std::string::npos);
}

TEST(ProgramTest, ConstantConversionsFailAtCompileTime) {
  EXPECT_NE(CompileError(R"(false && int("x") == 1)").find("cannot convert"), std::string::npos);
  EXPECT_TRUE(Match(R"(int("12") == 12 && string(1e6) == "1e+06" && double("1.5") == 1.5)"));
  // x in [] is false without looking at x.
  EXPECT_FALSE(Match(R"(device.attributes["gpu.example.com"].missing in [])"));
  EvalError(R"(device.attributes["gpu.example.com"].missing in [1])");
}

TEST(ProgramTest, IntegerArithmeticOverflowIsAnError) {
  EvalError("9223372036854775807 + 1 > 0");
  EvalError("-9223372036854775808 / -1 > 0");
  EvalError("1 / 0 == 0");
  EvalError("0u - 1u > 0u");
  EXPECT_TRUE(Match("-9223372036854775808 < 0 && 7 / 2 == 3 && -7 % 3 == -1 && 1.0 / 0.0 > 1e308"));
}

TEST(ProgramTest, MixedNumbersCompareAsCelGoDoes) {
  // Inside the integer's range as doubles, so 2^63 (MaxInt64 as a double)
  // is equal to MaxInt64, and 2^64 to MaxUint64.
  EXPECT_TRUE(Match("9223372036854775807 >= 9223372036854775807.0 && 9223372036854775807 <= 9223372036854775808.0"));
  EXPECT_TRUE(Match("18446744073709551615u >= 18446744073709551616.0 && 9223372036854775807 < 1e19"));
}

TEST(ProgramTest, QuantityFormsMatterAsInKubernetes) {
  EXPECT_TRUE(Match(R"(quantity("1k").isInteger() && quantity("1k").asInteger() == 1000)"));
  // 1000m is held as 1000e-3, which Kubernetes does not call an integer.
  EXPECT_FALSE(Match(R"(quantity("1000m").isInteger())"));
  EXPECT_FALSE(Match(R"(quantity("1.5Gi").isInteger())"));
  // add() on a decimal-form quantity updates the receiver itself.
  EXPECT_TRUE(Match(R"(device.capacity["dra.example.com"].slices.sub(1) == device.capacity["dra.example.com"].slices)"));
  EXPECT_FALSE(Match(R"(device.capacity["gpu.example.com"].memory.sub(1) == device.capacity["gpu.example.com"].memory)"));
  // A quantity from add() compares only on the left of ==.
  EXPECT_TRUE(Match(R"(quantity("1").add(1) == quantity("2"))"));
  EvalError(R"(quantity("2") == quantity("1").add(1))");
  // Numbers without digits read as zero, as in Kubernetes.
  EXPECT_TRUE(Match(R"(quantity("-") == quantity("0") && isQuantity("Ki") && !isQuantity(""))"));
}

TEST(ProgramTest, InvalidInputsAreErrors) {
  Device d = TestGpu();
  d.attributes["driverVersion"] = DeviceAttribute::Version("1.2");
  std::string err = EvalError(R"(device.driver != "")", {}, d);
  EXPECT_NE(err.find("attribute driverVersion"), std::string::npos) << err;
  d = TestGpu();
  d.capacity["memory"] = "lots";
  err = EvalError(R"(device.driver != "")", {}, d);
  EXPECT_NE(err.find("capacity memory"), std::string::npos) << err;
}

// Matches builds only the device maps an expression can read; however it
// reaches them, they are there.
TEST(ProgramTest, EveryWayToReachTheDeviceMapsFindsThem) {
  for (const char* expr : {
           R"(device.attributes["gpu.example.com"].model == "a100")",
           R"(device.?capacity["gpu.example.com"].hasValue())",
           R"(has(device.attributes["dra.example.com"].oneBool))",
           R"([device][0].attributes["gpu.example.com"].count == 7)",
           R"({"d": device}.d.capacity["gpu.example.com"].memory == quantity("40Gi"))",
           R"(cel.bind(x, device, x.attributes["gpu.example.com"].cores == 108))",
           R"(device.driver == "gpu.example.com" && device.capacity["dra.example.com"].slices.isGreaterThan(quantity("1Gi")))",
           R"([device].exists(d, d.attributes["gpu.example.com"].model == "a100"))",
           R"(!device.allowMultipleAllocations && device.driver == "gpu.example.com")",
       }) {
    EXPECT_TRUE(Match(expr)) << expr;
  }
}

TEST(ProgramTest, CostLimitEndsEvaluation) {
  // Each binding doubles the string; concatenation costs a tenth of its
  // bytes. Bindings are lazy: only the ones used are computed.
  auto chain = [](int n, const std::string& body) {
    std::string expr = body;
    for (int i = n; i >= 1; --i) {
      std::string prev = i == 1 ? "\"xxxxxxxxxx\"" : "s" + std::to_string(i - 1);
      expr = "cel.bind(s" + std::to_string(i) + ", " + prev + " + " + prev + ", " + expr + ")";
    }
    return expr;
  };
  EXPECT_TRUE(Match(chain(30, "true")));
  EXPECT_TRUE(Match(chain(18, "size(s18) > 0")));
  std::string err = EvalError(chain(20, "size(s20) > 0 || true"));
  EXPECT_NE(err.find("cost limit exceeded"), std::string::npos) << err;
  // A search that keeps many threads alive over a long text is work too.
  EXPECT_TRUE(Match(chain(16, "!s16.matches(\"y{1000}\")")));
  err = EvalError(chain(16, "s16.matches(\".{1000}y\") || true"));
  EXPECT_NE(err.find("cost limit exceeded"), std::string::npos) << err;
  EXPECT_TRUE(Match("cel.bind(x, 1 / 0, true)"));
  EXPECT_TRUE(Match("cel.bind(x, 1, cel.bind(x, x + 1, x == 2))"));
  CompileOptions generous;
  generous.cost_limit = UINT64_MAX;
  auto p = Program::Compile(R"(cel.bind(a, "xxxxxxxxxx", cel.bind(b, a + a, size(b) == 20)))", generous);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(*p->Matches(TestGpu()));
}

// cel-go 0.26 (Kubernetes 1.34-1.36) against 0.29 (1.37): an empty
// substring's offset.
TEST(ProgramTest, EmptySubstringOffsetsByCelRelease) {
  CompileOptions checked;
  checked.checked_empty_substring_offsets = true;
  auto eval = [](const std::string& expr, const CompileOptions& options) {
    auto p = Program::Compile(expr, options);
    if (!p.ok()) return std::string("compile: ") + std::string(p.status().message());
    auto m = p->Matches(TestGpu());
    return m.ok() ? std::string(*m ? "true" : "false") : std::string(m.status().message());
  };
  EXPECT_EQ(eval(R"("abc".indexOf("", -1) == -1)", {}), "true");
  EXPECT_NE(eval(R"("abc".indexOf("", -1) == -1)", checked).find("index out of range: -1"), std::string::npos);
  EXPECT_EQ(eval(R"("abc".indexOf("", 7) == 7)", {}), "true");
  EXPECT_EQ(eval(R"("abc".indexOf("", 7) == 3)", checked), "true");
  EXPECT_EQ(eval(R"("abc".lastIndexOf("", 9) == 3)", checked), "true");
  EXPECT_NE(eval(R"("abc".lastIndexOf("", -2) == 0)", checked).find("index out of range: -2"), std::string::npos);
  EXPECT_EQ(eval(R"("abc".indexOf("b", 1) == 1)", checked), "true");
}

TEST(ProgramTest, MatchesIsSafeFromManyThreads) {
  auto p = Program::Compile(
      R"(device.capacity["dra.example.com"].slices.add(1).isGreaterThan(quantity("1Gi")) && device.attributes["gpu.example.com"].cores > 100)");
  ASSERT_TRUE(p.ok());
  std::vector<std::thread> threads;
  std::vector<int> matches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Device d = TestGpu();
      for (int i = 0; i < 200; ++i) matches[t] += *p->Matches(d) ? 1 : 0;
    });
  }
  for (auto& th : threads) th.join();
  for (int m : matches) EXPECT_EQ(m, 200);
}

}  // namespace
}  // namespace ksched::cel
