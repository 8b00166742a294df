// CEL's bytes: literals, conversions, size, +, the orderings, equality,
// and where Kubernetes cannot hash them (map keys, constant sets, indexes);
// each expectation as Kubernetes answers it (test/k8s/celcompare probes).
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

TEST(BytesTest, Literals) {
  EXPECT_TRUE(Match(R"(b"abc" == b"abc" && B'a' == b"a" && b"""a""" == b'''a''')"));
  // Octal and hex escapes are octets; other characters their UTF-8.
  EXPECT_TRUE(Match(R"(b"\377" == b"\xff" && b"\101" == b"A" && b"\X41" == b"A")"));
  EXPECT_TRUE(Match(R"(b"é" == b"\xc3\xa9" && size(b"é") == 2)"));
  EXPECT_TRUE(Match(R"(b"\a\b\f\n\r\t\v\\\'\"\?".size() == 11)"));
  // Raw bytes: b then r, not r then b.
  EXPECT_TRUE(Match(R"(br"\x41" == b"\\x41" && bR"a" == Br"a")"));
  EXPECT_TRUE(Has(CompileError(R"(rb"a" == b"a")"), "syntax error"));
  EXPECT_TRUE(Has(CompileError(R"(bb"a" == b"a")"), "syntax error"));
  EXPECT_TRUE(Has(CompileError(R"(rr"a" == "a")"), "syntax error"));
  // No code point escapes in bytes.
  EXPECT_TRUE(Has(CompileError(R"(b'\u00e9' == b"a")"), "invalid escape sequence"));
}

TEST(BytesTest, ConversionsAndSize) {
  EXPECT_TRUE(Match(R"(bytes("abc") == b"abc" && bytes(b"x") == b"x" && bytes("") == b"")"));
  EXPECT_TRUE(Match(R"(string(b"abc") == "abc" && string(b"\xc3\xa9") == "é")"));
  EXPECT_TRUE(Match(R"(string(b"\xef\xbf\xbd") == "\ufffd" && string(b"\xf4\x8f\xbf\xbf").size() == 1)"));
  EXPECT_TRUE(Match(R"(size(b"abc") == 3 && b"\xff\x00".size() == 2 && size(dyn(b"ab")) == 2 && dyn(b"ab").size() == 2)"));
  EXPECT_TRUE(Match(R"(string(bytes(device.attributes["gpu.example.com"].model)) == "a100")"));
  EXPECT_TRUE(Has(CompileError("bytes(1) == b\"a\""), "found no matching overload for 'bytes' applied to '(int)'"));
  EXPECT_TRUE(Has(CompileError("int(b\"1\") == 1"), "found no matching overload for 'int' applied to '(bytes)'"));
  EXPECT_TRUE(Has(CompileError("b\"a\".contains(b\"a\")"), "found no matching overload for 'contains'"));
  EXPECT_TRUE(Has(CompileError("base64.encode(b\"a\") == \"YQ==\""), "undeclared reference"));
}

TEST(BytesTest, InvalidUtf8FailsConversionToString) {
  // A constant conversion is evaluated at compile time, as Kubernetes'
  // planner does: the error fails compilation, whichever branch holds it.
  for (const char* octets : {R"(\xff)", R"(\xed\xa0\x80)", R"(\x80abc)", R"(\xc0\x80)", R"(\xf4\x90\x80\x80)"}) {
    EXPECT_TRUE(Has(CompileError(std::string("true || string(b\"") + octets + "\") == \"\""),
                    "invalid UTF-8 in bytes, cannot convert to string"))
        << octets;
  }
  EXPECT_TRUE(Has(EvalError(R"([b"\xff"].exists(b, string(b) == ""))"), "invalid UTF-8 in bytes, cannot convert to string"));
}

TEST(BytesTest, OperatorsOrderByOctets) {
  EXPECT_TRUE(Match(R"(b"ab" + b"c" == b"abc" && cel.bind(x, b"ab", x + x == b"abab"))"));
  EXPECT_TRUE(Match(R"(b"abc" != b"abd" && b"a" < b"b" && b"\xff" > b"a" && b"" < b"a")"));
  EXPECT_TRUE(Match(R"(b"ab" <= b"ab" && b"ab" >= b"a" && dyn(b"a") < dyn(b"b"))"));
  EXPECT_TRUE(Match(R"([b"a"] == [b"a"] && dyn(b"") == dyn(b""))"));
  EXPECT_TRUE(Has(CompileError(R"(b"a" == "a")"), "found no matching overload for '_==_' applied to '(bytes, string)'"));
  EXPECT_FALSE(Match(R"(dyn(b"a") == "a")"));
  EXPECT_TRUE(Has(EvalError(R"(dyn(b"a") + "a" == "aa")"), "no such overload"));
  EXPECT_TRUE(Has(EvalError(R"(b"a" + dyn("b") == b"ab")"), "no such overload"));
}

TEST(BytesTest, TypesOptionalsAndLists) {
  EXPECT_TRUE(Match(R"(type(b"a") == bytes && type(b"a") == type(bytes("a")) && type(bytes) == type)"));
  EXPECT_FALSE(Match(R"(optional.ofNonZeroValue(b"").hasValue())"));
  EXPECT_TRUE(Match(R"(optional.ofNonZeroValue(b"a").hasValue() && optional.of(b"a").value() == b"a")"));
  EXPECT_TRUE(Match(R"([?optional.of(b"a")] == [b"a"])"));
  EXPECT_TRUE(Match(R"(b"a" in [b"a", b"b"] && [b"x", b"y"].indexOf(b"y") == 1)"));
  EXPECT_TRUE(Match(R"([b"b", b"a"].sort() == [b"a", b"b"] && [b"b", b"a"].sortBy(x, x) == [b"a", b"b"])"));
  EXPECT_TRUE(Match(R"([b"b", b"a"].min() == b"a" && [b"a", b"b"].max() == b"b" && [b"\x00", b""].min() == b"")"));
  EXPECT_TRUE(Match(R"([b"a", b"b"].isSorted() && [b"a", b"a"].distinct() == [b"a"])"));
  EXPECT_TRUE(Match(R"(sets.contains([b"a", b"b"], [b"a"]))"));
  EXPECT_TRUE(Has(CompileError(R"([b"a", b"b"].sum() == b"ab")"), "found no matching overload for 'sum'"));
  EXPECT_TRUE(Has(EvalError(R"([dyn(b"a"), dyn("b")].sort().size() == 2)"), "list elements must have the same type"));
}

TEST(BytesTest, KubernetesCannotHashBytes) {
  // A constant map with a bytes key panics Kubernetes' planner.
  EXPECT_TRUE(Has(CompileError(R"(true || {b"a": 1}.size() == 1)"), "hash of unhashable type types.Bytes"));
  EXPECT_TRUE(Has(CompileError(R"(b"a" in {b"a": 1})"), "hash of unhashable type types.Bytes"));
  // A computed one, a constant set, or a map literal's lookup panics the
  // evaluation, which || cannot absorb.
  const char* kHash = "internal error: runtime error: hash of unhashable type types.Bytes";
  EXPECT_TRUE(Has(EvalError(R"([b"a"].exists(x, {x: 1}.size() == 1) || true)"), kHash));
  EXPECT_TRUE(Has(EvalError(R"(cel.bind(x, b"a", {x: 1}.size() == 1))"), kHash));
  EXPECT_TRUE(Has(EvalError(R"([1].transformMapEntry(i, v, {b"a": v}).size() == 1)"), kHash));
  EXPECT_TRUE(Has(EvalError(R"(dyn(b"a") in ["a"] || true)"), kHash));
  EXPECT_TRUE(Has(EvalError(R"(dyn(b"a") in {"x": 1})"), kHash));
  // The device's maps are Kubernetes' own, which look bytes up without
  // hashing.
  EXPECT_FALSE(Match(R"(dyn(b"a") in device.attributes)"));
  // Bytes are no index: a constant one does not compile, a computed one
  // fails the evaluation.
  for (const char* e : {R"(true || device.attributes[dyn(b"a")] == {})", R"(true || [1][dyn(b"a")] == 1)",
                        R"(true || {"x": 1}[?dyn(b"a")].hasValue())", R"(true || dyn({"x": 1})[dyn(b"a")] == 1)"}) {
    EXPECT_TRUE(Has(CompileError(e), "invalid qualifier type: types.Bytes")) << e;
  }
  EXPECT_TRUE(Has(EvalError(R"([b"a"].exists(x, dyn({"x": 1})[x] == 1))"), "invalid qualifier type: types.Bytes"));
  EXPECT_TRUE(Has(CompileError(R"([b"a"].exists(x, device.attributes[x] == {}))"), "found no matching overload for '_[_]'"));
}

}  // namespace
}  // namespace ksched::cel
