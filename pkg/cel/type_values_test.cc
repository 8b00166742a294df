// CEL's type values: type(x) and the type identifiers, each checked against
// what Kubernetes answers (test/k8s/celcompare probes).
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

TEST(TypeValuesTest, TypeOfEveryKind) {
  EXPECT_TRUE(Match("type(1) == int && type(1u) == uint && type(1.0) == double && type(true) == bool"));
  EXPECT_TRUE(Match(R"(type("a") == string && type(null) == null_type && type([]) == list && type({}) == map)"));
  EXPECT_TRUE(Match("type(type(1)) == type && type(type) == type && type(optional.none()) == optional_type"));
  EXPECT_TRUE(Match(R"(type(ip("1.2.3.4")) == net.IP && type(cidr("1.2.3.0/24")) == net.CIDR)"));
  EXPECT_TRUE(Match(R"(type(quantity("1")) == type(quantity("2")) && type(quantity("1")) != type(semver("1.0.0")))"));
  EXPECT_TRUE(Match("type(1) == type(2) && type(1) != type(1u) && type(1) != string"));
  EXPECT_TRUE(Match("type(dyn(1)) == int && dyn(type(1)) == int && optional.of(int).value() == int"));
  EXPECT_FALSE(Match("dyn(int) == 1 || 1 == dyn(int)"));
}

TEST(TypeValuesTest, TheRuntimeKindOfAttributesAndTheDevice) {
  // Selectors can test an attribute's kind before using it.
  EXPECT_TRUE(Match(R"(type(device.attributes["gpu.example.com"].model) == string)"));
  EXPECT_TRUE(Match(R"(type(device.attributes["gpu.example.com"].count) == int)"));
  EXPECT_FALSE(Match(R"(type(device.attributes["gpu.example.com"].driverVersion) == string)"));
  EXPECT_TRUE(Match(R"(type(device.capacity["gpu.example.com"].memory) == type(quantity("1")))"));
  EXPECT_TRUE(Match("type(device) == map && type(device.attributes) == map"));
  EXPECT_TRUE(Has(EvalError(R"(type(device.attributes["gpu.example.com"].nope) == int)"), "no such key"));
}

TEST(TypeValuesTest, WhatKubernetesRefuses) {
  EXPECT_TRUE(Has(CompileError("type(1) == 1"), "no matching overload"));
  EXPECT_TRUE(Has(CompileError("type(1) < type(2)"), "no matching overload"));
  EXPECT_TRUE(Has(CompileError(R"(string(int) == "int")"), "no matching overload"));
  EXPECT_TRUE(Has(CompileError("[int, string].size() == 2"), "expected type"));
  EXPECT_TRUE(Has(CompileError("type(1, 2) == int"), "no matching overload"));
  EXPECT_TRUE(Has(CompileError("int"), "must evaluate to bool"));
  // Only net's types are named; kubernetes.Quantity is not an identifier.
  EXPECT_TRUE(Has(CompileError(R"(type(quantity("1")) == kubernetes.Quantity)"), "undeclared reference"));
  // cel-go plans a variable holding a type as a type name, and fails.
  EXPECT_TRUE(Has(CompileError("cel.bind(t, type(1), t == int)"), "reference to undefined type: t"));
  EXPECT_TRUE(Has(CompileError("[int].exists(t, t == int)"), "reference to undefined type: t"));
  EXPECT_TRUE(Match("[dyn(int)].exists(t, t == int)"));
  EXPECT_TRUE(Has(EvalError("{1: 2}[dyn(int)] == 2"), "invalid qualifier type"));
}

}  // namespace
}  // namespace ksched::cel
