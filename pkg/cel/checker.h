// Checker: infers static types over a parsed expression, resolves every call
// against the functions DRA's CEL environment declares (functions.h), and
// rejects what Kubernetes' checker rejects: undeclared identifiers and
// functions, unknown fields of `device`, calls without a matching overload,
// mixed-type list and map literals, and a result that is neither bool nor
// any (dyn is refused). What this package does not implement (most message
// types, a leading-dot name a variable shadows unless the release is chosen)
// is rejected as "not supported".
//
// Errors read "L:C: message". O(nodes x overloads).
#pragma once

#include "pkg/cel/ast.h"
#include "pkg/cel/options.h"
#include "pkg/util/status.h"

namespace ksched::cel {

// `device` has driver, attributes, capacity and allowMultipleAllocations:
// Kubernetes v1.34's stored-expression environment, which the scheduler uses,
// declares the last one whether or not DRAConsumableCapacity is enabled.
util::Status Check(std::string_view source, Expr& root, const CompileOptions& options = {});

}  // namespace ksched::cel
