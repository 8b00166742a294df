// Evaluator: computes a checked Expr over the `device` value, with CEL's
// runtime semantics: errors are values; && and || are commutative over errors
// (false && error is false, true || error is true, whichever side errs);
// == compares across numeric kinds and is false across other kinds (but an
// error for a Quantity, Semver, IP or CIDR compared with another kind, as in
// Kubernetes' library); int and uint arithmetic fails on overflow.
//
// cel.bind variables are computed on first use; comprehensions fold with
// && / || as CEL's macros do.
//
// Cost: every node and every comprehension step costs 1, string work a
// tenth of the bytes it touches, matches() Kubernetes' price plus its own
// search work, against a budget (Kubernetes' selector limit is 1,000,000);
// an exhausted budget ends the evaluation with an error, so no expression
// runs unbounded or builds unbounded strings. O(nodes + steps + bytes).
//
// Thread-safety: Evaluate only reads the tree; the values it creates
// (including the QuantityCells of the device it is given) are its own, so
// concurrent calls on one tree are safe.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "pkg/cel/ast.h"
#include "pkg/cel/value.h"

namespace ksched::cel {

// The message a cost overrun reports.
extern const char kCostLimitExceeded[];

// The evaluation's budget, and its abort state: an exhausted budget, like a
// failure that panics inside Kubernetes' evaluator, ends the whole
// evaluation with an error that && and || cannot absorb.
struct CostBudget {
  uint64_t limit = 0;
  uint64_t used = 0;
  std::string abort;  // non-empty once aborted
  // The evaluation's semantics that vary by release (options.h).
  bool checked_empty_substring_offsets = false;
  bool includes_unbounded = false;
  bool bounded_lists_range = false;
  bool quantity_deep_copy = false;
  bool url_lenient_colons = false;
  bool legacy_label_key_messages = false;
  bool or_passes_non_optionals = false;

  // Adds `units`; false (and aborted) once the limit is exceeded.
  bool Charge(uint64_t units) {
    used += units;
    if (used > limit && abort.empty()) abort = kCostLimitExceeded;
    return used <= limit;
  }
  bool aborted() const { return !abort.empty(); }
};

// `device` is the value of the variable `device` (a map with the fields the
// checker allows).
Value Evaluate(const Expr& root, const Value& device, CostBudget* budget);

// The standard, strings, quantity and semver functions over evaluated
// arguments (receiver first for member calls). Arguments are not errors.
Value CallFunction(const std::string& name, bool member, const std::vector<Value>& args, CostBudget* budget);

// Kubernetes' lists library and cel-go's lists extension (lib_lists.cc):
// whether `name` with these arguments is one of theirs, and its result.
bool IsListsFunction(const std::string& name, bool member, const std::vector<Value>& args);
Value CallListsFunction(const std::string& name, const std::vector<Value>& args, CostBudget* budget);

// Kubernetes' regex library (find, findAll) and strings.quote
// (lib_strings.cc). `compiled` is the pattern when constant (fold.h), or
// nullptr.
bool IsStringsLibFunction(const std::string& name);
Value CallStringsLibFunction(const std::string& name, const std::vector<Value>& args, const Regex* compiled,
                             CostBudget* budget);

// Kubernetes' IP and CIDR libraries (lib_net.cc): whether `name` with these
// arguments is one of theirs (string() of an IP or CIDR included), and its
// result.
bool IsNetFunction(const std::string& name, const std::vector<Value>& args);
Value CallNetFunction(const std::string& name, bool member, const std::vector<Value>& args, CostBudget* budget);

// Kubernetes' URL library (lib_url.cc): whether `name` is one of its
// functions, and its result.
bool IsUrlFunction(const std::string& name);
Value CallUrlFunction(const std::string& name, bool member, const std::vector<Value>& args, CostBudget* budget);

// Kubernetes' format library (lib_kube_format.cc): whether `name` is one
// of its functions (format.named, format.dns1123Label, ..., validate), and
// its result.
bool IsKubeFormatFunction(const std::string& name);
Value CallKubeFormatFunction(const std::string& name, bool member, const std::vector<Value>& args, CostBudget* budget);

// CEL's bytes functions (lib_bytes.cc): bytes(), and string() and size()
// of bytes: whether `name` with these arguments is one of them, and its
// result. CallFunction dispatches to them.
bool IsBytesFunction(const std::string& name, const std::vector<Value>& args);
Value CallBytesFunction(const std::string& name, const std::vector<Value>& args, CostBudget* budget);

// CEL's durations and timestamps (lib_time.cc): duration(), timestamp(),
// int() and string() of either, the getters; whether `name` with these
// arguments is one of them, and its result. CallFunction dispatches to
// them. TimeArithmetic is + and - where either operand is a duration or a
// timestamp (IsTimeArithmetic); Arithmetic dispatches to it.
bool IsTimeFunction(const std::string& name, bool member, const std::vector<Value>& args);
Value CallTimeFunction(const std::string& name, bool member, const std::vector<Value>& args);
bool IsTimeArithmetic(const Value& a, const Value& b);
Value TimeArithmetic(const std::string& op, const Value& a, const Value& b);

// CEL's optional library (lib_optional.cc), but for `or` and `orValue`:
// whether `name` is one of its functions, and its result.
bool IsOptionalFunction(const std::string& name);
Value CallOptionalFunction(const std::string& name, const std::vector<Value>& args);

// Whether the arguments are exactly of these kinds, in order (overload
// dispatch).
bool KindsAre(const std::vector<Value>& args, std::initializer_list<Value::Kind> kinds);

// CEL's ordering of two values of the comparable kinds (int, uint, double
// across each other; bool; string; bytes; duration; timestamp): -1, 0, 1, or 2 when they cannot be
// compared.
int CompareValues(const Value& a, const Value& b);

// The arithmetic operators over two evaluated operands.
Value Arithmetic(const std::string& op, const Value& a, const Value& b, CostBudget* budget);

// CEL equality: true/false, or an error value where Kubernetes' types
// refuse the comparison.
Value Equal(const Value& a, const Value& b);

}  // namespace ksched::cel
