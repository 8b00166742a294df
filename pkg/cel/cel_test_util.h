// What pkg/cel's tests evaluate against: one GPU-like device whose
// attributes and capacity cover every test's needs, and helpers that
// compile and evaluate an expression on it. Test-only (gtest assertions).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "pkg/cel/program.h"

namespace ksched::cel::test {

inline Device TestGpu() {
  Device d;
  d.driver = "gpu.example.com";
  d.attributes["model"] = DeviceAttribute::String("a100");
  d.attributes["count"] = DeviceAttribute::Int(7);
  d.attributes["address"] = DeviceAttribute::String("10.1.2.3");
  d.attributes["driverVersion"] = DeviceAttribute::Version("1.2.3");
  d.attributes["gpu.example.com/cores"] = DeviceAttribute::Int(108);
  d.attributes["dra.example.com/oneBool"] = DeviceAttribute::Bool(true);
  d.attributes["dra.example.com/anotherBool"] = DeviceAttribute::Bool(false);
  d.capacity["memory"] = "40Gi";
  d.capacity["dra.example.com/slices"] = "1.5Gi";
  return d;
}

// expr's result on d; a compile or evaluation error fails the test.
inline bool Match(const std::string& expr, const CompileOptions& o = {}, const Device& d = TestGpu()) {
  auto p = Program::Compile(expr, o);
  EXPECT_TRUE(p.ok()) << expr << ": " << p.status().message();
  if (!p.ok()) return false;
  auto m = p->Matches(d);
  EXPECT_TRUE(m.ok()) << expr << ": " << m.status().message();
  return m.ok() && *m;
}

// The compile error of expr; compiling fails the test.
inline std::string CompileError(const std::string& expr, const CompileOptions& o = {}) {
  auto p = Program::Compile(expr, o);
  EXPECT_FALSE(p.ok()) << expr;
  return p.ok() ? "" : p.status().message();
}

// The evaluation error of expr on d; compiling or evaluating fails the test.
inline std::string EvalError(const std::string& expr, const CompileOptions& o = {}, const Device& d = TestGpu()) {
  auto p = Program::Compile(expr, o);
  EXPECT_TRUE(p.ok()) << expr << ": " << p.status().message();
  if (!p.ok()) return "";
  auto m = p->Matches(d);
  EXPECT_FALSE(m.ok()) << expr;
  return m.ok() ? "" : m.status().message();
}

inline bool Has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// DRA's CEL environment at Kubernetes 1.`minor` (34-37), as probed against
// each release. framework's feature_gates_test checks that the scheduler's
// version table gives the same.
inline CompileOptions ReleaseOptions(int minor) {
  CompileOptions o;
  o.duration_of_int = minor <= 36;
  o.leading_dot_sees_locals = minor <= 36;
  o.refuse_backtick_identifiers = minor <= 36;
  o.or_passes_non_optionals = minor <= 36;
  o.refuse_wrapper_bool_results = minor <= 36;
  o.legacy_label_key_messages = minor <= 34;
  o.url_lenient_colons = minor <= 35;
  o.includes = minor >= 36;
  o.checked_empty_substring_offsets = o.includes_unbounded = o.bounded_lists_range = o.dyn_attributes =
      o.quantity_deep_copy = minor >= 37;
  return o;
}
inline constexpr int kEmulatedMinors[] = {34, 35, 36, 37};

}  // namespace ksched::cel::test
