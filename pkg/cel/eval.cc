#include "pkg/cel/eval.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "pkg/cel/lib_format.h"
#include "pkg/cel/time_value.h"
#include "pkg/util/base64.h"

namespace ksched::cel {

const char kCostLimitExceeded[] = "operation cancelled: actual cost limit exceeded";

namespace {

using K = Value::Kind;

bool IsNumber(const Value& v) { return v.kind == K::kInt || v.kind == K::kUint || v.kind == K::kDouble; }

// -1, 0, 1 across int, uint and double; 2 when unordered (NaN).
int CompareNumbers(const Value& a, const Value& b) {
  auto sgn = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (a.kind == K::kInt && b.kind == K::kInt) return sgn(a.i, b.i);
  if (a.kind == K::kUint && b.kind == K::kUint) return sgn(a.u, b.u);
  if (a.kind == K::kInt && b.kind == K::kUint) return a.i < 0 ? -1 : sgn(static_cast<uint64_t>(a.i), b.u);
  if (a.kind == K::kUint && b.kind == K::kInt) return b.i < 0 ? 1 : sgn(a.u, static_cast<uint64_t>(b.i));
  // One side is a double: outside the integer's range by range, otherwise
  // as doubles (the integer rounded), as cel-go compares; its bounds are
  // the integer limits as doubles, so 2^63 equals MaxInt64 there.
  auto cmp_double_int = [&](double d, int64_t i) {
    if (std::isnan(d)) return 2;
    if (d < -9223372036854775808.0) return -1;
    if (d > 9223372036854775808.0) return 1;
    return sgn(d, static_cast<double>(i));
  };
  auto cmp_double_uint = [&](double d, uint64_t u) {
    if (std::isnan(d)) return 2;
    if (d < 0) return -1;
    if (d > 18446744073709551616.0) return 1;
    return sgn(d, static_cast<double>(u));
  };
  if (a.kind == K::kDouble && b.kind == K::kDouble) {
    if (std::isnan(a.d) || std::isnan(b.d)) return 2;
    return sgn(a.d, b.d);
  }
  if (a.kind == K::kDouble && b.kind == K::kInt) return cmp_double_int(a.d, b.i);
  if (a.kind == K::kDouble && b.kind == K::kUint) return cmp_double_uint(a.d, b.u);
  if (b.kind == K::kDouble && a.kind == K::kInt) {
    int c = cmp_double_int(b.d, a.i);
    return c == 2 ? 2 : -c;
  }
  int c = cmp_double_uint(b.d, a.u);
  return c == 2 ? 2 : -c;
}

Value Overflow() { return Value::Error("integer overflow"); }

}  // namespace

Value Arithmetic(const std::string& op, const Value& a, const Value& b, CostBudget* budget) {
  if (IsTimeArithmetic(a, b)) return TimeArithmetic(op, a, b);
  if (a.kind != b.kind) return Value::NoSuchOverload(op.c_str());
  char o = op[1];
  switch (a.kind) {
    case K::kInt: {
      int64_t r = 0;
      switch (o) {
        case '+': if (__builtin_add_overflow(a.i, b.i, &r)) return Overflow(); return Value::Int(r);
        case '-': if (__builtin_sub_overflow(a.i, b.i, &r)) return Overflow(); return Value::Int(r);
        case '*': if (__builtin_mul_overflow(a.i, b.i, &r)) return Overflow(); return Value::Int(r);
        case '/':
          if (b.i == 0) return Value::Error("division by zero");
          if (a.i == std::numeric_limits<int64_t>::min() && b.i == -1) return Overflow();
          return Value::Int(a.i / b.i);
        case '%':
          if (b.i == 0) return Value::Error("modulus by zero");
          if (a.i == std::numeric_limits<int64_t>::min() && b.i == -1) return Overflow();
          return Value::Int(a.i % b.i);
      }
      break;
    }
    case K::kUint: {
      uint64_t r = 0;
      switch (o) {
        case '+': if (__builtin_add_overflow(a.u, b.u, &r)) return Overflow(); return Value::Uint(r);
        case '-': if (__builtin_sub_overflow(a.u, b.u, &r)) return Overflow(); return Value::Uint(r);
        case '*': if (__builtin_mul_overflow(a.u, b.u, &r)) return Overflow(); return Value::Uint(r);
        case '/': if (b.u == 0) return Value::Error("division by zero"); return Value::Uint(a.u / b.u);
        case '%': if (b.u == 0) return Value::Error("modulus by zero"); return Value::Uint(a.u % b.u);
      }
      break;
    }
    case K::kDouble:
      switch (o) {
        case '+': return Value::Double(a.d + b.d);
        case '-': return Value::Double(a.d - b.d);
        case '*': return Value::Double(a.d * b.d);
        case '/': return Value::Double(a.d / b.d);
      }
      break;
    case K::kString:
    case K::kBytes:
      if (o == '+') {
        if (!budget->Charge((a.s.size() + b.s.size()) / 10)) return Value::Error(kCostLimitExceeded);
        Value out = a;
        out.s += b.s;
        return out;
      }
      break;
    case K::kList:
      if (o == '+') {
        if (!budget->Charge((a.list->size() + b.list->size()) / 10)) return Value::Error(kCostLimitExceeded);
        ValueList out = *a.list;
        out.insert(out.end(), b.list->begin(), b.list->end());
        return Value::List(std::move(out));
      }
      break;
    default:
      break;
  }
  return Value::NoSuchOverload(op.c_str());
}

namespace {

// Durations by their nanoseconds, timestamps by the moment (not the zone).
int TimeOrder(const Value& a, const Value& b) {
  auto sgn = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  const int c = sgn(a.i, b.i);
  return c != 0 || a.kind == K::kDuration ? c : sgn(a.u, b.u);
}

}  // namespace

int CompareValues(const Value& a, const Value& b) {
  if (IsNumber(a) && IsNumber(b)) {
    return CompareNumbers(a, b);  // 2 for NaN, which cel-go refuses to order
  }
  if (a.kind != b.kind) return 2;
  // Bytes order as Go's bytes.Compare, strings by their UTF-8 octets: both
  // unsigned, as std::string::compare is.
  if (a.kind == K::kString || a.kind == K::kBytes) {
    int c = a.s.compare(b.s);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.kind == K::kBool) return static_cast<int>(a.b) - static_cast<int>(b.b);
  if (a.kind == K::kDuration || a.kind == K::kTimestamp) return TimeOrder(a, b);
  return 2;
}

namespace {

Value Relation(const std::string& op, const Value& a, const Value& b) {
  int c = 0;
  if (IsNumber(a) && IsNumber(b)) {
    c = CompareNumbers(a, b);
    if (c == 2) return Value::Error("NaN values cannot be ordered");
  } else if ((a.kind == K::kString || a.kind == K::kBytes) && b.kind == a.kind) {
    c = a.s.compare(b.s);
  } else if (a.kind == K::kBool && b.kind == K::kBool) {
    c = static_cast<int>(a.b) - static_cast<int>(b.b);
  } else if ((a.kind == K::kDuration || a.kind == K::kTimestamp) && b.kind == a.kind) {
    c = TimeOrder(a, b);
  } else {
    return Value::NoSuchOverload(op.c_str());
  }
  if (op == "_<_") return Value::Bool(c < 0);
  if (op == "_<=_") return Value::Bool(c <= 0);
  if (op == "_>_") return Value::Bool(c > 0);
  return Value::Bool(c >= 0);
}

// Membership, as CEL's list Contains: the needle's own equality against each
// element, errors counting as "not equal".
Value In(const Value& needle, const Value& haystack) {
  if (haystack.kind == K::kList) {
    for (const Value& e : *haystack.list) {
      Value eq = Equal(needle, e);
      if (eq.kind == K::kBool && eq.b) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  if (haystack.kind == K::kMap) return Value::Bool(haystack.map->Find(needle) != nullptr);
  return Value::NoSuchOverload("@in");
}

// What a device map answers for a missing key: an empty map of the same
// (string-keyed) kind.
Value EmptyMap() {
  auto m = std::make_shared<MapValue>();
  m->string_keyed = true;
  return Value::Map(std::move(m));
}

// A list index as CEL converts one (an int, or a uint or integral double
// that fits), or nullopt with *error set.
std::optional<int64_t> ListIndex(const Value& index, Value* error) {
  if (index.kind == K::kInt) return index.i;
  if (index.kind == K::kUint && index.u <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(index.u);
  if (index.kind == K::kDouble && std::trunc(index.d) == index.d && std::fabs(index.d) < 9.2e18) {
    return static_cast<int64_t>(index.d);
  }
  *error = Value::Error(std::string("unsupported index type '") + KindName(index.kind) + "' in list");
  return std::nullopt;
}

// Kubernetes indexes maps by primitive keys only; a type, IP, CIDR or URL key is
// refused before the lookup, though `in` finds an IP or CIDR.
bool IsQualifier(const Value& key, Value* error) {
  if (key.kind == K::kType) {
    *error = Value::Error("invalid qualifier type: *types.Type");
    return false;
  }
  if (key.kind != K::kIP && key.kind != K::kCIDR && key.kind != K::kURL) return true;
  *error = Value::Error(std::string("invalid qualifier type: cel.") +
                        (key.kind == K::kIP ? "IP" : key.kind == K::kCIDR ? "CIDR" : "URL"));
  return false;
}

Value Index(const Value& target, const Value& index) {
  if (target.kind == K::kList) {
    Value error;
    std::optional<int64_t> k = ListIndex(index, &error);
    if (!k) return error;
    const int64_t i = *k;
    if (i < 0 || i >= static_cast<int64_t>(target.list->size())) {
      return Value::Error("index '" + std::to_string(i) + "' out of range in list size '" +
                          std::to_string(target.list->size()) + "'");
    }
    return (*target.list)[static_cast<size_t>(i)];
  }
  if (target.kind == K::kMap) {
    Value error;
    if (!IsQualifier(index, &error)) return error;
    if (const Value* v = target.map->Find(index)) return *v;
    if (target.map->missing_is_empty_map) return EmptyMap();
    std::string key = index.kind == K::kString ? index.s : std::string(KindName(index.kind));
    return Value::Error("no such key: " + key);
  }
  return Value::NoSuchOverload("_[_]");
}

// The optional qualification `.?f` and `[?k]`, and every field or index
// after one (cel-go's QualifyIfPresent): optional.of the map's entry or
// the list's element when present (a device map's absent key is present,
// as an empty map), optional.none() when absent, an error for an invalid
// list index. A value without fields or elements has none.
Value QualifyIfPresent(const Value& target, const Value& key) {
  if (target.kind == K::kList) {
    Value error;
    std::optional<int64_t> i = ListIndex(key, &error);
    if (!i) return error;
    if (*i < 0 || *i >= static_cast<int64_t>(target.list->size())) return Value::OptionalNone();
    return Value::OptionalOf((*target.list)[static_cast<size_t>(*i)]);
  }
  if (target.kind == K::kMap) {
    Value error;
    if (!IsQualifier(key, &error)) return error;
    if (const Value* v = target.map->Find(key)) return Value::OptionalOf(*v);
    return target.map->missing_is_empty_map ? Value::OptionalOf(EmptyMap()) : Value::OptionalNone();
  }
  return Value::OptionalNone();
}

class Evaluator {
 public:
  Evaluator(const Value& device, CostBudget* budget) : device_(device), budget_(budget) {}

  Value Eval(const Expr& e) {
    if (!budget_->Charge(1)) return Value::Error(kCostLimitExceeded);
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return e.literal;
      case Expr::Kind::kIdent:
        // A leading-dot identifier left so by the checker names the root
        // scope's variable, the device, past any local of its name.
        for (size_t k = scope_.size(); k-- > 0 && !e.leading_dot;) {
          if (scope_[k].name == e.name) return Force(k);
        }
        return device_;
      case Expr::Kind::kSelect:
        return Select(e);
      case Expr::Kind::kList: {
        ValueList out;
        for (size_t k = 0; k < e.args.size(); ++k) {
          Value v = Eval(*e.args[k]);
          if (v.is_error()) return v;
          if (!e.optional_entries.empty() && e.optional_entries[k]) {
            if (v.kind != K::kOptional) return NotOptional(v);
            if (!v.held) continue;
            v = *v.held;
          }
          out.push_back(std::move(v));
        }
        return Value::List(std::move(out));
      }
      case Expr::Kind::kMap: {
        auto m = std::make_shared<MapValue>();
        for (size_t k = 0; k < e.args.size(); k += 2) {
          Value key = Eval(*e.args[k]);
          if (key.is_error()) return key;
          if (IsUnhashable(key)) return Unhashable(key);
          Value val = Eval(*e.args[k + 1]);
          if (val.is_error()) return val;
          if (!e.optional_entries.empty() && e.optional_entries[k / 2]) {
            if (val.kind != K::kOptional) return NotOptional(val);
            if (!val.held) continue;
            val = *val.held;
          }
          // A repeated key keeps its last value, as Kubernetes' maps do;
          // timestamps are the same key only in the same Go zone, URLs only
          // from the same url() call (value.cc).
          bool replaced = false;
          for (auto& [k, v] : m->entries) {
            if (!replaced && Equal(k, key).b && k.kind == key.kind &&
                (k.kind != K::kTimestamp || k.zone_id == key.zone_id) && (k.kind != K::kURL || k.url == key.url)) {
              v = std::move(val);
              replaced = true;
            }
          }
          if (!replaced) m->entries.emplace_back(std::move(key), std::move(val));
        }
        return Value::Map(std::move(m));
      }
      case Expr::Kind::kMessage:
        return Message(e);
      case Expr::Kind::kBind: {
        scope_.push_back(Binding{e.name, e.target.get(), std::nullopt});
        Value out = Eval(*e.args[0]);
        scope_.pop_back();
        return out;
      }
      case Expr::Kind::kCall:
        return Call(e);
      case Expr::Kind::kComprehension:
        if (e.name == "optMap" || e.name == "optFlatMap") return OptionalMacro(e);
        return Comprehension(e);
    }
    return Value::Error("unknown expression");
  }

 private:
  // A message the checker lets through: its fields read as cel-go reads
  // them, then made a value as a Duration, a Timestamp or a wrapper; a
  // kubernetes.DRADevice, which cel-go's registry does not know, fails once
  // its fields are read.
  Value Message(const Expr& e) {
    if (e.name == "kubernetes.DRADevice") {
      std::optional<Value> fields[4];
      if (std::optional<Value> error =
              MessageFields(e, {"driver", "attributes", "capacity", "allowMultipleAllocations"}, fields)) {
        return *error;
      }
      return Value::Error("unknown type 'kubernetes.DRADevice'");
    }
    if (e.name == "google.protobuf.Struct" || e.name == "google.protobuf.ListValue") {
      const bool is_struct = e.name == "google.protobuf.Struct";
      const std::string field = is_struct ? "fields" : "values";
      std::optional<Value> value[1];
      if (std::optional<Value> error = MessageFields(e, {field}, value)) return *error;
      if (!value[0]) return is_struct ? Value::Map(std::make_shared<MapValue>()) : Value::List({});
      if (value[0]->kind != (is_struct ? K::kMap : K::kList)) {
        return Value::Error("unsupported field type for " + e.name + "." + field + ": " + KindName(value[0]->kind));
      }
      return JsonField(e, field, *value[0]);
    }
    if (e.name == "google.protobuf.Value") return JsonValueMessage(e);
    if (e.type.wrapper) {
      std::optional<Value> value[1];
      if (std::optional<Value> error = MessageFields(e, {"value"}, value)) return *error;
      return WrapperValue(e, value[0]);
    }
    std::optional<Value> fields[2];  // seconds, nanos
    if (std::optional<Value> error = MessageFields(e, {"seconds", "nanos"}, fields)) return *error;
    return TimeMessage(e, fields);
  }

  // Sets fields[k] to the value of the field names[k] as cel-go builds a
  // message: the fields evaluated in order (the first error the answer,
  // returned), a repeated field's last value kept and an absent `?` field
  // clearing it.
  std::optional<Value> MessageFields(const Expr& e, std::initializer_list<std::string_view> names,
                                     std::optional<Value>* fields) {
    for (size_t k = 0; k < e.args.size(); k += 2) {
      const auto named = std::find(names.begin(), names.end(), e.args[k]->name);
      std::optional<Value>& field = fields[named - names.begin()];
      Value v = Eval(*e.args[k + 1]);
      if (v.is_error()) return v;
      if (!e.optional_entries.empty() && e.optional_entries[k / 2]) {
        if (v.kind != K::kOptional) return NotOptional(v);
        if (!v.held) {
          field.reset();
          continue;
        }
        v = *v.held;
      }
      field = std::move(v);
    }
    return std::nullopt;
  }

  // A wrapper message's value: the value field converted to the wrapped
  // protobuf type (an int32 or uint32 in range, a double rounded to a
  // float), or that type's zero when absent.
  static Value WrapperValue(const Expr& e, const std::optional<Value>& value) {
    const Value zero = ZeroOf(e.type.kind);
    if (!value) return zero;
    const Value& v = *value;
    const std::string prefix = "field type conversion error for " + e.name + ".value value type: ";
    if (v.kind != zero.kind) {
      return Value::Error(prefix + "type conversion error from '" + KindName(v.kind) + "' to '" + KindName(zero.kind) +
                          "'");
    }
    if (e.name == "google.protobuf.Int32Value" && (v.i < INT32_MIN || v.i > INT32_MAX)) {
      return Value::Error(prefix + "integer overflow");
    }
    if (e.name == "google.protobuf.UInt32Value" && v.u > UINT32_MAX) {
      return Value::Error(prefix + "unsigned integer overflow");
    }
    if (e.name == "google.protobuf.FloatValue") return Value::Double(ToFloat32(v.d));
    return v;
  }

  // google.protobuf.Value{f: v}: each field given converted as cel-go sets
  // it (a dyn optional.of(x) unwrapped; a null_value an int in int32's
  // range, any one of which is JSON's null), any failure the answer; the
  // value is then the last field given, its kind's (null when none is). Go
  // sets distinct fields in map order, so with two of them Kubernetes'
  // answer is random: celcompare gives one.
  Value JsonValueMessage(const Expr& e) {
    static constexpr std::string_view kFields[] = {"null_value", "number_value", "string_value",
                                                   "bool_value", "struct_value", "list_value"};
    std::optional<Value> fields[6];
    if (std::optional<Value> error = MessageFields(
            e, {kFields[0], kFields[1], kFields[2], kFields[3], kFields[4], kFields[5]}, fields)) {
      return *error;
    }
    static constexpr K kKinds[] = {K::kInt, K::kDouble, K::kString, K::kBool, K::kMap, K::kList};
    Value out = Value::Null();
    std::optional<size_t> last_position;
    for (size_t f = 0; f < 6; ++f) {
      if (!fields[f]) continue;
      Value v = *fields[f];
      const std::string prefix =
          "field type conversion error for google.protobuf.Value." + std::string(kFields[f]) + " value type: ";
      if (v.kind == K::kOptional) {
        if (!v.held) return Value::Error(prefix + "optional.none() dereference");
        v = *v.held;
      }
      if (v.kind != kKinds[f]) {
        return Value::Error(prefix + "type conversion error from '" + KindName(v.kind) + "' to '" +
                            KindName(kKinds[f]) + "'");
      }
      Value converted = v;
      if (f == 0) {
        if (v.i < INT32_MIN || v.i > INT32_MAX) return Value::Error(prefix + "integer overflow");
        converted = Value::Null();
      } else if (f >= 4) {
        converted = ToJson(v);
        if (converted.is_error()) return Value::Error(prefix + converted.s);
      }
      // The field's last position among the entries.
      size_t position = 0;
      for (size_t k = 0; k < e.args.size(); k += 2) {
        if (e.args[k]->name == kFields[f]) position = k;
      }
      if (!last_position || position > *last_position) {
        last_position = position;
        out = std::move(converted);
      }
    }
    return out;
  }

  // A Struct's fields or a ListValue's values (a map or a list) as JSON.
  static Value JsonField(const Expr& e, const std::string& field, const Value& v) {
    Value json = ToJson(v);
    if (json.is_error()) return Value::Error("field type conversion error for " + e.name + "." + field + " value type: " + json.s);
    return json;
  }

  // v converted to a google.protobuf.Value and back, as cel-go converts a
  // value to JSON (proto3's JSON mapping) and reads the result: numbers
  // become doubles (an int or uint beyond 2^53 - 1 a decimal string),
  // bytes base64, durations and timestamps their string(), lists and maps
  // element by element (map keys must be strings), optional.of(x) x; any
  // other value fails.
  static Value ToJson(const Value& v) {
    constexpr int64_t kMaxJsonInt = (int64_t{1} << 53) - 1;
    switch (v.kind) {
      case K::kNull:
      case K::kBool:
      case K::kDouble:
      case K::kString:
        return v;
      case K::kInt:
        if (v.i >= -kMaxJsonInt && v.i <= kMaxJsonInt) return Value::Double(static_cast<double>(v.i));
        return Value::String(std::to_string(v.i));
      case K::kUint:
        if (v.u <= static_cast<uint64_t>(kMaxJsonInt)) return Value::Double(static_cast<double>(v.u));
        return Value::String(std::to_string(v.u));
      case K::kBytes:
        return Value::String(util::EncodeBase64(v.s));
      case K::kDuration:
        return Value::String(FormatDuration(v.i));
      case K::kTimestamp:
        return Value::String(FormatRfc3339Nano(Timestamp{v.i, static_cast<int32_t>(v.u), v.zone_offset}));
      case K::kOptional:
        if (!v.held) return Value::Error("optional.none() dereference");
        return ToJson(*v.held);
      case K::kList: {
        ValueList out;
        out.reserve(v.list->size());
        for (const Value& x : *v.list) {
          out.push_back(ToJson(x));
          if (out.back().is_error()) return out.back();
        }
        return Value::List(std::move(out));
      }
      case K::kMap: {
        auto out = std::make_shared<MapValue>();
        out->entries.reserve(v.map->entries.size());
        for (const auto& [key, value] : v.map->entries) {
          if (key.kind != K::kString) {
            return Value::Error(std::string("unsupported type conversion from '") + KindName(key.kind) + "' to string");
          }
          Value json = ToJson(value);
          if (json.is_error()) return json;
          out->entries.emplace_back(key, std::move(json));
        }
        return Value::Map(std::move(out));
      }
      case K::kType:
        return Value::Error("type conversion not supported for 'type'");
      case K::kError:
        return v;
      default:
        return Value::Error(std::string("type conversion error from '") + KindName(v.kind) + "' to '*structpb.Value'");
    }
  }

  static Value ZeroOf(TypeKind kind) {
    switch (kind) {
      case TypeKind::kBool: return Value::Bool(false);
      case TypeKind::kInt: return Value::Int(0);
      case TypeKind::kUint: return Value::Uint(0);
      case TypeKind::kDouble: return Value::Double(0);
      case TypeKind::kString: return Value::String("");
      default: return Value::Bytes("");
    }
  }

  // Go's float32(d): rounded to the nearest float, ±Inf from half a unit
  // past the largest (2^128 - 2^103, which rounds up to 2^128).
  static double ToFloat32(double d) {
    constexpr double kOverflow = 3.4028235677973366e38;
    if (std::isfinite(d) && std::fabs(d) >= kOverflow) return std::copysign(HUGE_VAL, d);
    if (std::isfinite(d) && std::fabs(d) > FLT_MAX) return std::copysign(static_cast<double>(FLT_MAX), d);
    return static_cast<double>(static_cast<float>(d));
  }

  // A google.protobuf.Duration or Timestamp from its fields, converted as
  // protobuf's int64 seconds and int32 nanos, and made a value as Go's
  // AsDuration (saturating on overflow) and AsTime (carrying nanos) do.
  static Value TimeMessage(const Expr& e, const std::optional<Value> (&fields)[2]) {
    int64_t seconds = 0, nanos = 0;
    for (int f = 0; f < 2; ++f) {
      if (!fields[f]) continue;
      const Value& v = *fields[f];
      const std::string prefix =
          "field type conversion error for " + e.name + (f == 0 ? ".seconds" : ".nanos") + " value type: ";
      switch (v.kind) {
        case K::kInt:
          break;
        case K::kString:
          return Value::Error(prefix + "unsupported native conversion from string to 'int64'");
        case K::kUint:
          return Value::Error(prefix + "unsupported type conversion from 'uint' to int64");
        case K::kDouble:
          return Value::Error(prefix + "type conversion error from Double to 'int64'");
        default:
          return Value::Error(prefix + "type conversion error from '" + KindName(v.kind) + "' to 'int64'");
      }
      if (f == 0) {
        seconds = v.i;
      } else {
        if (v.i < INT32_MIN || v.i > INT32_MAX) return Value::Error(prefix + "integer overflow");
        nanos = v.i;
      }
    }
    if (e.type.kind == TypeKind::kDuration) {
      // Go's durationpb AsDuration: seconds * 1e9 + nanos, saturated when
      // either step overflows.
      int64_t d = 0;
      if (__builtin_mul_overflow(seconds, kNanosPerSecond, &d) || __builtin_add_overflow(d, nanos, &d)) {
        return Value::Duration(seconds < 0 ? INT64_MIN : INT64_MAX);
      }
      return Value::Duration(d);
    }
    // time.Unix(seconds, nanos).UTC(): nanos carried into seconds. cel-go
    // keeps a timestamp whose year is below 1 or above 9999 (only adding or
    // subtracting a duration range-checks its result); so does pkg/cel
    // within 2^53 seconds of 1970 (about 285 million years), where its
    // calendar arithmetic cannot overflow, and refuses one beyond.
    int64_t carry = nanos / kNanosPerSecond;
    nanos %= kNanosPerSecond;
    if (nanos < 0) {
      nanos += kNanosPerSecond;
      --carry;
    }
    constexpr int64_t kWidest = int64_t{1} << 53;
    if (__builtin_add_overflow(seconds, carry, &seconds) || seconds < -kWidest || seconds > kWidest) {
      return Value::Error("a google.protobuf.Timestamp more than 2^53 seconds from 1970 is not supported");
    }
    return Value::Time(seconds, static_cast<int32_t>(nanos), 0, 0);
  }

  // A `?` entry of a list or map literal whose value is not optional.
  static Value NotOptional(const Value& v) {
    return Value::Error(std::string("cannot initialize optional entry from non-optional value of type ") +
                        KindName(v.kind));
  }

  // o.optMap(x, t): optional.of(t) with x bound to o's value, and
  // o.optFlatMap(x, t): t so; optional.none() when o has no value.
  Value OptionalMacro(const Expr& e) {
    Value o = Eval(*e.target);
    if (o.is_error()) return o;
    if (o.kind != K::kOptional) return Value::NoSuchOverload("hasValue");
    if (!o.held) return o;
    scope_.push_back(Binding{e.iter_var, nullptr, *o.held});
    Value t = Eval(*e.args[0]);
    scope_.pop_back();
    if (t.is_error() || e.name == "optFlatMap") return t;
    return Value::OptionalOf(std::move(t));
  }

  // A chain of field selections and indexes, resolved as cel-go resolves an
  // attribute: the root (whatever the chain starts from; both branches of a
  // ?: the chain passes through) is unwrapped when optional, an absent one
  // ending the chain; then each qualification applies in turn, as
  // QualifyIfPresent once the root or any qualification was optional (an
  // absent field or element ends the chain), strictly otherwise. An
  // optional value met inside the chain is not unwrapped: it has no fields
  // ({"a": optional.of({"b": 1})}.a.b is an error).
  struct Resolution {
    Value obj;              // the value reached; an error; or the optional.none() that ended the chain
    bool optional = false;  // the chain's value is optional.of(obj)
    bool ended = false;
  };

  static bool IsQualification(const Expr& e) {
    return (e.kind == Expr::Kind::kSelect && !e.test_only) ||
           (e.kind == Expr::Kind::kCall && (e.name == "_[_]" || e.name == "_[?_]"));
  }

  // `charge`: e's cost is not yet counted (Eval counts the nodes it visits;
  // Resolve visits the chain's own nodes itself).
  Resolution Resolve(const Expr& e, bool charge = true) {
    const bool ternary = e.kind == Expr::Kind::kCall && e.name == "_?_:_";
    if (charge && (ternary || IsQualification(e)) && !budget_->Charge(1)) return {Value::Error(kCostLimitExceeded)};
    if (ternary) {
      Value c = Eval(*e.args[0]);
      if (c.is_error() || budget_->aborted()) return {c};
      if (c.kind != K::kBool) return {Value::NoSuchOverload("_?_:_")};
      return Resolve(*e.args[c.b ? 1 : 2]);
    }
    if (!IsQualification(e)) {
      Value root = Eval(e);
      if (root.kind != K::kOptional) return {std::move(root)};
      if (!root.held) return {std::move(root), true, true};
      return {*root.held, true, false};
    }
    const bool select = e.kind == Expr::Kind::kSelect;
    Resolution r = Resolve(select ? *e.target : *e.args[0]);
    if (r.ended) return r;
    Value key = Value::String(e.name);
    if (!select) {
      if (budget_->aborted()) return {Value::Error(budget_->abort)};
      // The index is evaluated even after the operand failed, so that its
      // cost counts.
      key = Attribute(*e.args[1]);
      if (r.obj.is_error()) return r;
      if (key.is_error()) return {key};
      if (const char* type = UnqualifiableType(key.kind)) {
        return {Value::Error(std::string("invalid qualifier type: ") + type)};
      }
    }
    if (r.obj.is_error()) return r;
    r.optional = r.optional || e.optional || e.name == "_[?_]";
    if (!r.optional) {
      r.obj = select ? Field(r.obj, e.name) : Index(r.obj, key);
      return r;
    }
    Value q = QualifyIfPresent(r.obj, key);
    if (q.is_error()) return {std::move(q)};
    if (!q.held) return {std::move(q), true, true};
    r.obj = *q.held;
    return r;
  }

  // A field of a value outside an optional chain; an optional value there
  // has none, as a map without the key (cel-go's message).
  static Value Field(const Value& target, const std::string& name) {
    if (target.kind == K::kOptional) return Value::Error("no such key: " + name);
    if (target.kind != K::kMap) {
      return Value::Error(std::string("type '") + KindName(target.kind) + "' does not support field selection");
    }
    if (const Value* v = target.map->Find(Value::String(name))) return *v;
    if (target.map->missing_is_empty_map) return EmptyMap();
    return Value::Error("no such key: " + name);
  }

  // A selection or index: its chain's value (Resolve).
  Value Qualification(const Expr& e) {
    Resolution r = Resolve(e, false);
    if (r.obj.is_error() || r.ended || !r.optional) return std::move(r.obj);
    return Value::OptionalOf(std::move(r.obj));
  }

  // has(a.f). Outside an optional chain, whether f is present: a list
  // fails as a string index of a list does, any other value without fields
  // has none. In an optional chain cel-go asks for f's value if present;
  // has() makes that a bool, but where cel-go reads has() as a chain of its
  // own (as_attribute: a branch of ?: or an index, see Attribute) the
  // value itself is the answer: optional.of(f's value) or optional.none().
  Value Has(const Expr& e, bool as_attribute) {
    Resolution r = Resolve(*e.target);
    if (r.obj.is_error()) return std::move(r.obj);
    if (r.ended) return as_attribute ? std::move(r.obj) : Value::Bool(false);
    if (r.optional) {
      Value q = QualifyIfPresent(r.obj, Value::String(e.name));
      if (q.is_error() || as_attribute) return q;
      return Value::Bool(q.held != nullptr);
    }
    const Value& target = r.obj;
    if (target.kind == K::kList) {
      Value error;
      ListIndex(Value::String(e.name), &error);
      return error;
    }
    if (target.kind != K::kMap) return Value::Bool(false);
    return Value::Bool(target.map->Find(Value::String(e.name)) != nullptr || target.map->missing_is_empty_map);
  }

  // An expression where cel-go takes an attribute's value as is rather than
  // evaluating it: a branch of ?: and an index. Only has() differs.
  Value Attribute(const Expr& e) {
    const bool has = e.kind == Expr::Kind::kSelect && e.test_only;
    const bool ternary = e.kind == Expr::Kind::kCall && e.name == "_?_:_";
    if (!has && !ternary) return Eval(e);
    if (!budget_->Charge(1)) return Value::Error(kCostLimitExceeded);
    return has ? Has(e, true) : Ternary(e);
  }

  // c ? a : b. cel-go reads both branches as attributes (Attribute), even
  // where the ?: itself is evaluated.
  Value Ternary(const Expr& e) {
    Value c = Eval(*e.args[0]);
    if (c.is_error() || budget_->aborted()) return c;
    if (c.kind != K::kBool) return Value::NoSuchOverload("_?_:_");
    return Attribute(*e.args[c.b ? 1 : 2]);
  }

  // o.or(p) and o.orValue(v): o if it has a value (its value for orValue),
  // otherwise the argument, evaluated only then. An o that is not an
  // optional is passed through or refused, by release (options.h).
  Value OptionalOr(const Expr& e) {
    Value o = Eval(*e.target);
    if (o.is_error()) return o;
    if (o.kind != K::kOptional) return budget_->or_passes_non_optionals ? o : Value::NoSuchOverload(e.name.c_str());
    if (o.held) return e.name == "or" ? o : *o.held;
    return Eval(*e.args[0]);
  }

  Value Select(const Expr& e) { return e.test_only ? Has(e, false) : Qualification(e); }

  // all/exists fold with && / || (so errors are absorbed as there and the
  // loop stops once decided), exists_one counts, map and filter collect;
  // an error in map's or filter's condition or transform is the result.
  // Maps are ranged over their keys, in their order.
  Value Comprehension(const Expr& e) {
    Value range = Eval(*e.target);
    if (range.is_error()) return range;
    const bool two = !e.iter_var2.empty();
    // (first variable, second variable): (element or key, -) with one
    // variable, (index or key, value) with two.
    std::vector<std::pair<Value, Value>> items;
    if (range.kind == K::kList) {
      for (size_t k = 0; k < range.list->size(); ++k) {
        const Value& v = (*range.list)[k];
        items.emplace_back(two ? Value::Int(static_cast<int64_t>(k)) : v, v);
      }
    } else if (range.kind == K::kMap) {
      for (const auto& [k, v] : range.map->entries) items.emplace_back(k, v);
    } else {
      return Value::Error(std::string("cannot range over a ") + KindName(range.kind));
    }
    const std::string& m = e.name;
    bool is_all = m == "all";
    Value accu = m == "exists_one" ? Value::Int(0) : Value::Bool(is_all);
    ValueList collected;
    auto out_map = std::make_shared<MapValue>();
    scope_.push_back(Binding{e.iter_var, nullptr, std::nullopt});
    if (two) scope_.push_back(Binding{e.iter_var2, nullptr, std::nullopt});
    const size_t slot = scope_.size() - (two ? 2 : 1);
    for (const auto& [item, item_value] : items) {
      if (!budget_->Charge(1)) break;
      scope_[slot].value = item;
      if (two) scope_[slot + 1].value = item_value;
      if (is_all || m == "exists") {
        // Stop once the result is strictly decided.
        if (accu.kind == K::kBool && accu.b != is_all) break;
        Value v = Eval(*e.args[0]);
        if (budget_->aborted()) break;
        accu = Combine(accu, v, is_all);
      } else if (m == "exists_one") {
        Value v = Eval(*e.args[0]);
        if (v.is_error()) return Pop(v, two);
        if (v.kind != K::kBool) return Pop(Value::NoSuchOverload("_?_:_"), two);
        if (v.b) accu.i += 1;
      } else {
        bool keep = true;
        if (m == "filter" || e.args.size() == 2) {
          Value c = Eval(*e.args[0]);
          if (c.is_error()) return Pop(c, two);
          if (c.kind != K::kBool) return Pop(Value::NoSuchOverload("_?_:_"), two);
          keep = c.b;
        }
        if (!keep) continue;
        if (m == "filter") {
          collected.push_back(item);
          continue;
        }
        Value t = Eval(*e.args.back());
        if (t.is_error()) return Pop(t, two);
        if (m == "transformMap") {
          if (IsUnhashable(item)) return Pop(Unhashable(item), two);
          out_map->entries.emplace_back(item, std::move(t));
        } else if (m == "transformMapEntry") {
          if (t.kind != K::kMap) return Pop(Value::NoSuchOverload("transformMapEntry"), two);
          for (const auto& [k, v] : t.map->entries) {
            if (IsUnhashable(k)) return Pop(Unhashable(k), two);
            if (out_map->Find(k)) {
              return Pop(Value::Error("insert failed: key " + (k.kind == K::kString ? k.s : std::string(KindName(k.kind))) +
                                      " already exists"),
                         two);
            }
            out_map->entries.emplace_back(k, v);
          }
        } else {
          collected.push_back(std::move(t));
        }
      }
    }
    if (budget_->aborted()) return Pop(Value::Error(budget_->abort), two);
    if (m == "exists_one") return Pop(Value::Bool(accu.i == 1), two);
    if (m == "map" || m == "filter" || m == "transformList") return Pop(Value::List(std::move(collected)), two);
    if (m == "transformMap" || m == "transformMapEntry") return Pop(Value::Map(std::move(out_map)), two);
    return Pop(accu, two);
  }

  // The sets extension over lists, with `in`'s element equality.
  static Value Sets(const std::string& n, const std::vector<Value>& a) {
    if (a.size() != 2 || a[0].kind != K::kList || a[1].kind != K::kList) return Value::NoSuchOverload(n.c_str());
    auto contains_all = [](const Value& list, const Value& sub) {
      for (const Value& v : *sub.list) {
        Value in = In(v, list);
        if (!(in.kind == K::kBool && in.b)) return false;
      }
      return true;
    };
    if (n == "sets.contains") return Value::Bool(contains_all(a[0], a[1]));
    if (n == "sets.equivalent") return Value::Bool(contains_all(a[0], a[1]) && contains_all(a[1], a[0]));
    for (const Value& v : *a[1].list) {
      Value in = In(v, a[0]);
      if (in.kind == K::kBool && in.b) return Value::Bool(true);
    }
    return Value::Bool(false);
  }

  // Kubernetes panics hashing a semver or bytes (a map key, a set member),
  // which ends the whole evaluation.
  static bool IsUnhashable(const Value& v) {
    return v.kind == K::kSemver || v.kind == K::kBytes || v.kind == K::kFormat;
  }
  Value Unhashable(const Value& v) {
    budget_->abort = v.kind == K::kSemver  ? "internal error: hash of unhashable type cel.Semver"
                     : v.kind == K::kBytes ? "internal error: runtime error: hash of unhashable type types.Bytes"
                                           : "internal error: runtime error: hash of unhashable type cel.Format";
    return Value::Error(budget_->abort);
  }

  Value Pop(Value v, bool two) {
    scope_.pop_back();
    if (two) scope_.pop_back();
    return v;
  }

  // accu && v (or ||) with CEL's commutative error handling.
  static Value Combine(const Value& accu, const Value& v, bool is_and) {
    if (accu.kind == K::kBool && accu.b != is_and) return accu;
    if (v.kind == K::kBool && v.b != is_and) return v;
    if (accu.kind != K::kBool) return accu.is_error() ? accu : Value::NoSuchOverload(is_and ? "_&&_" : "_||_");
    if (v.kind != K::kBool) return v.is_error() ? v : Value::NoSuchOverload(is_and ? "_&&_" : "_||_");
    return Value::Bool(is_and);
  }

  Value Logic(const Expr& e, bool is_and) {
    // Evaluated left to right; the deciding value short-circuits, the first
    // error or non-bool otherwise wins.
    Value err;
    bool have_err = false;
    for (const auto& term : e.args) {
      Value v = Eval(*term);
      if (budget_->aborted()) return Value::Error(budget_->abort);
      if (v.kind == K::kBool) {
        if (v.b != is_and) return Value::Bool(!is_and);
        continue;
      }
      if (!have_err) {
        err = v.is_error() ? v : Value::NoSuchOverload(e.name.c_str());
        have_err = true;
      }
    }
    if (have_err) return err;
    return Value::Bool(is_and);
  }

  Value Call(const Expr& e) {
    const std::string& n = e.name;
    if (n == "_&&_") return Logic(e, true);
    if (n == "_||_") return Logic(e, false);
    if (n == "_[_]" || n == "_[?_]") return Qualification(e);
    if ((n == "or" || n == "orValue") && e.target && e.args.size() == 1) return OptionalOr(e);
    if (n == "_?_:_") return Ternary(e);
    // Every argument is evaluated, as cel-go does, so that a later one's
    // cost or abort counts even when an earlier one failed; the first
    // error is the result.
    std::vector<Value> args;
    std::optional<Value> failed;
    if (e.target) {
      Value t = Eval(*e.target);
      if (t.is_error()) failed = t;
      args.push_back(std::move(t));
    }
    for (const auto& a : e.args) {
      if (budget_->aborted()) return Value::Error(budget_->abort);
      Value v = Eval(*a);
      if (v.is_error() && !failed) failed = v;
      args.push_back(std::move(v));
    }
    if (failed) {
      // cel-go's cost trackers of sort, distinct and sortBy read the list
      // they got, and panic on an error there, which ends the evaluation;
      // they run where the checker chose one overload (not for sort over
      // a list(dyn), whose overload is chosen at run time).
      auto one_overload = [](const Type& t) {
        if (t.kind != Type::Kind::kList) return false;
        Type::Kind k = t.elem->kind;
        return k == Type::Kind::kInt || k == Type::Kind::kUint || k == Type::Kind::kDouble ||
               k == Type::Kind::kBool || k == Type::Kind::kString || k == Type::Kind::kBytes ||
               k == Type::Kind::kDuration || k == Type::Kind::kTimestamp ||
               k == Type::Kind::kFree;
      };
      const bool tracked =
          e.target && ((n == "distinct" && args[0].is_error()) ||
                       (n == "sort" && args[0].is_error() && one_overload(e.target->type)) ||
                       (n == "@sortByAssociatedKeys" && args.size() == 2 && args[1].is_error() &&
                        one_overload(e.args[0]->type)));
      if (tracked) {
        budget_->abort = "internal error: interface conversion: *types.Err is not traits.Lister";
        return Value::Error(budget_->abort);
      }
      return *failed;
    }
    if (n == "!_") return args[0].kind == K::kBool ? Value::Bool(!args[0].b) : Value::NoSuchOverload("!_");
    if (n == "-_") {
      if (args[0].kind == K::kInt) {
        if (args[0].i == std::numeric_limits<int64_t>::min()) return Overflow();
        return Value::Int(-args[0].i);
      }
      if (args[0].kind == K::kDouble) return Value::Double(-args[0].d);
      return Value::NoSuchOverload("-_");
    }
    if (n == "_==_") return Equal(args[0], args[1]);
    if (n == "_!=_") {
      Value eq = Equal(args[0], args[1]);
      return Value::Bool(!(eq.kind == K::kBool && eq.b));
    }
    if (n == "_+_" || n == "_-_" || n == "_*_" || n == "_/_" || n == "_%_") {
      return Arithmetic(n, args[0], args[1], budget_);
    }
    if (n == "_<_" || n == "_<=_" || n == "_>_" || n == "_>=_") return Relation(n, args[0], args[1]);
    if (n == "@in") {
      // A constant list of primitives is a hash set in Kubernetes, and a
      // semver or bytes cannot be hashed.
      if (IsUnhashable(args[0]) &&
          (e.constant_set || (args[1].kind == K::kMap && !args[1].map->string_keyed))) {
        return Unhashable(args[0]);
      }
      return In(args[0], args[1]);
    }
    if (n == "matches") return Matches(e, args);
    if (n == "type" && !e.target && args.size() == 1) return Value::TypeNamed(KindName(args[0].kind));
    if (n == "sets.contains" || n == "sets.equivalent" || n == "sets.intersects") return Sets(n, args);
    if (IsStringsLibFunction(n)) return CallStringsLibFunction(n, args, e.regex.get(), budget_);
    if (IsNetFunction(n, args)) return CallNetFunction(n, e.target != nullptr, args, budget_);
    if (IsUrlFunction(n)) return CallUrlFunction(n, e.target != nullptr, args, budget_);
    if (IsKubeFormatFunction(n)) return CallKubeFormatFunction(n, e.target != nullptr, args, budget_);
    if (IsListsFunction(n, e.target != nullptr, args)) {
      if (e.int_overload && args[0].kind == K::kList && !args[0].list->empty() && args[0].list->front().kind != K::kInt) {
        return Value::NoSuchOverload((n + "(list)").c_str());
      }
      // An empty list sums to the zero of its static element type.
      if (n == "sum" && args.size() == 1 && args[0].kind == K::kList && args[0].list->empty() &&
          e.target->type.kind == Type::Kind::kList) {
        if (e.target->type.elem->kind == Type::Kind::kUint) return Value::Uint(0);
        if (e.target->type.elem->kind == Type::Kind::kDouble) return Value::Double(0);
        if (e.target->type.elem->kind == Type::Kind::kDuration) return Value::Duration(0);
      }
      return CallListsFunction(n, args, budget_);
    }
    if (IsOptionalFunction(n)) return CallOptionalFunction(n, args);
    if (n == "format" && e.target) return CallFormatFunction(args);
    return CallFunction(n, e.target != nullptr, args, budget_);
  }

  // text.matches(pattern) or matches(text, pattern): an unanchored search.
  Value Matches(const Expr& e, const std::vector<Value>& args) {
    if (args.size() != 2 || args[0].kind != K::kString || args[1].kind != K::kString) {
      return Value::NoSuchOverload("matches");
    }
    // Kubernetes' cost (text/10 times pattern/4), plus a hundredth of the
    // search's thread steps, so that a long text and a pattern with many
    // live threads (.{1000}) cannot run for long.
    auto ceil_div = [](uint64_t a, uint64_t b) { return (a + b - 1) / b; };
    uint64_t cost = ceil_div(args[0].s.size() + 1, 10) * ceil_div(args[1].s.size(), 4);
    if (!budget_->Charge(cost)) return Value::Error(kCostLimitExceeded);
    std::optional<Regex> compiled;
    const Regex* re = e.regex.get();
    if (!re) {
      util::StatusOr<Regex> c = Regex::Compile(args[1].s);
      if (!c.ok()) return Value::Error(c.status().message());
      compiled = std::move(c).value();
      re = &*compiled;
    }
    uint64_t left = budget_->used < budget_->limit ? budget_->limit - budget_->used : 0;
    uint64_t steps = 0;
    std::optional<bool> found = re->Search(args[0].s, left > UINT64_MAX / 100 ? UINT64_MAX : left * 100, &steps);
    if (!budget_->Charge(steps / 100) || !found) {
      budget_->Charge(budget_->limit + 1);  // exhausted
      return Value::Error(kCostLimitExceeded);
    }
    return Value::Bool(*found);
  }

  // cel.bind variables are lazy, as in Kubernetes: the initial value is
  // computed on first use, in the scope of its binding, and kept; an unused
  // binding costs nothing and cannot fail.
  struct Binding {
    std::string name;
    const Expr* init;
    std::optional<Value> value;
  };

  Value Force(size_t k) {
    if (!scope_[k].value) {
      // Evaluate with only the bindings visible where this one was made
      // (not itself: cel.bind(x, x + 1, ...) reads the outer x).
      std::vector<Binding> rest(std::make_move_iterator(scope_.begin() + static_cast<std::ptrdiff_t>(k)),
                                std::make_move_iterator(scope_.end()));
      scope_.resize(k);
      Value v = Eval(*rest[0].init);
      rest[0].value = std::move(v);
      for (Binding& b : rest) scope_.push_back(std::move(b));
    }
    return *scope_[k].value;
  }

  const Value& device_;
  CostBudget* budget_;
  std::vector<Binding> scope_;
};

}  // namespace

Value Equal(const Value& a, const Value& b) {
  if (a.kind == K::kNull || b.kind == K::kNull) return Value::Bool(a.kind == b.kind);
  if (IsNumber(a) && IsNumber(b)) return Value::Bool(CompareNumbers(a, b) == 0);
  switch (a.kind) {
    case K::kBool: return Value::Bool(b.kind == K::kBool && a.b == b.b);
    case K::kString:
    case K::kBytes: return Value::Bool(b.kind == a.kind && a.s == b.s);
    case K::kList: {
      if (b.kind != K::kList || a.list->size() != b.list->size()) return Value::Bool(false);
      for (size_t k = 0; k < a.list->size(); ++k) {
        Value eq = Equal((*a.list)[k], (*b.list)[k]);
        if (eq.kind == K::kBool && !eq.b) return Value::Bool(false);
      }
      return Value::Bool(true);
    }
    case K::kMap: {
      if (b.kind != K::kMap || a.map->entries.size() != b.map->entries.size()) return Value::Bool(false);
      for (const auto& [k, v] : a.map->entries) {
        const Value* other = b.map->Find(k);
        if (!other) return Value::Bool(false);
        Value eq = Equal(v, *other);
        if (eq.kind == K::kBool && !eq.b) return Value::Bool(false);
      }
      return Value::Bool(true);
    }
    case K::kQuantity:
      // Kubernetes' Quantity equality accepts only a Quantity value, not the
      // pointer form add() and sub() return.
      if (b.kind != K::kQuantity || b.quantity_derived) return Value::NoSuchOverload("_==_");
      {
        util::StatusOr<int> c = CompareQuantity(*a.quantity, b.quantity->q);
        if (!c.ok()) return Value::Error(c.status().message());
        return Value::Bool(*c == 0);
      }
    case K::kSemver:
      if (b.kind != K::kSemver) return Value::NoSuchOverload("_==_");
      return Value::Bool(a.version->Compare(*b.version) == 0);
    // Kubernetes' IP and CIDR compare only with their own kind, by Go's ==
    // (a CIDR's length and unmasked bits included).
    case K::kIP:
      if (b.kind != K::kIP) return Value::NoSuchOverload("_==_");
      return Value::Bool(*a.ip == *b.ip);
    case K::kCIDR:
      if (b.kind != K::kCIDR) return Value::NoSuchOverload("_==_");
      return Value::Bool(*a.cidr == *b.cidr);
    // Kubernetes' URL compares only with a URL, by the URL each reassembles.
    case K::kURL:
      if (b.kind != K::kURL) return Value::NoSuchOverload("_==_");
      return Value::Bool(a.url->String() == b.url->String());
    case K::kType:
      return Value::Bool(b.kind == K::kType && a.s == b.s);
    // Kubernetes' formats compare only with a format, by name.
    case K::kFormat:
      if (b.kind != K::kFormat) return Value::NoSuchOverload("_==_");
      return Value::Bool(a.s == b.s);
    case K::kDuration:
    case K::kTimestamp:
      return Value::Bool(b.kind == a.kind && TimeOrder(a, b) == 0);
    case K::kOptional:
      if (b.kind != K::kOptional) return Value::Bool(false);
      if (!a.held || !b.held) return Value::Bool(!a.held && !b.held);
      return Equal(*a.held, *b.held);
    default:
      return Value::Bool(false);
  }
}

Value Evaluate(const Expr& root, const Value& device, CostBudget* budget) {
  Value v = Evaluator(device, budget).Eval(root);
  if (budget->aborted()) return Value::Error(budget->abort);
  return v;
}

}  // namespace ksched::cel
