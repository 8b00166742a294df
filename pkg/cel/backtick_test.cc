// Backtick-quoted names (`a-b`): field selections, optional selections,
// has() and message fields at 1.37 (cel-go 0.29); refused at 1.35 and 1.36
// (cel-go 0.26); a syntax error anywhere else at every release. Checked
// against what Kubernetes answers (test/k8s/celcompare probes).
#include <string>

#include <gtest/gtest.h>

#include "pkg/cel/cel_test_util.h"
#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

using test::CompileError;
using test::Has;
using test::Match;
using test::ReleaseOptions;

TEST(BacktickTest, SelectsFieldsOfAnyName) {
  EXPECT_TRUE(Match(R"({"a-b": 1}.`a-b` == 1 && {"a.b": 1}.`a.b` == 1 && {"a b/c": 1}.`a b/c` == 1)"));
  EXPECT_TRUE(Match(R"({"1": 1}.`1` == 1 && {"in": 1}. `in` == 1 && {"true": 1}.`true` == 1)"));
  EXPECT_TRUE(Match(R"(has({"a-b": 1}.`a-b`) && !has({"a-b": 1}.`a-c`))"));
  EXPECT_TRUE(Match(R"({"a-b": 1}.?`a-b` == optional.of(1) && {"a-b": 1} . ? `a-c` == optional.none())"));
  EXPECT_TRUE(Match(R"(has({"a-b": {"c": 1}}.?`a-b`.c) && dyn({"a-b": 1}).`a-b` == 1)"));
  EXPECT_TRUE(Match(R"(device.attributes.`gpu.example.com`.`model` == "a100" && device.`driver` != "")"));
  EXPECT_TRUE(Match(R"(has(device.attributes.`dra.example.com`.oneBool) && device.?`attributes`.hasValue())"));
  // A quoted name is still part of a qualified name, joined with dots.
  EXPECT_TRUE(Match(R"(google.`protobuf.Duration` == type(duration("1s")) && net.`IP` == type(ip("1.2.3.4")))"));
  EXPECT_TRUE(Match(R"("`a`" == "`a`" // a comment with ` in it)"));
}

TEST(BacktickTest, NamesMessageFields) {
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{`seconds`: 1, nanos: 5} == duration("1.000000005s"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{?`seconds`: optional.of(1),} == duration("1s"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Timestamp{`seconds`: 1} == timestamp("1970-01-01T00:00:01Z"))"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.Duration{`sec onds`: 1} == duration('1s')"),
                  "1:36: undefined field 'sec onds'"));
}

// Only a selection's field and a message's field may be quoted; a quoted
// name is never a method, a variable, a map key or part of a type name.
TEST(BacktickTest, NothingElseIsQuoted) {
  for (int minor : {35, 37}) {
    const CompileOptions o = ReleaseOptions(minor);
    EXPECT_TRUE(Has(CompileError("`a` == 1", o), "1:1: syntax error: unexpected '`a`'"));
    EXPECT_TRUE(Has(CompileError(".`device`.driver == ''", o), "syntax error"));
    EXPECT_TRUE(Has(CompileError("{`a`: 1}.a == 1", o), "1:2: syntax error: unexpected '`a`'"));
    EXPECT_TRUE(Has(CompileError(R"({"a": 1}[`a`] == 1)", o), "syntax error"));
    EXPECT_TRUE(Has(CompileError("has(`a`)", o), "syntax error"));
  }
  // 1.35 and 1.36 refuse the quoted name first.
  EXPECT_TRUE(Has(CompileError("[1].`all`(x, true)"), "1:10: syntax error: unexpected '('"));
  EXPECT_TRUE(Has(CompileError("cel.`bind`(x, 1, x == 1)"), "1:11: syntax error: unexpected '('"));
  EXPECT_TRUE(Has(CompileError(R"({"a": 1}.?`a`() == 1)"), "1:14: syntax error: unexpected '('"));
  EXPECT_TRUE(Has(CompileError(R"({"a": 1}.?a() == 1)"), "1:12: syntax error: unexpected '('"));
  EXPECT_TRUE(Has(CompileError(R"({"a": 1}.`a`{})"), "1:13: syntax error: unexpected '{'"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.`Duration`{seconds: 1} == duration('1s')"), "1:27: syntax error"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.`Duration`{seconds: 1}", ReleaseOptions(35)),
                  "1:17: unsupported syntax: '`'"));
}

// What CEL's lexer does not read as a quoted name: empty, unterminated,
// or holding a character outside letters, digits and `_.-/ `.
TEST(BacktickTest, MalformedNames) {
  for (int minor : {35, 37}) {
    const CompileOptions o = ReleaseOptions(minor);
    EXPECT_TRUE(Has(CompileError(R"({"a": 1}.``)", o), "1:10: syntax error: token recognition error at: '``'"));
    EXPECT_TRUE(Has(CompileError(R"({"a": 1}.`a)", o), "1:10: syntax error: token recognition error at: '`a'"));
    EXPECT_TRUE(Has(CompileError(R"({"a": 1}.`a$`)", o), "token recognition error at: '`a$'"));
    EXPECT_TRUE(Has(CompileError("{\"a\": 1}.`a\tb`", o), "token recognition error at: '`a\t'"));
    EXPECT_TRUE(Has(CompileError(R"({"a": 1}.`é` == 1)", o), "token recognition error at: '`é'"));
    EXPECT_TRUE(Has(CompileError(R"({"a": 1}.`a`b` == 1)", o), "syntax error"));
    EXPECT_TRUE(Has(CompileError("true || `", o), "1:9: syntax error: token recognition error at: '`'"));
  }
}

// 1.35 and 1.36 parse a quoted name where 1.37 accepts one, and refuse it
// there, as cel-go 0.26 does: at the name, or at a message's first field.
TEST(BacktickTest, RefusedBefore137) {
  for (int minor : {35, 36}) {
    const CompileOptions o = ReleaseOptions(minor);
    EXPECT_TRUE(Has(CompileError(R"({"a-b": 1}.`a-b` == 1)", o), "1:12: unsupported syntax: '`'"));
    EXPECT_TRUE(Has(CompileError(R"({"a-b": 1}.?`a-b` == optional.of(1))", o), "1:13: unsupported syntax: '`'"));
    EXPECT_TRUE(Has(CompileError(R"(has({"a-b": 1}.`a-b`))", o), "1:16: unsupported syntax: '`'"));
    EXPECT_TRUE(Has(CompileError(R"(true || {"a-b": 1}.`a-b` == 1)", o), "unsupported syntax: '`'"));
    EXPECT_TRUE(Has(CompileError(R"(google.protobuf.Duration{seconds: 1, `nanos`: 5} == duration("1s"))", o),
                    "1:26: unsupported syntax: '`'"));
    EXPECT_TRUE(Has(CompileError(R"(google.protobuf.Duration{?`seconds`: optional.of(1)} == duration("1s"))", o),
                    "1:26: unsupported syntax: '`'"));
    EXPECT_TRUE(Match(R"({"a-b": 1}["a-b"] == 1 && "`" == "`")", o));
  }
}

}  // namespace
}  // namespace ksched::cel
