// Kubernetes' lists library, cel-go's lists extension (sortBy included),
// the regex library's find/findAll and strings.quote, each checked against
// what Kubernetes answers (test/k8s/celcompare probes), and the version
// switches that change them.
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
using test::TestGpu;

CompileOptions V36() {
  CompileOptions o;
  o.includes = true;
  return o;
}

CompileOptions V37() {
  CompileOptions o = V36();
  o.checked_empty_substring_offsets = true;
  o.includes_unbounded = true;
  o.bounded_lists_range = true;
  o.dyn_attributes = true;
  return o;
}

TEST(ListsLibraryTest, IsSortedSumMinMax) {
  EXPECT_TRUE(Match("[1, 2, 2].isSorted() && ![2, 1].isSorted() && [].isSorted()"));
  EXPECT_TRUE(Match(R"(["a", "b"].isSorted() && [false, true].isSorted())"));
  // Across numeric kinds as CEL orders them; other mixes are not compared.
  EXPECT_TRUE(Match("[dyn(1), dyn(2.0)].isSorted() && ![dyn(1), dyn(0.5)].isSorted()"));
  EXPECT_TRUE(Match(R"([dyn(1), dyn("a")].isSorted())"));
  EXPECT_TRUE(Match("[1, 2, 3].sum() == 6 && [1u, 2u].sum() == 3u && [0.5, 0.25].sum() == 0.75 && [].sum() == 0"));
  EXPECT_TRUE(Match("[dyn(1.5)].sum() == 1.5"));  // the overload of the first element
  EXPECT_TRUE(Has(EvalError("[dyn(1), dyn(2.5)].sum() == 3.5"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("[9223372036854775807, 1].sum() == 0"), "overflow"));
  EXPECT_TRUE(Has(EvalError(R"(dyn(["a"]).sum() == "a")"), "no such overload"));
  EXPECT_TRUE(Match("[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3 && [dyn(2), dyn(1.5)].min() == 1.5"));
  EXPECT_TRUE(Match(R"(["b", "a"].min() == "a" && [dyn(2), dyn("a")].min() == 2)"));
  EXPECT_TRUE(Has(EvalError("[].min() == 1"), "min called on empty list"));
  EXPECT_TRUE(Has(EvalError("dyn([[1]]).max() == [1]"), "no such overload"));
  EXPECT_TRUE(Has(CompileError("[[1]].isSorted()"), "no matching overload"));
  EXPECT_TRUE(Has(CompileError("[1].sum(1) == 1"), "no matching overload"));
  EXPECT_TRUE(Has(CompileError(R"([quantity("1")].sum() == quantity("1"))"), "no matching overload"));
}

TEST(ListsLibraryTest, IndexOfAndIncludes) {
  EXPECT_TRUE(Match("[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2 && [1].indexOf(5) == -1"));
  EXPECT_TRUE(Match(R"(dyn([1, 2]).indexOf(2) == 1 && dyn("abc").indexOf("b") == 1 && [dyn(1)].indexOf("a") == -1)"));
  EXPECT_TRUE(Has(CompileError(R"([1].indexOf("a") == -1)"), "no matching overload"));
  // includes() is 1.36's: undeclared before.
  EXPECT_TRUE(Has(CompileError("[1, 2].includes(2)"), "undeclared reference to 'includes'"));
  EXPECT_TRUE(Match(R"([1, 2].includes(2) && !["a"].includes("b") && 7.includes(7) && dyn([[1]]).includes([1]))", V36()));
  EXPECT_TRUE(Match(R"(device.attributes["gpu.example.com"].count.includes(7))", V36()));
  // 1.36 refuses lists past 48 elements unless the value came earlier.
  EXPECT_TRUE(Match("lists.range(60).includes(3)", V36()));
  EXPECT_TRUE(Has(EvalError("lists.range(60).includes(50)", V36()), "longer than 48"));
  EXPECT_TRUE(Match("lists.range(60).includes(50)", V37()));
}

TEST(ListsExtensionTest, SliceFlattenReverseDistinctRange) {
  EXPECT_TRUE(Match("[1, 2, 3].slice(1, 2) == [2] && [1, 2].slice(0, 0) == [] && [1, 2].slice(0, 2) == [1, 2]"));
  EXPECT_TRUE(Has(EvalError("[1, 2, 3].slice(2, 1) == []"), "start index must be less than or equal"));
  EXPECT_TRUE(Has(EvalError("[1].slice(-1, 1) == []"), "negative indexes"));
  EXPECT_TRUE(Has(EvalError("[1].slice(0, 2) == []"), "list is length 1"));
  EXPECT_TRUE(Match("[[1, 2], [3]].flatten() == [1, 2, 3] && dyn([1]).flatten() == [1]"));
  EXPECT_TRUE(Match("[dyn(1), dyn([dyn(2), dyn([3])])].flatten(1)[2] == [3]"));
  EXPECT_TRUE(Match("[dyn(1), dyn([dyn(2), dyn([3])])].flatten(2) == [1, 2, 3]"));
  EXPECT_TRUE(Has(EvalError("[dyn(1), dyn([2])].flatten(-1) == [1]"), "level must be non-negative"));
  EXPECT_TRUE(Has(CompileError("[1].flatten() == [1]"), "no matching overload"));
  // Flattening a list(dyn) leaves the element type to the next generic
  // function, which binds it to int as cel-go does.
  EXPECT_TRUE(Match(R"([dyn("a")].flatten() == ["a"] && [[dyn("a")]].flatten().sort() == ["a"])"));
  EXPECT_TRUE(Has(CompileError(R"([dyn([dyn("a")])].flatten().sort() == ["a"])"), "applied to '(list(int), list(string))'"));
  // isSorted, sum, min and max of a list whose element type is still free
  // take their int overload, whose type guard refuses other elements.
  EXPECT_TRUE(Has(EvalError(R"(dyn(["b", "a"]).distinct().isSorted())"), "no such overload: isSorted(list)"));
  EXPECT_TRUE(Match(R"(dyn([2, 1]).reverse().min() == 1 && dyn([]).reverse().isSorted() && [].isSorted())"));
  EXPECT_FALSE(Match(R"(dyn(["b", "a"]).isSorted())"));
  EXPECT_TRUE(Match(R"(dyn(["b", "a"]).reverse().sort() == dyn(["a", "b"]))"));
  // dyn + list(A) is list(A).
  EXPECT_TRUE(Has(CompileError(R"(dyn([1]) + [1] == ["a"])"), "applied to '(list(int), list(string))'"));
  EXPECT_TRUE(Has(CompileError(R"([1] + dyn([1]) == ["a"])"), "applied to '(list(int), list(string))'"));
  EXPECT_FALSE(Match(R"([dyn(1)] + [1] == ["a"] || dyn([1]) + dyn([1]) == ["a"])"));
  EXPECT_TRUE(Match("[1, 2, 3].reverse() == [3, 2, 1] && [].reverse() == []"));
  EXPECT_TRUE(Has(CompileError(R"("abc".reverse() == "cba")"), "no matching overload"));
  EXPECT_TRUE(Match("[1, 1, 2, 1].distinct() == [1, 2] && [dyn(1.0), dyn(1)].distinct() == [1.0]"));
  EXPECT_TRUE(Match("lists.range(3) == [0, 1, 2] && lists.range(0) == []"));
  // cel-go 0.26 (to 1.36) gives an empty list for a negative size; 0.29
  // (1.37) refuses it and anything past a million.
  EXPECT_TRUE(Match("lists.range(-1) == []"));
  EXPECT_TRUE(Has(EvalError("lists.range(-1) == []", V37()), "size must be non-negative"));
  EXPECT_TRUE(Has(EvalError("lists.range(1000001).size() > 0", V37()), "exceeds maximum allowed"));
  // Without the bound, the cost limit stops a huge range before it exists.
  EXPECT_TRUE(Has(EvalError("lists.range(9223372036854775807).size() > 0"), "cost limit"));
}

TEST(ListsExtensionTest, SortAndSortBy) {
  EXPECT_TRUE(Match(R"([2, 1].sort() == [1, 2] && ["b", "a"].sort() == ["a", "b"] && [].sort() == [])"));
  EXPECT_TRUE(Match("dyn([2, 1]).sort() == [1, 2]"));
  EXPECT_TRUE(Has(EvalError("[dyn(1), dyn(1u)].sort() == [1, 1]"), "must have the same type"));
  EXPECT_TRUE(Has(EvalError("[dyn({})].sort() == [{}]"), "must be comparable"));
  EXPECT_TRUE(Has(EvalError("dyn(1).sort() == [1]"), "no such overload"));
  EXPECT_TRUE(Has(CompileError("[[1]].sort() == [[1]]"), "no matching overload"));
  EXPECT_TRUE(Match("[3, 1, 2].sortBy(x, -x) == [3, 2, 1] && [3, 1, 2].sortBy(x, dyn(x)) == [1, 2, 3]"));
  // Stable: equal keys keep their order.
  EXPECT_TRUE(Match("[2, 1, 4, 3].sortBy(x, x % 2) == [2, 4, 1, 3]"));
  EXPECT_TRUE(Match(R"(["b", "a"].sortBy(x, x).sortBy(y, 1) == ["a", "b"])"));
  EXPECT_TRUE(Has(CompileError(R"("ab".sortBy(x, x) == "ab")"), "sortBy can only be applied"));
  EXPECT_TRUE(Has(CompileError("{1: 2}.sortBy(x, x) == [1]"), "sortBy can only be applied"));
  EXPECT_TRUE(Has(CompileError("[1, 2].sortBy(x, [x]) == [1, 2]"), "no matching overload"));
  EXPECT_TRUE(Has(CompileError("[1, 2].sortBy(1, 1) == [1, 2]"), "not an identifier"));
  EXPECT_TRUE(Has(EvalError("[1, 2].sortBy(x, x == 1 ? dyn(1) : dyn(1u)) == [1, 2]"), "same type"));
  // Sorting costs twice the size squared, as in cel-go.
  EXPECT_TRUE(Has(EvalError("lists.range(1000).sort().size() > 0"), "cost limit"));
  EXPECT_TRUE(Match("lists.range(500).sort().size() == 500"));
}

// What ends a whole evaluation in Kubernetes, where || cannot absorb it.
TEST(ListsExtensionTest, AbortsAsKubernetesDoes) {
  // cel-go's cost trackers of sort, distinct and sortBy panic on an error.
  EXPECT_TRUE(Has(EvalError("[1/0].sort() == [] || true"), "internal error"));
  EXPECT_TRUE(Has(EvalError("[1/0].distinct() == [] || true"), "internal error"));
  EXPECT_TRUE(Has(EvalError("[0, 1].sortBy(x, 10 / x) == [] || true"), "internal error"));
  EXPECT_TRUE(Has(EvalError("dyn(1).distinct() == [] || true"), "internal error"));
  EXPECT_TRUE(Match("[1/0].reverse() == [] || true"));
  EXPECT_TRUE(Match("dyn(1).sort() == [] || true"));
  // Every argument is evaluated even after one failed, so a later one's
  // cost still counts.
  EXPECT_TRUE(Has(EvalError("[1].slice(-1, 0) == lists.range(1000).sort() || true"), "cost limit"));
}

// The result types cel-go's checker gives generic list functions, seen
// through what may be compared with them.
TEST(ListsExtensionTest, ResultTypes) {
  // Over list(dyn) several overloads match with different results: dyn.
  EXPECT_FALSE(Match("[dyn(1)].sort() == 1"));
  EXPECT_FALSE(Match(R"([dyn(1)].sum() == "a")"));
  EXPECT_TRUE(Has(CompileError("[dyn(1)].sortBy(x, x) == 1"), "'(list(dyn), int)'"));
  // Over a dyn receiver, a single-overload function's list(T) leaves T
  // open; the next templated function binds it to int.
  EXPECT_TRUE(Has(CompileError("dyn([1]).slice(0, 1) == 1"), "'(list(dyn), int)'"));
  EXPECT_TRUE(Has(CompileError(R"(dyn(["b"]).slice(0, 1).sortBy(x, x) == ["b"])"), "'(list(int), list(string))'"));
  EXPECT_TRUE(Match(R"(dyn(["b", "a"]).sortBy(x, size(x)) == ["b", "a"])"));
  EXPECT_FALSE(Match("dyn([1]).sortBy(x, x) == 1"));  // dyn: several overloads
  // So does an empty list literal's element type.
  EXPECT_TRUE(Has(CompileError("[].sort() == 1"), "'(list(int), int)'"));
  EXPECT_TRUE(Has(CompileError("[].sum() == 0.0"), "'(int, double)'"));
  EXPECT_TRUE(Match(R"([[], [1]] == [[1]] || [] + ["a"] == ["a"])"));
}

TEST(RegexLibraryTest, FindAndFindAll) {
  EXPECT_TRUE(Match(R"("abc".find("b") == "b" && "abc".find("x") == "" && "a1b22".find("[0-9]+") == "1")"));
  // Leftmost-first: alternation prefers its first branch, greed its longest.
  EXPECT_TRUE(Match(R"("abab".find("a|ab") == "a" && "aaa".find("a+?") == "a" && "aaa".find("a+") == "aaa")"));
  EXPECT_TRUE(Match(R"("abc".findAll("[a-c]") == ["a", "b", "c"] && "a1b22".findAll("[0-9]+", 1) == ["1"])"));
  // An empty match right after a match is skipped, as Go's FindAllString does.
  EXPECT_TRUE(Match(R"("a1b22".findAll("[0-9]*") == ["", "1", "22"])"));
  EXPECT_TRUE(Match(R"("abc".findAll("") == ["", "", "", ""] && "abc".findAll("b", 0) == [])"));
  EXPECT_TRUE(Match(R"("x日本y".find("本.") == "本y" && "ab ab".findAll("\\bab") == ["ab", "ab"])"));
  EXPECT_TRUE(Has(CompileError(R"("abc".find("(") == "")"), "missing closing"));
  EXPECT_TRUE(Has(EvalError(R"("abc".find(device.attributes["gpu.example.com"].model + "(") == "")"), "Illegal regex"));
}

TEST(StringsLibraryTest, Quote) {
  EXPECT_TRUE(Match(R"(strings.quote("a\"b") == "\"a\\\"b\"" && strings.quote("") == "\"\"")"));
  EXPECT_TRUE(Match(R"(strings.quote("a\nb\t\\") == "\"a\\nb\\t\\\\\"" && strings.quote("ü") == "\"ü\"")"));
  EXPECT_TRUE(Has(CompileError(R"(strings.quote(1) == "1")"), "no matching overload"));
}

TEST(AttributeTypesTest, DynFrom137) {
  const char* mixed = R"([device.attributes["gpu.example.com"].count, 1] == [7, 1])";
  // Before 1.37 attributes are `any`, which mixes with nothing in a literal...
  EXPECT_TRUE(Has(CompileError(mixed), "expected type"));
  // ...and from 1.37 `dyn`, which mixes with nothing either, but a selector
  // may now evaluate to dyn rather than any.
  EXPECT_TRUE(Has(CompileError(mixed, V37()), "expected type 'dyn'"));
  EXPECT_TRUE(Match(R"([device.attributes["gpu.example.com"].count, dyn(1)] == [7, 1])", V37()));
  EXPECT_TRUE(Has(CompileError(R"([device.attributes["gpu.example.com"].count, dyn(1)] == [7, 1])"), "expected type"));
  // A comprehension may range over a dyn attribute (a run-time error here).
  EXPECT_TRUE(Has(CompileError(R"(device.attributes["gpu.example.com"].count.exists(x, true))"), "cannot be the range"));
  EXPECT_TRUE(Has(EvalError(R"(device.attributes["gpu.example.com"].count.exists(x, true))", V37()), "range"));
}

}  // namespace
}  // namespace ksched::cel

namespace ksched::cel {
namespace {

// To 1.36, sub() on a quantity in decimal form (1.5Gi parses to one)
// changed the receiver through the decimal they shared; 1.37 deep-copies.
TEST(QuantityTest, SubLeavesTheReceiverFrom137) {
  Device d;
  d.driver = "gpu.example.com";
  d.capacity["bandwidth"] = "1.5Gi";
  const std::string expr =
      R"(cel.bind(b, device.capacity["gpu.example.com"].bandwidth, b.isGreaterThan(b.sub(quantity("1e3")))))";
  CompileOptions v37;
  v37.quantity_deep_copy = true;
  auto old_program = Program::Compile(expr);
  auto new_program = Program::Compile(expr, v37);
  ASSERT_TRUE(old_program.ok() && new_program.ok());
  auto old_result = old_program->Matches(d);
  auto new_result = new_program->Matches(d);
  ASSERT_TRUE(old_result.ok() && new_result.ok());
  EXPECT_FALSE(*old_result);
  EXPECT_TRUE(*new_result);
}

}  // namespace
}  // namespace ksched::cel
