// CEL's optional values: the syntax (.?, [?], ?-entries, optMap,
// optFlatMap), the library's functions and their types, each checked
// against what Kubernetes answers (test/k8s/celcompare probes).
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

constexpr char kGpu[] = R"(device.attributes["gpu.example.com"])";

std::string Gpu(const std::string& rest) { return kGpu + rest; }

TEST(OptionalTest, FieldSelectionIsPresentOrNone) {
  EXPECT_TRUE(Match(Gpu(".?model.hasValue()")));
  EXPECT_TRUE(Match(Gpu(".?model.value() == \"a100\"")));
  EXPECT_FALSE(Match(Gpu(".?nope.hasValue()")));
  EXPECT_TRUE(Match(Gpu(".?nope.orValue(\"x\") == \"x\"")));
  EXPECT_TRUE(Match(Gpu(". ?model.hasValue()")));  // two tokens, as CEL's grammar allows
  EXPECT_TRUE(Match(Gpu(".?count.orValue(0) > 3")));
  EXPECT_TRUE(Match(R"(device.capacity["gpu.example.com"].?memory.value().isGreaterThan(quantity("1")))"));
  // The device's maps answer any domain, as an empty map.
  EXPECT_TRUE(Match(R"(device.attributes[?"missing.example.com"].value() == {})"));
  EXPECT_TRUE(Match(R"(device.?driver.value() == "gpu.example.com" && device.?attributes.hasValue())"));
  EXPECT_TRUE(Has(EvalError(Gpu(".?nope.value() == \"x\"")), "optional.none() dereference"));
  // A value without fields has none; a list refuses a field name.
  EXPECT_FALSE(Match("dyn(1).?a.hasValue() || dyn(\"x\").?a.hasValue()"));
  EXPECT_TRUE(Has(EvalError("dyn([1]).?a.hasValue()"), "unsupported index type"));
  EXPECT_TRUE(Has(CompileError("optional.of(1).?a.hasValue()"), "does not support field selection"));
  EXPECT_TRUE(Has(CompileError("[1].?a.hasValue()"), "does not support field selection"));
  EXPECT_TRUE(Has(CompileError("device.?nope.hasValue()"), "undefined field"));
}

TEST(OptionalTest, EverySelectionAfterAnOptionalOneIsOptional) {
  EXPECT_TRUE(Match(R"({"a": {"b": 1}}.?a.b.value() == 1)"));
  EXPECT_FALSE(Match(R"({"a": {"b": 1}}.?a.c.hasValue())"));
  EXPECT_TRUE(Match(R"(device.attributes[?"gpu.example.com"].model.value() == "a100")"));
  EXPECT_FALSE(Match(R"(device.attributes[?"gpu.example.com"].nope.hasValue())"));
  EXPECT_TRUE(Match(R"(optional.of({"a": {"b": 1}}).a.b.value() == 1)"));
  EXPECT_FALSE(Match(R"(optional.of({"a": {"b": 1}})["a"]["c"].hasValue())"));
  EXPECT_FALSE(Match(R"({"a": [1]}.?a[3].hasValue())"));
  EXPECT_TRUE(Match(R"(dyn(optional.of({"x": 1})).x.value() == 1)"));
  EXPECT_TRUE(Has(CompileError(Gpu(".?model")), "must evaluate to bool"));
  EXPECT_TRUE(Has(CompileError("has(device.?driver)"), "invalid argument to has()"));
}

