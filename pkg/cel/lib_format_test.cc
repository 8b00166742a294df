// cel-go's string.format as Kubernetes has it: every verb over every kind
// it takes, the en_US printer's %f and %e (with their precision quirks),
// lists and maps as literals, Go's quoting, the checker's refusals of
// literal calls and the run time's of the rest, the exemption of format's
// literals from the homogeneity rule, and the cost. Every expected value is
// Kubernetes' answer (celcompare's probe, at 1.37 and 1.35).
#include <string>

#include <gtest/gtest.h>

#include "pkg/cel/cel_test_util.h"
#include "pkg/cel/go_quote.h"
#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

using test::CompileError;
using test::EvalError;
using test::Has;
using test::Match;

// `expr` evaluates to the string `want` (given as a CEL literal).
void ExpectFormats(const std::string& expr, const std::string& want) {
  EXPECT_TRUE(Match(expr + " == " + want)) << expr;
}

TEST(GoQuoteTest, EscapesWhatGoDoesNotPrint) {
  EXPECT_EQ(GoQuote("a\"\\"), R"("a\"\\")");
  EXPECT_EQ(GoQuote("\t\n\x01\x7f"), R"("\t\n\x01\x7f")");
  EXPECT_EQ(GoQuote("é日本😀"), "\"é日本😀\"");
  // No-break space, soft hyphen, line separator, a tag: not printable.
  EXPECT_EQ(GoQuote("\u00a0\u00ad\u2028\U000e0001"), R"("\u00a0\u00ad\u2028\U000e0001")");
  // Bytes of invalid UTF-8 one by one; an encoded U+FFFD is printable.
  EXPECT_EQ(GoQuote("\xff\xc3(\xef\xbf\xbd"), "\"\\xff\\xc3(\xef\xbf\xbd\"");
  EXPECT_TRUE(GoIsPrint(' '));
  EXPECT_FALSE(GoIsPrint(0x85));
  EXPECT_TRUE(GoIsPrint(0x1F600));
  EXPECT_FALSE(GoIsPrint(0x10FFFF));
}

TEST(FormatTest, IntegerVerbs) {
  ExpectFormats(R"("%d %d %s %s".format([-42, 42u, -1, 18446744073709551615u]))", R"("-42 42 -1 18446744073709551615")");
  ExpectFormats(R"("%x %X %x %X".format([255, 255, -255, 3054u]))", R"("ff FF -ff BEE")");
  ExpectFormats(R"("%b %b %b %b".format([5, -5, 0u, true]))", R"("101 -101 0 1")");
  ExpectFormats(R"("%o %o".format([-8, 8u]))", R"("-10 10")");
  ExpectFormats(R"("%x".format([-9223372036854775807 - 1]))", R"("-8000000000000000")");
  ExpectFormats(R"("%x %X".format(["hi", b"\x01\xab"]))", R"("6869 01AB")");
  ExpectFormats(R"("%X".format(["é"]))", R"("C3A9")");
}

TEST(FormatTest, StringVerbPrintsTheConversion) {
  ExpectFormats(R"("%s|%s|%s|%s|%s".format(["a", true, null, 1.5, 1e21]))", R"("a|true|null|1.5|1e+21")");
  ExpectFormats(R"("%s %s".format([duration("1h2m3.5s"), timestamp("2020-01-01T00:00:00.5+05:30")]))",
                R"("3723.5s 2020-01-01T00:00:00.5+05:30")");
  ExpectFormats(R"("%s %s %s".format([int, type([1]), type(null)]))", R"("int list null_type")");
  ExpectFormats(R"("%s".format([b"\xc3\xa9"]))", R"("é")");
  EXPECT_TRUE(Has(EvalError(R"("%s".format([b"\xff"]) == "")"), "invalid UTF-8"));
  ExpectFormats(R"("a %% b %%%d%%".format([5]))", R"("a % b %5%")");
  ExpectFormats(R"("".format([]))", R"("")");
}

