// Program: a DRA device selector (a CEL expression over `device`), compiled
// once and evaluated per device, with the semantics of Kubernetes'
// k8s.io/dynamic-resource-allocation/cel at v1.34 for the part of CEL this
// package implements (docs/conformance.md lists what it does not).
//
//   auto p = cel::Program::Compile(R"(device.driver == "gpu.example.com" &&
//                                     device.capacity["gpu.example.com"].memory
//                                       .compareTo(quantity("8Gi")) >= 0)");
//   if (!p.ok()) ...                      // a validation error
//   util::StatusOr<bool> m = p->Matches(device);
//
// Compile returns InvalidArgument for a syntax or type error and for valid
// CEL that this package does not implement ("... is not supported"); the
// message names the expression and the line:column. Such a selector never
// matches anything, as Kubernetes' allocator fails a claim whose selector does
// not compile. Matches returns the boolean, or InvalidArgument naming the
// expression when evaluation fails (a missing attribute, a type mismatch on
// a dyn attribute, an overflow, an invalid version attribute, the cost limit);
// Kubernetes' allocator treats that as an error for the claim, not as "no
// match", and so should callers.
//
// Cost: Compile is O(expression length); Matches is O(attributes +
// expression nodes + bytes of string work) and is bounded by the cost limit
// (default 1,000,000, Kubernetes' CELSelectorExpressionMaxCost).
// Thread-safety: a Program is immutable; Matches may run concurrently from
// many threads. Copies share the compiled tree.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "pkg/cel/ast.h"
#include "pkg/cel/device.h"
#include "pkg/cel/options.h"
#include "pkg/util/status.h"

namespace ksched::cel {


class Program {
 public:
  static util::StatusOr<Program> Compile(std::string_view expression, const CompileOptions& options = {});

  util::StatusOr<bool> Matches(const Device& device) const;

  const std::string& expression() const { return expression_; }

 private:
  Program(std::string expression, std::shared_ptr<const Expr> root, CompileOptions options);

  std::string expression_;
  std::shared_ptr<const Expr> root_;
  CompileOptions options_;
  // Whether the expression can read device.attributes / device.capacity;
  // Matches builds only the maps it can read.
  bool reads_attributes_ = false;
  bool reads_capacity_ = false;
};

}  // namespace ksched::cel
