#include "pkg/cel/value.h"

namespace ksched::cel {
namespace {

// Key equality for map lookups: numeric keys compare by value across int and
// uint, as CEL's heterogeneous key lookup does.
bool KeyEquals(const Value& a, const Value& b) {
  using K = Value::Kind;
  if (a.kind == K::kString && b.kind == K::kString) return a.s == b.s;
  if (a.kind == K::kBool && b.kind == K::kBool) return a.b == b.b;
  if (a.kind == K::kInt && b.kind == K::kInt) return a.i == b.i;
  if (a.kind == K::kUint && b.kind == K::kUint) return a.u == b.u;
  // Go's map equality for float keys: NaN is never found, -0 is 0.
  if (a.kind == K::kDouble && b.kind == K::kDouble) return a.d == b.d;
  if (a.kind == K::kInt && b.kind == K::kUint) return a.i >= 0 && static_cast<uint64_t>(a.i) == b.u;
  if (a.kind == K::kUint && b.kind == K::kInt) return b.i >= 0 && static_cast<uint64_t>(b.i) == a.u;
  if (a.kind == K::kDouble && b.kind == K::kInt) return a.d == static_cast<double>(b.i);
  if (a.kind == K::kInt && b.kind == K::kDouble) return b.d == static_cast<double>(a.i);
  if (a.kind == K::kDouble && b.kind == K::kUint) return a.d == static_cast<double>(b.u);
  if (a.kind == K::kUint && b.kind == K::kDouble) return b.d == static_cast<double>(a.u);
  if (a.kind == K::kDuration && b.kind == K::kDuration) return a.i == b.i;
  // Go hashes a time's zone by pointer (lib_time.cc, ZoneIdentity).
  if (a.kind == K::kTimestamp && b.kind == K::kTimestamp) return a.i == b.i && a.u == b.u && a.zone_id == b.zone_id;
  // Kubernetes hashes IP and CIDR keys by their Go value.
  if (a.kind == K::kIP && b.kind == K::kIP) return *a.ip == *b.ip;
  if (a.kind == K::kCIDR && b.kind == K::kCIDR) return *a.cidr == *b.cidr;
  // and a URL key by its pointer: each url() call makes a new one.
  if (a.kind == K::kURL && b.kind == K::kURL) return a.url == b.url;
  return false;
}

}  // namespace

const Value* MapValue::Find(const Value& key) const {
  for (const auto& [k, v] : entries) {
    if (KeyEquals(k, key)) return &v;
  }
  return nullptr;
}

const char* KindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kNull: return "null_type";
    case Value::Kind::kBool: return "bool";
    case Value::Kind::kInt: return "int";
    case Value::Kind::kUint: return "uint";
    case Value::Kind::kDouble: return "double";
    case Value::Kind::kString: return "string";
    case Value::Kind::kBytes: return "bytes";
    case Value::Kind::kDuration: return "google.protobuf.Duration";
    case Value::Kind::kTimestamp: return "google.protobuf.Timestamp";
    case Value::Kind::kList: return "list";
    case Value::Kind::kMap: return "map";
    case Value::Kind::kQuantity: return "kubernetes.Quantity";
    case Value::Kind::kSemver: return "kubernetes.Semver";
    case Value::Kind::kIP: return "net.IP";
    case Value::Kind::kCIDR: return "net.CIDR";
    case Value::Kind::kURL: return "kubernetes.URL";
    case Value::Kind::kOptional: return "optional_type";
    case Value::Kind::kType: return "type";
    case Value::Kind::kFormat: return "kubernetes.NamedFormat";
    case Value::Kind::kError: return "error";
  }
  return "unknown";
}

const char* UnqualifiableType(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kBytes: return "types.Bytes";
    case Value::Kind::kDuration: return "types.Duration";
    case Value::Kind::kTimestamp: return "types.Timestamp";
    case Value::Kind::kOptional: return "*types.Optional";
    default: return nullptr;
  }
}

}  // namespace ksched::cel
