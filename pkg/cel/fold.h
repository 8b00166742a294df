// Fold: the plan-time evaluation Kubernetes' CEL programs perform (cel-go's
// OptOptimize, which the Kubernetes environment enables), because it changes
// what fails and what matches:
//   - list and map literals of constants become constants (a map with a
//     bytes key does not compile: Kubernetes' planner panics hashing it);
//   - a type conversion (int, uint, double, string, bool, dyn, bytes,
//     duration, timestamp) of a constant
//     is evaluated once, and an error there fails compilation, even in a
//     branch that would never run (false && int("x") == 1 does not compile);
//   - `x in []` is false without evaluating x;
//   - a constant bytes, duration or timestamp index (m[dyn(b"a")]) does
//     not compile;
//   - `x in [constants]` becomes a set lookup, where a semver x is an error;
//   - a constant matches() pattern is compiled once, and an invalid one
//     fails compilation.
// O(nodes).
#pragma once

#include <string_view>

#include "pkg/cel/ast.h"
#include "pkg/util/status.h"

namespace ksched::cel {

util::Status Fold(std::string_view source, Expr& root);

}  // namespace ksched::cel