TEST(FormatTest, ListsAndMapsAsLiterals) {
  ExpectFormats(
      R"("%s".format([[1.5, "a", b"b", 1u, -2, true, null, double("inf"), duration("1s"), timestamp("2020-01-01T00:00:00Z"), int]]))",
      R"("[1.500000, \"a\", b\"b\", 1, -2, true, null, \"+Inf\", duration(\"1s\"), timestamp(\"2020-01-01T00:00:00Z\"), int]")");
  // Keys in the byte order of their text: quoted strings, numbers, bools.
  ExpectFormats(R"("%s".format([{"b": 1, "a": 2, 3: "x", true: 2.5, -1: [1], 10u: {}}]))",
                R"("{\"a\":2, \"b\":1, -1:[1], 10:{}, 3:\"x\", true:2.500000}")");
  ExpectFormats(R"("%s".format([["\t\u00a0é\"", -0.0, double("nan")]]))", R"("[\"\\t\\u00a0é\\\"\", -0.000000, \"NaN\"]")");
  EXPECT_TRUE(Has(EvalError(R"("%s".format([dyn({1.5: 1})]) == "")"), "map key of type double"));
  EXPECT_TRUE(Has(EvalError(R"("%s".format([[dyn(quantity("1"))]]) == "")"), "no formatting function for kubernetes.Quantity"));
}

TEST(FormatTest, FixedPointIsTheEnUsPrinters) {
  ExpectFormats(R"("%f".format([1234567.891]))", R"("1,234,567.891000")");
  ExpectFormats(R"("%.2f".format([-1234567.891]))", R"("-1,234,567.89")");
  ExpectFormats(R"("%.0f %.1f %.1f".format([2.5, 0.05, 0.25]))", R"("2 0.1 0.2")");
  ExpectFormats(R"("%f|%.7f".format([-0.0, -0.00000001]))", R"("0.000000|-0.0000000")");
  ExpectFormats(R"("%.3f".format([1e21]))", R"("1,000,000,000,000,000,000,000.000")");
  ExpectFormats(R"("%f %f %f %f".format(["NaN", "Infinity", "-Infinity", double("nan")]))", R"("NaN ∞ -∞ NaN")");
  // The printer keeps the precision's low 8 bits as the least number of
  // decimals and its low 16, signed, as the most (negative: shortest).
  ExpectFormats(R"("%.256f".format([1.0]))", R"("1")");
  ExpectFormats(R"("%.300f".format([1.0]))", R"("1.00000000000000000000000000000000000000000000")");
  ExpectFormats(R"("%.40000f".format([1.5]).size())", "66");
}

TEST(FormatTest, ScientificTakesThePrecisionAsAWidth) {
  ExpectFormats(R"("%e".format([2.71828]))", R"("2.718280×10⁰⁰")");
  ExpectFormats(R"("%e|%e".format([123456789.0, -1.5e-300]))", R"("1.234568×10⁰⁸|-1.500000×10⁻³⁰⁰")");
  ExpectFormats(R"("%e".format([9.9999999]))", R"("1.000000×10⁰¹")");
  ExpectFormats(R"("%.0e|%.3e|%.20e".format([2.5, 2.5, 2.5]))", R"("2.500000×10⁰⁰|2.500000×10⁰⁰|       2.500000×10⁰⁰")");
  ExpectFormats(R"("%e|%e|%.5e".format(["NaN", "Infinity", "-Infinity"]))", R"("   NaN|     ∞|   -∞")");
  ExpectFormats(R"("%.65536e".format([1.0]))", R"("1.000000×10⁰⁰")");
  EXPECT_TRUE(Has(EvalError(R"("%e".format(dyn(["inf"])) == "")"), "scientific clause can only be used on doubles"));
}

