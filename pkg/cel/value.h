// Value: a CEL runtime value of the kinds DRA selectors produce, or an error.
//
// Errors are values, as in CEL: an operator that receives an error passes it
// on, except && / || / ?: which may absorb it (evaluator.h). Lists and maps
// share their elements (shared_ptr to const), so copying a Value is O(1)
// apart from its string. A Quantity value references a QuantityCell, which
// several values may share (kube_quantity.h); one produced by add()/sub()
// carries `quantity_derived`, because Kubernetes' library returns those by
// pointer and its equality treats the two kinds differently (eval.cc, Equal).
// An IP or CIDR value (Kubernetes' net.IP and net.CIDR) shares its
// immutable address or prefix, a URL (kubernetes.URL) its parsed URL. An optional value (CEL's optional_type)
// shares the value it holds, or holds none. A type value is its name.
// Bytes are held in `s`, as a string of arbitrary octets. A duration is
// `i` nanoseconds; a timestamp `i` Unix seconds, `u` nanoseconds,
// `zone_offset` (time_value.h) and `zone_id`.
//
// Thread-safety: immutable once built, except for the QuantityCells, which
// belong to one evaluation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/cel/go_url.h"
#include "pkg/cel/kube_quantity.h"
#include "pkg/cel/net_addr.h"
#include "pkg/cel/semver.h"

namespace ksched::cel {

struct Value;
using ValueList = std::vector<Value>;
struct MapValue;

struct Value {
  enum class Kind { kNull, kBool, kInt, kUint, kDouble, kString, kBytes, kDuration, kTimestamp, kList, kMap, kQuantity, kSemver, kIP, kCIDR, kURL, kOptional, kType, kFormat, kError };

  Kind kind = Kind::kNull;
  bool b = false;
  int32_t zone_offset = 0;  // kTimestamp: seconds east of UTC of the zone it is written in
  int32_t zone_id = 0;      // kTimestamp: which Go zone that is, for map keys (lib_time.cc)
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string s;  // the string, the bytes, the type's name (kType), the format's (kFormat), or the error message
  std::shared_ptr<const ValueList> list;
  std::shared_ptr<const MapValue> map;
  std::shared_ptr<QuantityCell> quantity;
  bool quantity_derived = false;
  std::shared_ptr<const Semver> version;
  std::shared_ptr<const IpAddr> ip;
  std::shared_ptr<const IpPrefix> cidr;
  std::shared_ptr<const GoUrl> url;
  std::shared_ptr<const Value> held;  // kOptional: the value, or nullptr for optional.none()

  static Value Null() { return Value{}; }
  static Value Bool(bool v) { Value x; x.kind = Kind::kBool; x.b = v; return x; }
  static Value Int(int64_t v) { Value x; x.kind = Kind::kInt; x.i = v; return x; }
  static Value Uint(uint64_t v) { Value x; x.kind = Kind::kUint; x.u = v; return x; }
  static Value Double(double v) { Value x; x.kind = Kind::kDouble; x.d = v; return x; }
  static Value String(std::string v) { Value x; x.kind = Kind::kString; x.s = std::move(v); return x; }
  static Value Bytes(std::string v) { Value x; x.kind = Kind::kBytes; x.s = std::move(v); return x; }
  static Value Duration(int64_t nanos) { Value x; x.kind = Kind::kDuration; x.i = nanos; return x; }
  static Value Time(int64_t seconds, int32_t nanos, int32_t zone_offset, int32_t zone_id) {
    Value x; x.kind = Kind::kTimestamp; x.i = seconds; x.u = static_cast<uint64_t>(nanos);
    x.zone_offset = zone_offset; x.zone_id = zone_id; return x;
  }
  static Value List(ValueList v) {
    Value x; x.kind = Kind::kList; x.list = std::make_shared<const ValueList>(std::move(v)); return x;
  }
  static Value Map(std::shared_ptr<const MapValue> m) { Value x; x.kind = Kind::kMap; x.map = std::move(m); return x; }
  static Value Quantity(KubeQuantity v, bool derived = false) {
    Value x; x.kind = Kind::kQuantity; x.quantity = std::make_shared<QuantityCell>(QuantityCell{std::move(v)});
    x.quantity_derived = derived; return x;
  }
  static Value Version(Semver v) {
    Value x; x.kind = Kind::kSemver; x.version = std::make_shared<const Semver>(std::move(v)); return x;
  }
  static Value Ip(IpAddr v) { Value x; x.kind = Kind::kIP; x.ip = std::make_shared<const IpAddr>(std::move(v)); return x; }
  static Value Cidr(IpPrefix v) {
    Value x; x.kind = Kind::kCIDR; x.cidr = std::make_shared<const IpPrefix>(std::move(v)); return x;
  }
  static Value Url(GoUrl v) { Value x; x.kind = Kind::kURL; x.url = std::make_shared<const GoUrl>(std::move(v)); return x; }
  static Value OptionalOf(Value v) {
    Value x; x.kind = Kind::kOptional; x.held = std::make_shared<const Value>(std::move(v)); return x;
  }
  // Kubernetes' kubernetes.NamedFormat, by its name in format.named().
  static Value Format(std::string name) { Value x; x.kind = Kind::kFormat; x.s = std::move(name); return x; }
  static Value OptionalNone() { Value x; x.kind = Kind::kOptional; return x; }
  // A type value (`int`, type(x)): CEL's name of a runtime type.
  static Value TypeNamed(std::string name) { Value x; x.kind = Kind::kType; x.s = std::move(name); return x; }
  static Value Error(std::string message) { Value x; x.kind = Kind::kError; x.s = std::move(message); return x; }
  static Value NoSuchOverload(const char* function) {
    return Error(std::string("no such overload: ") + function);
  }

  bool is_error() const { return kind == Kind::kError; }
};

// A map in insertion order with linear lookup: selector maps are small (at
// most 32 attributes per domain). A map with `missing_is_empty_map` answers
// a lookup of an absent key with an empty map and reports presence tests as
// true (how Kubernetes builds device.attributes and device.capacity), while
// `in` still reports only the keys it holds.
//
// Kubernetes hashes the keys of map literals and computed maps, and a
// semver cannot be hashed, while the device's maps are keyed by strings
// only; `string_keyed` tells the two apart (eval.cc).
struct MapValue {
  std::vector<std::pair<Value, Value>> entries;
  bool missing_is_empty_map = false;
  bool string_keyed = false;

  // The entry's value, or nullptr.
  const Value* Find(const Value& key) const;
};

// The CEL type name of a value's kind: "int", "string", "kubernetes.Quantity".
const char* KindName(Value::Kind kind);
// Kubernetes qualifies (indexes) by primitive values only: the Go type it
// names refusing a bytes, duration, timestamp or optional index
// ("types.Bytes"), or nullptr for the other kinds.
const char* UnqualifiableType(Value::Kind kind);

}  // namespace ksched::cel
