// Type: the static types the checker infers for DRA selector expressions.
//
// `dyn` is the unknown type (attribute values, whose kind depends on the
// device); it is assignable to and from every type, so checks involving it
// move to run time, as in CEL. `device` is the object type of the `device`
// variable.
//
// Thread-safety: an immutable value type.
#pragma once

#include <memory>
#include <string>

namespace ksched::cel {

struct Type {
  enum class Kind { kDyn, kNull, kBool, kInt, kUint, kDouble, kString, kList, kMap, kQuantity, kSemver, kDevice };

  Kind kind = Kind::kDyn;
  std::shared_ptr<const Type> key;   // kMap
  std::shared_ptr<const Type> elem;  // kList element, kMap value

  static Type Of(Kind k) { Type t; t.kind = k; return t; }
  static Type Dyn() { return Of(Kind::kDyn); }
  static Type List(Type elem) {
    Type t; t.kind = Kind::kList; t.elem = std::make_shared<const Type>(std::move(elem)); return t;
  }
  static Type Map(Type key, Type value) {
    Type t; t.kind = Kind::kMap;
    t.key = std::make_shared<const Type>(std::move(key));
    t.elem = std::make_shared<const Type>(std::move(value));
    return t;
  }

  bool is_dyn() const { return kind == Kind::kDyn; }
  // CEL's spelling: "int", "list(string)", "map(string, dyn)".
  std::string Name() const;
};

// Whether a value of type `from` may be used where `to` is expected; dyn on
// either side (at any depth) is compatible.
bool Compatible(const Type& to, const Type& from);
// Structural equality with dyn matching only dyn.
bool SameType(const Type& a, const Type& b);

}  // namespace ksched::cel