TEST(FormatTest, LiteralCallsAreCheckedAsTheyCompile) {
  EXPECT_TRUE(Has(CompileError(R"("%d".format([1.5]) == "")"), "decimal clause can only be used on integers"));
  EXPECT_TRUE(Has(CompileError(R"("%d %d".format([1]) == "")"), "index 1 out of range"));
  EXPECT_TRUE(Has(CompileError(R"("%d".format([1, 2]) == "")"), "too many arguments supplied to string.format"));
  EXPECT_TRUE(Has(CompileError(R"("%".format([1]) == "")"), "unexpected end of string"));
  EXPECT_TRUE(Has(CompileError(R"("%.f".format([1.0]) == "")"), R"(strconv.Atoi: parsing "": invalid syntax)"));
  EXPECT_TRUE(Has(CompileError(R"("%.".format([1.0]) == "")"), "could not find end of precision specifier"));
  EXPECT_TRUE(Has(CompileError(R"("%.99999999999999999999f".format([1.0]) == "")"), "value out of range"));
  EXPECT_TRUE(Has(CompileError(R"("%q".format([1.0]) == "")"), R"(unrecognized formatting clause "q")"));
  EXPECT_TRUE(Has(CompileError(R"("%é".format([1]) == "")"), R"(unrecognized formatting clause "Ã")"));
  EXPECT_TRUE(Has(CompileError(R"("%s".format([[optional.of(1)]]) == "")"), "string clause can only be used on"));
  EXPECT_TRUE(Has(CompileError(R"("%s".format([device]) == "")"), "string clause can only be used on"));
  // A string passes %f and %e as it compiles, whatever it holds.
  EXPECT_TRUE(Has(EvalError(R"("%f".format(["1.5"]) == "")"), "fixed-point clause"));
}

TEST(FormatTest, OtherCallsFailAsTheyRun) {
  // Not a literal list, or not a literal string: checked at run time,
  // where arguments left over are fine.
  ExpectFormats(R"("%d %s".format(dyn([1, "a", 3])))", R"("1 a")");
  ExpectFormats(R"(cel.bind(a, [1.5, 2.5], "%s".format(a)))", R"("1.5")");
  EXPECT_TRUE(Has(EvalError(R"(("%" + "d").format([1.5]) == "")"), "decimal clause"));
  EXPECT_TRUE(Has(EvalError(R"("%".format(dyn([])) == "")"), "index 0 out of range"));
  EXPECT_TRUE(Has(EvalError(R"("%d %d".format(dyn([1])) == "")"), "index 1 out of range"));
  EXPECT_TRUE(Has(EvalError(R"("%.10000010f".format(dyn([1.0])) == "")"), "not supported"));
}

TEST(FormatTest, LiteralsInsideFormatNeedNotBeHomogeneous) {
  EXPECT_TRUE(Match(R"("%s %d".format(["a", 1]) == "a 1")"));
  ExpectFormats(R"("%s".format([[1, "a", [2], {"k": 1.0, 1: "v"}]]))", R"("[1, \"a\", [2], {\"k\":1.000000, 1:\"v\"}]")");
  EXPECT_TRUE(Match(R"("%s".format([[1, "a"]]) + "" != "" && [1, 2].size() == 2)"));
  EXPECT_TRUE(Has(CompileError(R"("%s".format([1]) != "" && [1, "a"].size() == 2)"), "expected type 'int' but found 'string'"));
  EXPECT_TRUE(Match(R"("%d".format([[1, "a"][0]]) == "1")"));
}

TEST(FormatTest, AnyAttributesFailTheCheckBefore137) {
  // 1.34-1.36 declare attribute values as any, which cel-go's check of a
  // literal call refuses; 1.37's dyn passes it.
  const std::string expr = R"("%s/%d".format([device.attributes["gpu.example.com"].model, device.attributes["gpu.example.com"].count]) == "a100/7")";
  EXPECT_TRUE(Has(CompileError(expr), "string clause can only be used on"));
  CompileOptions v37;
  v37.dyn_attributes = true;
  EXPECT_TRUE(Match(expr, v37));
  EXPECT_TRUE(Match(R"("%s".format(dyn([device.attributes["gpu.example.com"].model])) == "a100")"));
  EXPECT_TRUE(Has(EvalError(R"("%s".format(dyn([device.attributes["gpu.example.com"].driverVersion])) == "")"),
                  "was given kubernetes.Semver"));
}

TEST(FormatTest, CostsOneWhateverItPrints) {
  // s16 holds 655,360 bytes; 200 calls printing it would cost 13 million
  // if priced by the string, and fit the limit at 1 each.
  std::string e = "lists.range(200).all(i, '%s'.format([s16]) != '')";
  for (int i = 16; i >= 1; --i) {
    const std::string prev = i == 1 ? "'/aaaaaaaaa'" : "s" + std::to_string(i - 1);
    e = "cel.bind(s" + std::to_string(i) + ", " + prev + " + " + prev + ", " + e + ")";
  }
  EXPECT_TRUE(Match(e));
}

}  // namespace
}  // namespace ksched::cel
