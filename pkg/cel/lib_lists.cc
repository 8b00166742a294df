// Kubernetes' lists library (isSorted, sum, min, max, indexOf and
// lastIndexOf on lists, includes) and cel-go's lists extension, version 3
// (slice, flatten, sort, sortBy's @sortByAssociatedKeys, reverse, distinct,
// lists.range), over evaluated arguments, with their Go edge cases:
//
//  - a function over a list(dyn) picks its overload by the first element's
//    kind at run time (sum of [1.5] starts from 0.0, of ["a"] has no
//    overload); mixing kinds afterwards fails where Go's Add fails and is
//    ignored where Go's Compare fails (min, max, isSorted);
//  - sort and sortBy need one comparable kind throughout ("list elements
//    must have the same type"); equal keys keep their order (Go's sort.Slice
//    is an insertion sort up to 12 elements, and stable there;
//    docs/conformance.md for longer lists).
//
// Costs follow cel-go's trackers: a new list costs its size plus 11, sort
// and distinct twice the size squared, a traversal its size.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "pkg/cel/eval.h"

namespace ksched::cel {
namespace {

using K = Value::Kind;

// 1.36's includes() refuses longer lists (ResourceSliceMaxAttributeValuesPerDevice).
constexpr size_t kIncludesMaxElements = 48;
// cel-go 0.29's bound on lists.range.
constexpr int64_t kMaxRange = 1'000'000;
// cel-go's callCost + ListCreateBaseCost.
constexpr uint64_t kListCallCost = 11;

bool Comparable(K k) {
  return k == K::kInt || k == K::kUint || k == K::kDouble || k == K::kBool || k == K::kString || k == K::kBytes ||
         k == K::kDuration || k == K::kTimestamp;
}

Value Cancelled() { return Value::Error(kCostLimitExceeded); }

Value IsSorted(const ValueList& l) {
  if (!l.empty() && !Comparable(l[0].kind)) return Value::NoSuchOverload("isSorted(list)");
  for (size_t k = 1; k < l.size(); ++k) {
    if (!Comparable(l[k].kind)) return Value::NoSuchOverload("isSorted");
    if (CompareValues(l[k - 1], l[k]) == 1) return Value::Bool(false);
  }
  return Value::Bool(true);
}

Value Sum(const ValueList& l, CostBudget* budget) {
  if (l.empty()) return Value::Int(0);
  Value acc;
  switch (l[0].kind) {
    case K::kInt: acc = Value::Int(0); break;
    case K::kUint: acc = Value::Uint(0); break;
    case K::kDouble: acc = Value::Double(0); break;
    case K::kDuration: acc = Value::Duration(0); break;
    default: return Value::NoSuchOverload("sum(list)");
  }
  for (const Value& v : l) {
    acc = Arithmetic("_+_", acc, v, budget);
    if (acc.is_error()) return acc;
  }
  return acc;
}

// min (prefer = 1: replace the result when it compares greater) or max.
Value Extreme(const ValueList& l, int prefer, const char* name) {
  if (l.empty()) return Value::Error(std::string(name) + " called on empty list");
  if (!Comparable(l[0].kind)) return Value::NoSuchOverload((std::string(name) + "(list)").c_str());
  size_t best = 0;
  for (size_t k = 1; k < l.size(); ++k) {
    if (!Comparable(l[k].kind)) return Value::NoSuchOverload(name);
    if (CompareValues(l[best], l[k]) == prefer) best = k;
  }
  return l[best];
}

bool Equals(const Value& a, const Value& b) {
  Value eq = Equal(a, b);
  return eq.kind == K::kBool && eq.b;
}

Value IndexOf(const ValueList& l, const Value& item, bool last) {
  const int64_t n = static_cast<int64_t>(l.size());
  for (int64_t k = 0; k < n; ++k) {
    int64_t at = last ? n - 1 - k : k;
    if (Equals(l[static_cast<size_t>(at)], item)) return Value::Int(at);
  }
  return Value::Int(-1);
}

Value Includes(const Value& target, const Value& item, bool unbounded) {
  if (target.kind != K::kList) return Value::Bool(Equals(target, item));
  for (size_t k = 0; k < target.list->size(); ++k) {
    if (!unbounded && k >= kIncludesMaxElements) {
      return Value::Error("'includes' function cannot be applied to lists longer than 48 values");
    }
    if (Equals((*target.list)[k], item)) return Value::Bool(true);
  }
  return Value::Bool(false);
}

Value Slice(const ValueList& l, int64_t start, int64_t end) {
  const std::string call = "cannot slice(" + std::to_string(start) + ", " + std::to_string(end) + "), ";
  if (start < 0 || end < 0) return Value::Error(call + "negative indexes not supported");
  if (start > end) return Value::Error(call + "start index must be less than or equal to end index");
  if (static_cast<int64_t>(l.size()) < end) return Value::Error(call + "list is length " + std::to_string(l.size()));
  return Value::List(ValueList(l.begin() + start, l.begin() + end));
}

void Flatten(const ValueList& l, int64_t depth, ValueList* out) {
  for (const Value& v : l) {
    if (v.kind == K::kList && depth > 0) {
      Flatten(*v.list, depth - 1, out);
    } else {
      out->push_back(v);
    }
  }
}

// The order that sorts `keys`, stable among equal keys; an error value when
// the keys cannot be ordered.
Value SortedOrder(const ValueList& keys, std::vector<size_t>* order) {
  order->resize(keys.size());
  std::iota(order->begin(), order->end(), 0);
  if (keys.empty()) return Value::Null();
  if (!Comparable(keys[0].kind)) return Value::Error("list elements must be comparable");
  for (const Value& k : keys) {
    if (k.kind != keys[0].kind) return Value::Error("list elements must have the same type");
  }
  std::stable_sort(order->begin(), order->end(),
                   [&](size_t a, size_t b) { return CompareValues(keys[a], keys[b]) == -1; });
  return Value::Null();
}

Value SortBy(const ValueList& l, const ValueList& keys) {
  if (l.size() != keys.size()) {
    return Value::Error("@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got " +
                        std::to_string(l.size()) + " and " + std::to_string(keys.size()) + " elements respectively");
  }
  std::vector<size_t> order;
  Value err = SortedOrder(keys, &order);
  if (err.is_error()) return err;
  ValueList out;
  out.reserve(l.size());
  for (size_t k : order) out.push_back(l[k]);
  return Value::List(std::move(out));
}

Value Distinct(const ValueList& l) {
  ValueList out;
  for (const Value& v : l) {
    bool seen = false;
    for (const Value& o : out) {
      if (Equals(v, o)) {
        seen = true;
        break;
      }
    }
    if (!seen) out.push_back(v);
  }
  return Value::List(std::move(out));
}

Value Range(int64_t n, CostBudget* budget) {
  if (budget->bounded_lists_range) {
    if (n < 0) return Value::Error("lists.range: size must be non-negative, got " + std::to_string(n));
    if (n > kMaxRange) {
      return Value::Error("lists.range: size " + std::to_string(n) + " exceeds maximum allowed (" +
                          std::to_string(kMaxRange) + ")");
    }
  }
  if (n <= 0) return Value::List({});
  // Charged before the list exists, so that no range outgrows the budget.
  if (!budget->Charge(static_cast<uint64_t>(n) + kListCallCost)) return Cancelled();
  ValueList out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) out.push_back(Value::Int(k));
  return Value::List(std::move(out));
}

// What sort and distinct cost: twice the size squared (a tenth more for
// strings), as cel-go's tracker has it.
bool ChargeSelfCompare(const ValueList& l, CostBudget* budget) {
  const uint64_t n = l.size();
  const uint64_t sq = n > UINT32_MAX ? UINT64_MAX / 4 : n * n;
  const bool strings = !l.empty() && (l[0].kind == K::kString || l[0].kind == K::kBytes);
  return budget->Charge(sq * 2 + (strings ? sq / 10 : 0) + kListCallCost);
}

}  // namespace

