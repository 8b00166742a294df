// CEL's optional library (cel-go's OptionalTypes, in DRA's environment since
// 1.28, so at every release ksched emulates) over evaluated arguments:
// optional.of, optional.ofNonZeroValue, optional.none, hasValue, value,
// first, last, optional.unwrap and unwrapOpt. `or` and `orValue`, which
// evaluate their argument only when needed, are the evaluator's (eval.cc),
// as are `.?`, `[?]`, optional entries and optMap/optFlatMap.
//
// Cost: 1 per call, as every call (the evaluator charges it).
#include <string>
#include <vector>

#include "pkg/cel/eval.h"
#include "pkg/cel/time_value.h"

namespace ksched::cel {
namespace {

using K = Value::Kind;

// Whether cel-go counts v as its kind's zero value (traits.Zeroer). The
// device's attributes and capacity maps are Kubernetes' own map type, which
// is not a Zeroer; nor are Kubernetes' Quantity, Semver, IP and CIDR, or an
// optional.
bool IsZeroValue(const Value& v) {
  switch (v.kind) {
    case K::kNull: return true;
    case K::kBool: return !v.b;
    case K::kInt: return v.i == 0;
    case K::kUint: return v.u == 0;
    case K::kDouble: return v.d == 0;
    case K::kString:
    case K::kBytes: return v.s.empty();
    case K::kDuration: return v.i == 0;
    case K::kTimestamp: return v.i == kMinTimestampSeconds && v.u == 0;  // Go's zero time, year 1
    case K::kList: return v.list->empty();
    case K::kMap: return v.map->entries.empty() && !v.map->missing_is_empty_map;
    default: return false;
  }
}

Value Unwrap(const Value& list, const char* function) {
  if (list.kind != K::kList) return Value::NoSuchOverload(function);
  ValueList out;
  for (const Value& v : *list.list) {
    if (v.kind != K::kOptional) return Value::Error("value is not optional");
    if (v.held) out.push_back(*v.held);
  }
  return Value::List(std::move(out));
}

}  // namespace

bool IsOptionalFunction(const std::string& name) {
  return name == "optional.of" || name == "optional.ofNonZeroValue" || name == "optional.none" ||
         name == "hasValue" || name == "value" || name == "first" || name == "last" ||
         name == "optional.unwrap" || name == "unwrapOpt";
}

Value CallOptionalFunction(const std::string& name, const std::vector<Value>& args) {
  if (name == "optional.none") return args.empty() ? Value::OptionalNone() : Value::NoSuchOverload("optional.none");
  if (args.size() != 1) return Value::NoSuchOverload(name.c_str());
  const Value& a = args[0];
  if (name == "optional.of") return Value::OptionalOf(a);
  if (name == "optional.ofNonZeroValue") return IsZeroValue(a) ? Value::OptionalNone() : Value::OptionalOf(a);
  if (name == "optional.unwrap" || name == "unwrapOpt") return Unwrap(a, name.c_str());
  if (name == "first" || name == "last") {
    if (a.kind != K::kList) return Value::NoSuchOverload(name.c_str());
    if (a.list->empty()) return Value::OptionalNone();
    return Value::OptionalOf(name == "first" ? a.list->front() : a.list->back());
  }
  if (a.kind != K::kOptional) return Value::NoSuchOverload(name.c_str());
  if (name == "hasValue") return Value::Bool(a.held != nullptr);
  if (!a.held) return Value::Error("optional.none() dereference");
  return *a.held;  // value()
}

}  // namespace ksched::cel
