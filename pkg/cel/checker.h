// Checker: infers static types over a parsed expression, resolves every call
// against the functions DRA's CEL environment declares (functions.h), and
// rejects what Kubernetes' checker rejects: undeclared identifiers and
// functions, unknown fields of `device`, calls without a matching overload,
// mixed-type list and map literals, and a result that is neither bool nor
// dyn. Functions the environment declares but this package does not
// implement are rejected as "not supported".
//
// Errors read "L:C: message". O(nodes x overloads).
#pragma once

#include "pkg/cel/ast.h"
#include "pkg/util/status.h"

namespace ksched::cel {

struct CheckOptions {
  // device.allowMultipleAllocations exists only with the
  // DRAConsumableCapacity feature (off by default in v1.34).
  bool consumable_capacity = false;
};

util::Status Check(std::string_view source, Expr& root, const CheckOptions& options);

}  // namespace ksched::cel