bool IsListsFunction(const std::string& n, bool member, const std::vector<Value>& a) {
  if (!member) return n == "lists.range";
  if (n == "indexOf" || n == "lastIndexOf") return !a.empty() && a[0].kind == K::kList;
  return n == "isSorted" || n == "sum" || n == "min" || n == "max" || n == "includes" || n == "slice" ||
         n == "flatten" || n == "sort" || n == "@sortByAssociatedKeys" || n == "reverse" || n == "distinct";
}

Value CallListsFunction(const std::string& n, const std::vector<Value>& a, CostBudget* budget) {
  if (n == "lists.range") {
    if (a.size() != 1 || a[0].kind != K::kInt) return Value::NoSuchOverload("lists.range");
    return Range(a[0].i, budget);
  }
  if (n == "includes") {
    if (a.size() != 2) return Value::NoSuchOverload("includes");
    if (a[0].kind == K::kList && !budget->Charge(a[0].list->size())) return Cancelled();
    return Includes(a[0], a[1], budget->includes_unbounded);
  }
  if (n == "distinct" && !a.empty() && a[0].kind != K::kList) {
    // cel-go's distinct() assumes a list and panics, ending the evaluation.
    budget->abort = "internal error: interface conversion: value is not traits.Lister";
    return Value::Error(budget->abort);
  }
  if (a.empty() || a[0].kind != K::kList) return Value::NoSuchOverload(n.c_str());
  const ValueList& l = *a[0].list;
  if (n == "isSorted" || n == "sum" || n == "min" || n == "max" || n == "indexOf" || n == "lastIndexOf") {
    if (!budget->Charge(l.size())) return Cancelled();
  }
  if (a.size() == 1) {
    if (n == "isSorted") return IsSorted(l);
    if (n == "sum") return Sum(l, budget);
    if (n == "min") return Extreme(l, 1, "min");
    if (n == "max") return Extreme(l, -1, "max");
    if (n == "flatten") {
      ValueList out;
      Flatten(l, 1, &out);
      if (!budget->Charge(l.size() + kListCallCost)) return Cancelled();
      return Value::List(std::move(out));
    }
    if (n == "sort") {
      if (!ChargeSelfCompare(l, budget)) return Cancelled();
      return SortBy(l, l);
    }
    if (n == "reverse") {
      if (!budget->Charge(l.size() + kListCallCost)) return Cancelled();
      return Value::List(ValueList(l.rbegin(), l.rend()));
    }
    if (n == "distinct") {
      if (!ChargeSelfCompare(l, budget)) return Cancelled();
      return Distinct(l);
    }
    return Value::NoSuchOverload(n.c_str());
  }
  if (a.size() == 2) {
    if (n == "indexOf") return IndexOf(l, a[1], false);
    if (n == "lastIndexOf") return IndexOf(l, a[1], true);
    if (n == "flatten" && a[1].kind == K::kInt) {
      if (a[1].i < 0) return Value::Error("level must be non-negative");
      // cel-go charges the depth times the input's size.
      uint64_t depth = static_cast<uint64_t>(a[1].i);
      uint64_t cost = depth > UINT32_MAX || l.size() > UINT32_MAX ? UINT64_MAX / 2 : depth * l.size();
      if (!budget->Charge(cost + kListCallCost)) return Cancelled();
      ValueList out;
      Flatten(l, a[1].i, &out);
      return Value::List(std::move(out));
    }
    if (n == "@sortByAssociatedKeys" && a[1].kind == K::kList) {
      if (!ChargeSelfCompare(*a[1].list, budget)) return Cancelled();
      return SortBy(l, *a[1].list);
    }
    return Value::NoSuchOverload(n.c_str());
  }
  if (a.size() == 3 && n == "slice" && a[1].kind == K::kInt && a[2].kind == K::kInt) {
    Value out = Slice(l, a[1].i, a[2].i);
    if (!out.is_error() && !budget->Charge(out.list->size() + kListCallCost)) return Cancelled();
    return out;
  }
  return Value::NoSuchOverload(n.c_str());
}

}  // namespace ksched::cel
