// cel-go's strings extension's `<string>.format(<list>)` as Kubernetes'
// environment has it (strings version 2, the en_US locale, no precision
// limit) at every release ksched emulates (cel-go 0.26 and 0.29 agree).
//
// A clause is `%` then an optional `.precision` then one verb: s (any
// value but the Kubernetes types and optionals; lists and maps as CEL
// literals, maps in the order of their keys' text), d (int, uint),
// f and e (double, or the strings "NaN", "Infinity", "-Infinity"),
// b (int, uint, bool), x and X (int, uint, string, bytes) and o (int,
// uint); `%%` is a percent sign. %f and %e print as Go's x/text printer
// does for en_US: %f groups thousands with commas, %e always has six
// decimals, writes its exponent as "×10" and superscript digits, and takes
// the precision as a minimum width in code points.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pkg/cel/ast.h"
#include "pkg/cel/value.h"

namespace ksched::cel {

// The result of `args[0].format(args[1])`, or the error cel-go reports.
// Costs nothing beyond the call's node (Kubernetes prices it at 1).
Value CallFormatFunction(const std::vector<Value>& args);

// Kubernetes' compile-time check (cel-go's string format validator) of a
// checked `format` call whose receiver is a string literal and whose
// argument is a list literal: the clauses parse, each element's static
// type suits its clause (dyn always does), and no element is left over.
// False with the position and message of the first problem.
bool ValidateFormatCall(const Expr& call, size_t* pos, std::string* message);

}  // namespace ksched::cel
