// Parser: CEL's grammar (the language definition's precedence: ?:, ||, &&,
// relations and `in`, + -, * / %, unary ! -, member access) into an Expr
// tree. Recursive descent, O(tokens), with a nesting limit so that a hostile
// expression cannot exhaust the stack.
//
// Macros: has(), cel.bind() and the comprehensions r.all(x, p),
// r.exists(x, p), r.exists_one(x, p), r.map(x, [f,] t), r.filter(x, p) and
// the two-variable ones (r.all(i, v, p), r.exists(i, v, p),
// r.existsOne(i, v, p), r.transformList(i, v, [f,] t), r.transformMap(...),
// r.transformMapEntry(...)) become their own nodes; no macro takes a
// leading-dot name (`.has(a.b)` is a call). `T{f: v}` after a (dotted) name
// is a message construction; the checker decides which T it knows. A
// backtick-quoted name (`a-b`) may name a selected field or a message
// field, nothing else, where the release accepts it (options.h).
#pragma once

#include <string_view>

#include "pkg/cel/ast.h"
#include "pkg/cel/options.h"
#include "pkg/util/status.h"

namespace ksched::cel {

// Errors read "L:C: syntax error: ..." or "L:C: ... is not supported".
util::StatusOr<ExprPtr> Parse(std::string_view expr, const CompileOptions& options = {});

}  // namespace ksched::cel