// has() of a field of an optional value is the field's presence (never its
// value), false for optional.none(); what Kubernetes answers at 1.35-1.37.
TEST(OptionalTest, HasOfAnOptionalsFieldIsItsPresence) {
  EXPECT_TRUE(Match(R"(has({"a": {"b": false}}.?a.b))"));
  EXPECT_FALSE(Match(R"(has({"a": {"b": 1}}.?a.c) || has({"a": {"b": 1}}.?x.b))"));
  EXPECT_TRUE(Match(R"(has({"a": {"b": {"c": 1}}}.?a.b.c) && !has({"a": {"b": {"c": 1}}}.?a.x.c))"));
  EXPECT_TRUE(Match(Gpu(".?model") + " != optional.none() && has(device.?attributes[\"gpu.example.com\"].model)"));
  EXPECT_FALSE(Match("has(device.?attributes[\"gpu.example.com\"].nope)"));
  // The device's maps have every domain, as an empty map.
  EXPECT_TRUE(Match("has(device.?attributes.b) && has(device.attributes[?\"x.example.com\"].a) == false"));
  EXPECT_TRUE(Match(R"(has(dyn(optional.of({"x": false})).x) && !has(optional.none().x))"));
  EXPECT_TRUE(Match(R"([{"b": 1}][?0].b == optional.of(1) && has([{"b": false}][?0].b))"));
  // A value without fields has none, an optional held in a map included.
  EXPECT_FALSE(Match(R"(has({"a": dyn(1)}.?a.b) || has({"a": dyn(optional.of({"b": 1}))}.?a.b))"));
  EXPECT_FALSE(Match(R"(has({"a": {1: 1}}.?a.b))"));
  // A list refuses a field name, with or without an optional.
  EXPECT_TRUE(Has(EvalError(R"(has({"a": dyn([1])}.?a.b))"), "unsupported index type 'string' in list"));
  EXPECT_TRUE(Has(EvalError(R"(has(dyn([1]).b))"), "unsupported index type 'string' in list"));
  EXPECT_TRUE(Has(EvalError(R"(has({"a": {"b": 1 / 0}}.?a.b))"), "division by zero"));
  EXPECT_TRUE(Has(CompileError(R"(has({"a": 1}.?a.b))"), "1:4: type 'int' does not support field selection"));
  EXPECT_TRUE(Has(CompileError(R"(has({"a": optional.of({"b": false})}.?a.b))"),
                  "type 'optional_type(map(string, bool))' does not support field selection"));
  EXPECT_TRUE(Has(CompileError(R"(has({"a": {"b": 1}}.?a.b) == 1)"), "no matching overload for '_==_' applied to '(bool, int)'"));
}

// A chain of selections and indexes is resolved as cel-go resolves an
// attribute: an optional value it starts from is unwrapped, one met inside
// it (a map's or list's entry) is not, and has no fields.
TEST(OptionalTest, AnOptionalInsideAChainIsNotUnwrapped) {
  EXPECT_TRUE(Has(EvalError(R"({"a": optional.of({"b": 1})}.a.b.value() == 1)"), "no such key"));
  EXPECT_TRUE(Has(EvalError(R"([optional.of({"b": 1})][0].b.hasValue())"), "no such key: b"));
  EXPECT_TRUE(Has(EvalError(R"({"a": optional.none()}.a.b.hasValue())"), "no such key: b"));
  EXPECT_FALSE(Match(R"({"a": optional.of({"b": 1})}.a.?b.hasValue())"));
  EXPECT_FALSE(Match(R"(has({"a": optional.of({"b": 1})}.a.b) || has({"a": dyn(optional.of({"b": 1}))}.a.b))"));
  EXPECT_FALSE(Match(R"(cel.bind(m, {"a": optional.of({"b": 1})}, has(m.a.b)))"));
  // Where the chain starts from the optional, it is unwrapped.
  EXPECT_TRUE(Match(R"(cel.bind(o, optional.of({"b": 1}), o.b.value() == 1 && has(o.b)))"));
  EXPECT_TRUE(Match(R"(dyn({"a": optional.of({"b": 1})}.a).b.value() == 1)"));
  // A ?: passes the chain on to its branch.
  EXPECT_TRUE(Has(EvalError(R"((true ? {"a": optional.of({"b": 1})}.a : optional.none()).b.hasValue())"),
                  "no such key: b"));
  EXPECT_TRUE(Match(R"((false ? optional.none() : optional.of({"b": 1})).b.hasValue())"));
}

