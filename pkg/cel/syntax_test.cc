// The lexer and parser through Program: literals, escapes, precedence.
#include <string>

#include <gtest/gtest.h>

#include "pkg/cel/double_format.h"
#include "pkg/cel/program.h"
#include "pkg/cel/regex.h"
#include "pkg/cel/semver.h"

namespace ksched::cel {
namespace {

bool Eval(const std::string& expr) {
  auto p = Program::Compile(expr);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return false;
  auto m = p->Matches(Device{});
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() && *m;
}

bool Compiles(const std::string& expr) { return Program::Compile(expr).ok(); }

TEST(SyntaxTest, Literals) {
  EXPECT_TRUE(Eval("0x1F == 31 && 0xFFu == 255u && 18446744073709551615u > 0u"));
  EXPECT_TRUE(Eval("1e3 == 1000.0 && .5 == 0.5 && -2.5e-1 == -0.25"));
  EXPECT_TRUE(Eval(R"("a\tb" == 'a\x09b' && "\u00e9" == "é" && "\101" == "A" && "\U0001F600".size() == 1)"));
  EXPECT_TRUE(Eval(R"(r"a\n".size() == 3 && """x"y""" == 'x"y' && '''a
b'''.size() == 3)"));
  EXPECT_FALSE(Compiles("9223372036854775808 > 0"));
  EXPECT_TRUE(Eval("-9223372036854775808 < 0"));
  EXPECT_FALSE(Compiles(R"("\q" == "")"));
  EXPECT_FALSE(Compiles(R"("unterminated)"));
  EXPECT_FALSE(Compiles("\"a\nb\" == \"\""));
}

TEST(SyntaxTest, Precedence) {
  EXPECT_TRUE(Eval("1 + 2 * 3 == 7 && (1 + 2) * 3 == 9 && 7 - 2 - 1 == 4"));
  EXPECT_TRUE(Eval("true || false && false"));
  EXPECT_TRUE(Eval("false ? false : true ? true : false"));
  // An even run of ! cancels out before `in` applies.
  EXPECT_TRUE(Eval(R"(!!"a" in {"a": 1})"));
  EXPECT_TRUE(Eval("!false && --1 == 1 && -(-1) == 1 && ---1 == -1 && !!-9223372036854775808 < 0"));
  EXPECT_FALSE(Compiles("!-device.driver.size() == 0"));  // after '!' a member, not a negation
  EXPECT_TRUE(Eval("[1, 2, 3,][2] == 3 && {'a': 1,}.a == 1 // trailing commas and comments\n"));
  // A lone comma is an empty literal; a comma before the first entry or
  // argument is not.
  EXPECT_TRUE(Eval("[,] == [] && size({,}) == 0 && [ , ].size() == 0 && google.protobuf.Duration{,} == duration('0s')"));
  EXPECT_FALSE(Compiles("{,1: 2} == {1: 2}"));
  EXPECT_FALSE(Compiles("[,1] == [1]"));
  EXPECT_FALSE(Compiles("[?,] == []"));
  EXPECT_FALSE(Compiles("[,,] == []"));
  EXPECT_FALSE(Compiles("size(,) == 0"));
}

// Map keys compare as Go's map compares Kubernetes' CEL values: a double
// key is found by an equal double (NaN never), and int and double keys stay
// apart in a literal.
TEST(SyntaxTest, MapLiteralKeys) {
  EXPECT_TRUE(Eval("0.1 in {0.1: 1} && {0.1: 5}[0.1] == 5 && google.protobuf.DoubleValue{value: dyn(0.1)} in {0.1: 1}"));
  EXPECT_TRUE(Eval("{0.1: 1, 0.1: 2}.size() == 1 && {0.0: 1, -0.0: 2}.size() == 1 && -0.0 in {0.0: 1}"));
  EXPECT_TRUE(Eval("{0.0/0.0: 1, 0.0/0.0: 2}.size() == 2 && !((0.0/0.0) in {0.0/0.0: 1})"));
  EXPECT_TRUE(Eval("{dyn(1): 1, dyn(1.0): 2}.size() == 2 && 1.0 in {dyn(1): 1}"));
}

// `[]`, `{}`, `[][0]` and optional.none() have a type parameter that the
// first concrete type beside them binds, as cel-go's checker unifies them.
TEST(SyntaxTest, EmptyLiteralsTakeTheTypeTheirUseBinds) {
  EXPECT_TRUE(Eval(R"([{}, {"a": 1}].size() == 2 && [(true ? {} : {"a": 1}), {"b": 2}].size() == 2)"));
  EXPECT_TRUE(Eval("[[], [], [1]].size() == 3 && (true ? [] : [1]).size() == 0"));
  EXPECT_FALSE(Compiles(R"([[], ["a"], [1]].size() == 3)"));
  EXPECT_FALSE(Compiles(R"([{}, {"a": 1}, {"b": "c"}].size() == 3)"));
  EXPECT_FALSE(Compiles(R"([(true ? [] : ["a"]), [1]].size() == 2)"));
  EXPECT_FALSE(Compiles(R"([([] + ["a"]), [1]].size() == 2)"));
  EXPECT_FALSE(Compiles(R"([(true ? [][0] : "a"), 1].size() == 2)"));
  EXPECT_FALSE(Compiles(R"([dyn(1), (true ? [][0] : "a")].size() == 2)"));
  EXPECT_FALSE(Compiles(R"([(true ? optional.none() : optional.of("a")), optional.of(1)].size() == 2)"));
}

TEST(SyntaxTest, ReservedWordsAndNesting) {
  EXPECT_FALSE(Compiles("if == 1"));
  EXPECT_FALSE(Compiles("device.driver.in == 1"));
  // Kubernetes' limits: 249 nested parentheses, a tree 250 high.
  EXPECT_TRUE(Eval(std::string(249, '(') + "true" + std::string(249, ')')));
  std::string deep(250, '(');
  deep += "true" + std::string(250, ')');
  auto p = Program::Compile(deep);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("nested too deeply"), std::string::npos);
  // Long chains make tall trees without nesting.
  std::string chain = "1";
  for (int i = 0; i < 5000; ++i) chain += " + 1";
  EXPECT_FALSE(Compiles(chain + " > 0"));
  std::string members = "device";
  for (int i = 0; i < 5000; ++i) members += ".a";
  EXPECT_FALSE(Compiles(members));
  std::string ok = "1";
  for (int i = 0; i < 249; ++i) ok += " + 1";
  EXPECT_TRUE(Eval(ok + " == 250"));
  EXPECT_FALSE(Compiles(ok + " + 1 == 251"));
  // && and || chains are balanced, so long ones are fine.
  std::string conj = "true";
  for (int i = 0; i < 1000; ++i) conj += " && true";
  EXPECT_TRUE(Eval(conj));
}

TEST(SyntaxTest, StringsExtension) {
  EXPECT_TRUE(Eval(R"("日本語".charAt(1) == "本" && "日本語".charAt(3) == "" && "日本語".size() == 3)"));
  EXPECT_TRUE(Eval(R"("abcabc".indexOf("c") == 2 && "abcabc".indexOf("c", 3) == 5 && "abc".indexOf("", 9) == 9)"));
  EXPECT_TRUE(Eval(R"("abcabc".lastIndexOf("c") == 5 && "abcabc".lastIndexOf("c", 4) == 2 && "abc".lastIndexOf("c", 5) == -1)"));
  EXPECT_TRUE(Eval(R"("a,b,,c".split(",").size() == 4 && "a,b,c".split(",", 2)[1] == "b,c" && "abc".split("").size() == 3)"));
  EXPECT_TRUE(Eval(R"("aaa".replace("a", "b", 2) == "bba" && "ab".replace("", "-") == "-a-b-")"));
  EXPECT_TRUE(Eval(R"("  x\u00a0".trim() == "x" && "AbÉ".lowerAscii() == "abÉ" && ["a", "b"].join("-") == "a-b")"));
  EXPECT_TRUE(Eval(R"("hello".substring(1, 3) == "el" && "hello".substring(5) == "")"));
  for (const char* bad : {R"("abc".charAt(4) == "")", R"("abc".substring(2, 1) == "")", R"("abc".indexOf("a", -1) == 0)"}) {
    auto p = Program::Compile(bad);
    ASSERT_TRUE(p.ok()) << bad;
    EXPECT_FALSE(p->Matches(Device{}).ok()) << bad;
  }
}

TEST(RegexTest, GoSyntaxAndSemantics) {
  auto m = [](const char* pattern, const char* text) {
    auto re = Regex::Compile(pattern);
    EXPECT_TRUE(re.ok()) << pattern << ": " << re.status().message();
    return re.ok() && re->Search(text);
  };
  EXPECT_TRUE(m("b", "abc"));
  EXPECT_FALSE(m("^b", "abc"));
  EXPECT_TRUE(m("^a.c$", "abc"));
  EXPECT_FALSE(m("^a.c$", "a\nc"));
  EXPECT_TRUE(m("(?s)^a.c$", "a\nc"));
  EXPECT_TRUE(m("(?m)^c$", "a\nc"));
  EXPECT_TRUE(m("(?i)abc", "ABC"));
  EXPECT_TRUE(m("(?i)k", "\u212a"));  // Go folds k with the Kelvin sign
  EXPECT_TRUE(m("^a{1,2}c", "aac"));
  EXPECT_FALSE(m("^a{1,2}c", "aaac"));
  EXPECT_TRUE(m("a{,2}", "a{,2}"));  // not a repetition: literal text
  EXPECT_TRUE(m("^\\d+$", "123"));
  EXPECT_TRUE(m("^.{3}$", "日本語"));
  EXPECT_TRUE(m("[]x]+", "x]"));
  EXPECT_TRUE(m("\\bbc\\b", "a bc"));
  EXPECT_TRUE(m("\\Qa.c\\E", "a.c"));
  EXPECT_FALSE(m("\\Qa.c\\E", "abc"));
  EXPECT_TRUE(m("[^[:alnum:]]", "a-b"));
  EXPECT_TRUE(m("", ""));
  // No backtracking: a classic exponential case is linear here.
  EXPECT_FALSE(m("^(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"));
  for (const char* bad : {"(", "a**", "*a", "[a", "a)", "\\1", "a{1001}", "(?z)", "[b-a]", "\\", "a{2,1}"}) {
    auto re = Regex::Compile(bad);
    ASSERT_FALSE(re.ok()) << bad;
    EXPECT_NE(re.status().message().find("error parsing regexp"), std::string::npos) << bad;
  }
}

TEST(DoubleFormatTest, PrintsLikeGo) {
  EXPECT_EQ(FormatGoDouble(1e6), "1e+06");
  EXPECT_EQ(FormatGoDouble(123456), "123456");
  EXPECT_EQ(FormatGoDouble(1234567), "1.234567e+06");
  EXPECT_EQ(FormatGoDouble(0.0001), "0.0001");
  EXPECT_EQ(FormatGoDouble(0.00001), "1e-05");
  EXPECT_EQ(FormatGoDouble(-2.5), "-2.5");
  EXPECT_EQ(FormatGoDouble(1e300), "1e+300");
  double d = 0;
  EXPECT_TRUE(ParseGoFloat("1e3", &d));
  EXPECT_EQ(d, 1000);
  EXPECT_TRUE(ParseGoFloat("-Inf", &d));
  EXPECT_FALSE(ParseGoFloat(" 1", &d));
  EXPECT_FALSE(ParseGoFloat("1e400", &d));
  EXPECT_FALSE(ParseGoFloat("0x10", &d));
}

TEST(SemverTest, ParseAndPrecedence) {
  auto v = [](const char* s) { return *Semver::Parse(s); };
  EXPECT_FALSE(Semver::Parse("1.2").ok());
  EXPECT_FALSE(Semver::Parse("01.2.3").ok());
  EXPECT_FALSE(Semver::Parse("1.2.3-").ok());
  EXPECT_FALSE(Semver::Parse("1.2.3-a.01").ok());
  EXPECT_FALSE(Semver::Parse("v1.2.3").ok());
  EXPECT_EQ(v("1.2.3+build.5").Compare(v("1.2.3")), 0);
  EXPECT_EQ(v("2.0.0-rc.1").Compare(v("2.0.0-rc.10")), -1);
  EXPECT_EQ(v("2.0.0-alpha").Compare(v("2.0.0-1")), 1);
  EXPECT_EQ(v("2.0.0-alpha").Compare(v("2.0.0-alpha.1")), -1);
  EXPECT_EQ(v("2.0.0").Compare(v("2.0.0-rc.1")), 1);
  EXPECT_EQ(v("10.0.0").Compare(v("9.9.9")), 1);
  auto n = Semver::ParseNormalized("v01.2");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->Compare(v("1.2.0")), 0);
  EXPECT_FALSE(Semver::ParseNormalized("1.2-rc").ok());
}

}  // namespace
}  // namespace ksched::cel
