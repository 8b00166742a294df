// Kubernetes' authz library in DRA's environment: declared, but with no
// authorizer variable, so calls compile only on dyn receivers (and on what
// those return), have the library's result types, and always fail at run
// time unless a short-circuit skips them. Also that CEL's reserved words
// may name methods and fields (resourceCheck.namespace()), and that macro
// names in other forms are undeclared. Every expectation is Kubernetes'
// answer at 1.35 and 1.37 (celcompare's probe).
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

TEST(AuthzTest, ChainsOnDynCompileAndShortCircuit) {
  EXPECT_FALSE(Match("false && dyn(1).path('a').check('get').allowed()"));
  EXPECT_FALSE(Match(
      "false && dyn(1).group('a').resource('b').subresource('c').namespace('d').name('e').check('get').allowed()"));
  EXPECT_FALSE(Match("false && dyn(1).group('a').resource('b').fieldSelector('x').labelSelector('y').check('g').errored()"));
  EXPECT_FALSE(Match("false && dyn(1).serviceAccount('ns', 'n').path('x').check('y').errored()"));
  EXPECT_FALSE(Match("false && dyn(1).check('a').reason() + 'x' == 'x'"));
  EXPECT_FALSE(Match("false && dyn(1).check('a').error().size() == 1"));
  EXPECT_FALSE(Match("false && device.attributes['gpu.example.com'].count.check('get').allowed()"));
  EXPECT_FALSE(Match("false && [dyn(1).path('a')].all(x, x.check('a').allowed())"));
  EXPECT_FALSE(Match("false && type(dyn(1).check('a')) == type(dyn(1).check('b'))"));
  EXPECT_FALSE(Match("false && dyn(1).path('a') == dyn(1).path('b')"));
  EXPECT_FALSE(Match("false && {dyn(1).path('a'): 1} == {}"));
  EXPECT_TRUE(Match("dyn(1).allowed() || true"));
  EXPECT_TRUE(Match("[].all(x, x.check('a').allowed())"));
}

TEST(AuthzTest, ResultTypesAreTheLibrarys) {
  EXPECT_TRUE(Has(CompileError("false && dyn(1).path('a') == ''"), "kubernetes.authorization.PathCheck"));
  EXPECT_TRUE(Has(CompileError("false && dyn(1).group('a') == 1"), "kubernetes.authorization.GroupCheck"));
  EXPECT_TRUE(Has(CompileError("false && dyn(1).group('a').resource('x') == 1"),
                  "kubernetes.authorization.ResourceCheck"));
  EXPECT_TRUE(Has(CompileError("false && dyn(1).namespace('y') == 1"), "kubernetes.authorization.ResourceCheck"));
  EXPECT_TRUE(Has(CompileError("false && dyn(1).serviceAccount('a', 'b') == 1"), "kubernetes.authorization.Authorizer"));
  EXPECT_TRUE(Has(CompileError("false && dyn(1).path('a').check('get') == 1"), "kubernetes.authorization.Decision"));
  EXPECT_TRUE(Has(CompileError("false && dyn(1).allowed() == 1"), "no matching overload for '_==_'"));
  EXPECT_TRUE(Has(CompileError("false && dyn(1).reason() == 1"), "no matching overload for '_==_'"));
}

TEST(AuthzTest, WrongReceiversArgumentsAndUsesAreCompileErrors) {
  for (const char* expr : {
           "dyn(1).path() == dyn(1)", "dyn(1).path(1) == dyn(1)", "dyn(1).path('a', 'b') == dyn(1)",
           "path('a') == dyn(1)", "false && name('a') == dyn(1)", "false && 'x'.path('a') == dyn(1)",
           "false && device.driver.path('a') == dyn(1)", "false && dyn(1).serviceAccount('ns') == dyn(1)",
           "false && dyn(1).reason('x') == ''", "false && dyn(1).path('a').name('x') == dyn(1)",
           "false && dyn(1).group('a').check('x') == dyn(1)", "false && dyn(1).group('a').fieldSelector('x') == dyn(1)",
           "false && dyn(1).path('a') == dyn(1).check('a')", "false && [dyn(1).path('a'), dyn(1).group('b')] == []",
           "false && (true ? dyn(1).path('a') : dyn(1).group('b')) == dyn(1)",
           "false && string(dyn(1).check('a')) == ''", "false && dyn(1).path('a') < dyn(1).path('b')",
           "false && dyn(1).path('a').x == 1", "false && has(dyn(1).path('a').x)",
           "false && dyn(1).path('a').size() == 0", "false && namespace('x') == dyn(1)"}) {
    CompileError(expr);
  }
}

TEST(AuthzTest, EvaluatedCallsFail) {
  EXPECT_TRUE(Has(EvalError("dyn(1).path('a').check('get').allowed()"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("device.attributes['gpu.example.com'].model.labelSelector('x').check('g').allowed()"),
                  "no such overload"));
  EXPECT_TRUE(Has(EvalError("true && dyn(1).errored()"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("dyn(1).namespace('x') == dyn(1)"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("type(dyn(1).path('a')) == type(1)"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("[1, 2].map(x, dyn(x).path('a')).size() == 0"), "no such overload"));
}

TEST(AuthzTest, ReservedWordsMayNameFieldsButKeywordsMayNot) {
  EXPECT_TRUE(Match("dyn({'namespace': 1}).namespace == 1"));
  EXPECT_TRUE(Match("dyn({'if': 1}).if == 1"));
  EXPECT_TRUE(Match("dyn({'if': 1}).?if == optional.of(1)"));
  EXPECT_TRUE(Has(CompileError("false && dyn(1).if('x') == dyn(1)"), "undeclared reference to 'if'"));
  for (const char* expr : {"dyn({'true': 1}).true == 1", "dyn({'null': 1}).null == 1", "dyn({'in': 1}).in == 1"}) {
    EXPECT_TRUE(Has(CompileError(expr), "syntax error")) << expr;
  }
}

TEST(AuthzTest, MacroNamesInOtherFormsAreUndeclared) {
  EXPECT_TRUE(Has(CompileError("false && all([1], 1, true)"), "undeclared reference to 'all'"));
  EXPECT_TRUE(Has(CompileError("false && map([1], 1, 1) == 1"), "undeclared reference to 'map'"));
  for (const char* expr : {"false && [1].all(x)", "false && [1].exists_one(x)", "false && dyn([1]).map(1) == 1",
                           "false && [1].transformList(1, 2) == 1", "false && {'a': 1}.transformMapEntry(x)"}) {
    CompileError(expr);
  }
}

}  // namespace
}  // namespace ksched::cel