// cel-go reads a branch of ?: and an index as an attribute, where has() in
// an optional chain is the field's value as an optional, not a bool. As a
// selector's result it is converted as Kubernetes converts it to a bool:
// the value it holds.
TEST(OptionalTest, HasAsABranchOfATernaryIsTheFieldsOptionalValue) {
  EXPECT_TRUE(Has(EvalError(R"(true ? has({"a": {"b": 1}}.?a.b) : false)"), "the result is a int, not a bool"));
  EXPECT_TRUE(Match(R"(true ? has({"a": {"b": true}}.?a.b) : false)"));
  EXPECT_FALSE(Match(R"(true ? has(optional.of({"b": false}).b) : true)"));
  EXPECT_TRUE(Has(EvalError(R"(true ? has({"a": {}}.?a.b) : false)"), "the result is optional.none(), not a bool"));
  EXPECT_TRUE(Match(R"(type(true ? has({"a": {"b": 1}}.?a.b) : false) == optional_type)"));
  EXPECT_TRUE(Match(R"(type(false ? true : (true ? has(optional.of({"x": 5}).x) : false)) == optional_type)"));
  EXPECT_FALSE(Match(R"((true ? has({"a": {"b": 1}}.?a.c) : false) == false)"));  // optional.none(), not false
  EXPECT_TRUE(Match(R"((true ? has({"a": {"b": 1}}.?a.b) : false) || true)"));
  EXPECT_TRUE(Has(EvalError(R"((true ? has({"a": {"b": 1}}.?a.b) : false) && true)"), "no such overload"));
  EXPECT_TRUE(Has(EvalError(R"({true: 1}[has({"a": {"b": 1}}.?a.b)] == 1)"), "invalid qualifier type: *types.Optional"));
  // Outside an optional chain, or not directly a branch, it is a bool.
  EXPECT_TRUE(Match(R"((true ? has({"x": 5}.x) : false) == true && (true ? !has({"a": {"b": 1}}.?a.b) : true) == false)"));
  EXPECT_TRUE(Match(R"([has({"a": {"b": 1}}.?a.b)] == [true] && cel.bind(h, has({"a": {"b": 1}}.?a.b), h))"));
}

TEST(OptionalTest, IndexIsPresentOrNone) {
  EXPECT_FALSE(Match("[1, 2][?5].hasValue() || [1, 2][?-1].hasValue()"));
  EXPECT_TRUE(Match("[1, 2][?1].value() == 2 && [1][ ?0].hasValue()"));
  EXPECT_TRUE(Match(R"({"a": 1}[?"a"].value() == 1)"));
  EXPECT_TRUE(Match(Gpu("[?\"nope\"].orValue(\"zz\").startsWith(\"z\")")));
  EXPECT_TRUE(Match("optional.of([1])[0].value() == 1 && !optional.of([1])[3].hasValue()"));
  EXPECT_TRUE(Match("[[1]][?0][?0].value() == 1"));
  // optional.none()'s index is not evaluated.
  EXPECT_FALSE(Match("optional.none()[1 / 0].hasValue()"));
  EXPECT_TRUE(Has(EvalError("optional.of([1])[1 / 0].hasValue()"), "division by zero"));
  EXPECT_TRUE(Has(CompileError("[1, 2][?1.0].hasValue()"), "no matching overload"));
  EXPECT_TRUE(Has(CompileError(R"({"a": 1}[?1].hasValue())"), "no matching overload"));
}

TEST(OptionalTest, OfNoneAndZeroValues) {
  EXPECT_TRUE(Match("optional.of(1).value() == 1 && optional.of(null).hasValue() && !optional.none().hasValue()"));
  EXPECT_TRUE(Has(EvalError("optional.none().value() == 1"), "optional.none() dereference"));
  for (const char* zero : {"0", "0u", "0.0", "-0.0", "false", "\"\"", "null", "[]", "{}"}) {
    EXPECT_FALSE(Match(std::string("optional.ofNonZeroValue(") + zero + ").hasValue()")) << zero;
  }
  // Kubernetes' own map type (device.attributes), its Quantity and an
  // optional are never zero values.
  EXPECT_TRUE(Match("optional.ofNonZeroValue(device.attributes).hasValue()"));
  EXPECT_FALSE(Match(R"(optional.ofNonZeroValue(device.attributes["missing.example.com"]).hasValue())"));
  EXPECT_TRUE(Match(R"(optional.ofNonZeroValue(quantity("0")).hasValue())"));
  EXPECT_TRUE(Match("optional.ofNonZeroValue(optional.none()).hasValue()"));
  EXPECT_TRUE(Has(EvalError(Gpu("[\"nope\"]") + " == optional.of(1).value()"), "no such key"));
}

