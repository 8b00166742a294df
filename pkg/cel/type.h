// Type: the static types the checker infers for DRA selector expressions.
//
// `dyn` (the result of dyn() and of selecting a field of an unknown value) and
// `any` (the declared type of attribute values, whose kind depends on the
// device) are both assignable to and from every type, so checks involving
// them move to run time, as in CEL. They differ where Kubernetes' checker
// compares types exactly: list and map literals must be homogeneous ([attr,
// 1] is an error), and a selector may evaluate to bool or any, not dyn.
// `net.IP`, `net.CIDR` and `kubernetes.URL` are Kubernetes' opaque IP, CIDR
// and URL types.
// `kubernetes.NamedFormat` is the type of Kubernetes' format library's formats.
// `kubernetes.authorization.*` are the opaque types of Kubernetes' authz
// library; DRA's environment has no authorizer variable, so no value of them
// ever exists, but calls on dyn receivers compile to them.
// `device` is the object type of the `device` variable. `optional_type(T)`
// is CEL's optional value of a T, `type(T)` the type of the type value T
// (`int` is a type(int)); `duration` and `timestamp` are CEL's (named
// google.protobuf.Duration and google.protobuf.Timestamp as values).
// `wrapper(T)` is the type of a protobuf wrapper message
// (google.protobuf.Int64Value{value: 5} is a wrapper(int) holding 5): a T
// that null may also stand for, and otherwise the same type as T (as in
// cel-go, whose wrapper types have T's kind and name). `free` is the
// element type of what a generic list function returns over a dyn
// receiver (dyn.slice(0, 1) is list(T) with T not yet known): it behaves as
// dyn, except that the next generic function binds it to its first
// overload's type (int), as cel-go's checker does, and it is the same type
// as any other in literals; it prints as "dyn".
//
// Thread-safety: an immutable value type.
#pragma once

#include <memory>
#include <string>

namespace ksched::cel {

struct Type {
  enum class Kind { kDyn, kAny, kFree, kNull, kBool, kInt, kUint, kDouble, kString, kList, kMap, kQuantity, kSemver, kIP, kCIDR, kURL, kDevice, kOptional, kBytes, kDuration, kTimestamp, kType, kFormat,
                    kAuthorizer, kPathCheck, kGroupCheck, kResourceCheck, kDecision };

  Kind kind = Kind::kDyn;
  bool wrapper = false;              // wrapper(T) of a bool, int, uint, double, string or bytes T
  std::shared_ptr<const Type> key;   // kMap
  std::shared_ptr<const Type> elem;  // kList element, kMap value, kOptional's held type, kType's type

  static Type Of(Kind k) { Type t; t.kind = k; return t; }
  static Type Dyn() { return Of(Kind::kDyn); }
  static Type Wrapper(Kind k) { Type t; t.kind = k; t.wrapper = true; return t; }
  static Type List(Type elem) {
    Type t; t.kind = Kind::kList; t.elem = std::make_shared<const Type>(std::move(elem)); return t;
  }
  static Type Optional(Type held) {
    Type t; t.kind = Kind::kOptional; t.elem = std::make_shared<const Type>(std::move(held)); return t;
  }
  static Type TypeOf(Type t) {
    Type x; x.kind = Kind::kType; x.elem = std::make_shared<const Type>(std::move(t)); return x;
  }
  static Type Map(Type key, Type value) {
    Type t; t.kind = Kind::kMap;
    t.key = std::make_shared<const Type>(std::move(key));
    t.elem = std::make_shared<const Type>(std::move(value));
    return t;
  }

  // dyn, any or free: checked at run time.
  bool is_dyn() const { return kind == Kind::kDyn || kind == Kind::kAny || kind == Kind::kFree; }
  // Whether null may stand for a value of this type and the other way
  // round, as cel-go's checker keeps its legacy nullness
  // (isLegacyNullable): durations, timestamps, opaque types (optional_type
  // and Kubernetes' library types), objects (the device) and the wrappers,
  // not the primitives, lists, maps or type values.
  bool nullable() const;
  // CEL's spelling: "int", "wrapper(int)", "list(string)", "map(string, dyn)".
  std::string Name() const;
};

// Whether a value of type `from` may be used where `to` is expected; dyn on
// either side (at any depth) is compatible, as is null with null and with a
// nullable type.
bool Compatible(const Type& to, const Type& from);
// Exact structural equality: dyn matches only dyn, any only any, a free
// type parameter anything; a wrapper(T) is T here (cel-go's IsExactType).
bool SameType(const Type& a, const Type& b);
// `a` with each free type parameter in it (`[]`'s element, optional.none()'s
// held type) bound to the type at the same place in `b`, as cel-go's
// checker substitutes a parameter once unified; for types SameType accepts.
Type BindFree(const Type& a, const Type& b);

}  // namespace ksched::cel
