// The syntax tree of a CEL expression, as the parser builds it and the
// checker annotates it.
//
// Operators are calls with CEL's internal names ("_&&_", "_+_", "!_",
// "@in", "_[_]"), so the checker and the evaluator treat them like functions.
// `has(a.f)` is a Select with test_only; `cel.bind(x, init, body)` is a Bind;
// `r.all(x, p)`, `r.exists(x, p)`, `r.exists_one(x, p)`, `r.map(x, t)`,
// `r.map(x, f, t)` and `r.filter(x, p)` are Comprehensions over r, and so
// are the two-variable forms (`r.all(i, v, p)`, `r.transformList(i, v, t)`,
// ...). Optional syntax: `a.?f` is a Select with `optional`, `a[?k]` the
// call "_[?_]", `[?x]` and `{?k: v}` mark their entries in
// `optional_entries`, and `o.optMap(x, t)` / `o.optFlatMap(x, t)` are
// Comprehensions over o that bind x to its value. A leading-dot name
// (`.device`, `.size(x)`) is an Ident or global Call with leading_dot.
// `google.protobuf.Duration{seconds: 1}` is a Message: name holds the type's
// dotted name, leading_dot its dot, optional_entries its `?` fields.
//
// Ownership: a tree owns its children. Immutable after checking.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "pkg/cel/regex.h"
#include "pkg/cel/type.h"
#include "pkg/cel/value.h"

namespace ksched::cel {

struct Expr {
  enum class Kind { kLiteral, kIdent, kSelect, kCall, kList, kMap, kBind, kComprehension, kMessage };

  Kind kind = Kind::kLiteral;
  size_t pos = 0;  // byte offset in the expression, for error messages

  Value literal;                            // kLiteral
  std::string name;                         // kIdent, kSelect field, kCall function, kBind variable,
                                            // kComprehension macro, kMessage type
  std::string iter_var;                     // kComprehension
  std::string iter_var2;                    // kComprehension with two variables (index or key, value)
  std::unique_ptr<Expr> target;             // kSelect operand, kCall receiver (member calls), kBind init,
                                            // kComprehension range
  std::vector<std::unique_ptr<Expr>> args;  // kCall args, kList elements, kMap k0 v0 k1 v1 ..., kBind body,
                                            // kComprehension predicate or [filter,] transform, kMessage
                                            // f0 v0 f1 v1 ... (each f an Ident naming the field, at its ':')
  bool test_only = false;                   // kSelect inside has()
  bool optional = false;                    // kSelect written `.?`
  bool leading_dot = false;                 // kIdent or global kCall written `.name` (name holds it without
                                            // the dot): resolved in the root scope (checker.cc)
  std::vector<bool> optional_entries;       // kList elements, kMap entries written `?x`; empty if none
  bool constant_set = false;                // "@in" over a constant list of primitives (fold.h)
  int depth = 1;                            // height of this subtree; the parser bounds it
  std::shared_ptr<const Regex> regex;       // matches() with a constant pattern (fold.h)
  bool int_overload = false;                // isSorted/sum/min/max of a list(free): bound to the int
                                            // overload (checker.cc)

  // Set by the checker.
  Type type;
};

using ExprPtr = std::unique_ptr<Expr>;

}  // namespace ksched::cel