TEST(OptionalTest, OrAndOrValueEvaluateTheirArgumentOnlyWhenNeeded) {
  EXPECT_TRUE(Match("optional.none().or(optional.of(true)).value()"));
  EXPECT_FALSE(Match("optional.of(false).or(optional.none().value()).value()"));
  EXPECT_TRUE(Match("optional.of(true).orValue(1 / 0 == 1)"));
  EXPECT_TRUE(Has(EvalError("optional.none().orValue(1 / 0 == 1)"), "division by zero"));
  EXPECT_TRUE(Match("dyn(optional.none()).orValue(true)"));
  EXPECT_TRUE(Has(EvalError("dyn(1).orValue(true)"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("dyn(1).hasValue()"), "no such overload"));
  // optional.none() binds its type to the other operand's.
  EXPECT_TRUE(Match("[optional.none().orValue(1), 2] == [1, 2]"));
  EXPECT_TRUE(Match("optional.none().orValue(true)", CompileOptions{}));
  EXPECT_FALSE(Match(R"(optional.of(dyn(1)).orValue("a") == "a")"));
  EXPECT_TRUE(Has(CompileError(R"(optional.of(1).orValue("a") == "a")"), "no matching overload"));
  EXPECT_TRUE(Has(CompileError("optional.of(1).or(optional.of(\"a\")).hasValue()"), "no matching overload"));
  // The held type widens to the less specific one: int and dyn make dyn,
  // which a list of ints refuses.
  EXPECT_TRUE(Has(CompileError(Gpu(".count == [1, optional.of(3).orValue(") + kGpu + ".index)][0]"),
                  "expected type 'int' but found 'any'"));
}

// A receiver that is not an optional: 1.35 and 1.36 pass it through
// (before looking at the argument), 1.37 fails.
TEST(OptionalTest, OrOfANonOptionalFollowsTheRelease) {
  const CompileOptions before = test::ReleaseOptions(36);
  EXPECT_TRUE(Match("dyn(true).orValue(1 / 0 == 1) && type(dyn(true).or(optional.none())) == bool", before));
  EXPECT_TRUE(Match("type(null.orValue(1)) == null_type && null.or(optional.of(1)) == null", before));
  EXPECT_TRUE(Has(EvalError("dyn(1 / 0).orValue(1) == 1", before), "division by zero"));
  EXPECT_TRUE(Has(EvalError("dyn(true).orValue(false)"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("null.or(optional.of(1)) == null"), "no such overload"));
}

TEST(OptionalTest, Equality) {
  EXPECT_TRUE(Match("optional.of(1) == optional.of(1) && optional.none() == optional.none()"));
  EXPECT_TRUE(Match("optional.of(1) != optional.none() && optional.of(1) in [optional.of(1)]"));
  EXPECT_FALSE(Match("dyn(optional.of(1)) == 1 || 1 == dyn(optional.of(1)) || dyn(optional.none()) == null"));
  EXPECT_TRUE(Has(CompileError("optional.of(1) == optional.of(1.0)"), "no matching overload"));
}

TEST(OptionalTest, OptionalEntriesOfListsAndMaps) {
  EXPECT_TRUE(Match("[?optional.of(1), ?optional.none(), 3] == [1, 3] && [ ?optional.of(1)] == [1]"));
  EXPECT_TRUE(Match(R"({?"a": optional.of(1), ?"b": optional.none()} == {"a": 1})"));
  EXPECT_TRUE(Match("{1: 2, ?1: optional.of(3)}[1] == 3 && {1: 2, ?1: optional.none()}[1] == 2"));
  // Kubernetes' compiler panics on a `?` entry of type dyn (cel-go's
  // homogeneous-literal validator), but not inside format(), which that
  // validator skips.
  EXPECT_TRUE(Has(CompileError("[?dyn(optional.of(1))] == [1]"), "Kubernetes' compiler panics"));
  EXPECT_TRUE(Has(CompileError(R"({?"k": dyn([1])[?1]}.size() == 0)"), "Kubernetes' compiler panics"));
  EXPECT_TRUE(Match(R"("%s".format([[?dyn(optional.of(1))]]) == "[1]")"));
  EXPECT_TRUE(Match(R"("%s".format([{?"k": dyn([1])[?1]}]) == "{}")"));
  EXPECT_TRUE(Has(EvalError(R"("%s".format([[?dyn(1)]]) == "[1]")"), "non-optional"));
  // dyn[?k] is dyn to cel-go's checker, an optional at run time.
  EXPECT_TRUE(Match(R"(dyn([1])[?0] == optional.of(1) && dyn({"a": 1})[?"a"].orValue(2) == 1)"));
  EXPECT_TRUE(Has(CompileError("[?1] == [1]"), "expected type 'optional_type(int)'"));
  // optional.none()'s held type is bound by the next entry.
  EXPECT_TRUE(Has(CompileError(std::string(R"([?{?"k": optional.none(), "j": )") + kGpu + R"(.model}.?k, "a"] == [])",
                               CompileOptions{.dyn_attributes = true}),
                  "expected type 'dyn' but found 'string'"));
}

TEST(OptionalTest, ListFunctions) {
  EXPECT_TRUE(Match("[1, 2, 3].first().orValue(0) + [4].last().orValue(0) == 5"));
  EXPECT_FALSE(Match("[].first().hasValue() || dyn([]).last().hasValue()"));
  EXPECT_TRUE(Match("[].last().orValue(1) == 1"));
  EXPECT_TRUE(Has(EvalError("dyn(\"ab\").first().hasValue()"), "no such overload"));
  EXPECT_TRUE(Match("optional.unwrap([optional.of(1), optional.none()]) == [1]"));
  EXPECT_TRUE(Match("[optional.of(1), optional.none()].unwrapOpt() == [1] && optional.unwrap([]) == []"));
  EXPECT_TRUE(Has(EvalError("[dyn(1)].unwrapOpt() == [1]"), "not optional"));
  EXPECT_TRUE(Has(CompileError("optional.unwrap([1]) == [1]"), "no matching overload"));
}

TEST(OptionalTest, OptMapAndOptFlatMap) {
  EXPECT_TRUE(Match(Gpu(".?model.optMap(m, m == \"a100\").value()")));
  EXPECT_FALSE(Match(Gpu(".?nope.optMap(m, m == \"a100\").orValue(false)")));
  EXPECT_TRUE(Match(Gpu(".?model.optFlatMap(m, optional.of(m == \"a100\")).value()")));
  EXPECT_TRUE(Match("optional.of(1).optMap(x, x).optMap(x, x + 1).value() == 2"));
  EXPECT_FALSE(Match(Gpu(".?nope.optMap(m, 1 / 0).hasValue()")));
  EXPECT_TRUE(Has(EvalError(Gpu(".?model.optMap(m, 1 / 0).hasValue()")), "division by zero"));
  EXPECT_TRUE(Has(CompileError(Gpu(".?model.optFlatMap(m, m == \"a100\").value()")), "optional"));
  EXPECT_TRUE(Has(CompileError("optional.of(1).optMap(1, 2).hasValue()"), "simple identifier"));
}

TEST(OptionalTest, TheUnknownTypeAtTheRootFollowsTheRelease) {
  // optional.none().value() is of the unknown type: dyn, which 1.37 accepts
  // at the root and earlier releases refuse.
  CompileOptions v37;
  v37.dyn_attributes = true;
  EXPECT_TRUE(Has(EvalError("optional.none().value()", v37), "optional.none() dereference"));
  EXPECT_TRUE(Has(CompileError("optional.none().value()"), "must evaluate to bool"));
}

}  // namespace
}  // namespace ksched::cel
