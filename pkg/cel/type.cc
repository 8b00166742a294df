#include "pkg/cel/type.h"

namespace ksched::cel {

std::string Type::Name() const {
  if (wrapper) {
    Type wrapped = *this;
    wrapped.wrapper = false;
    return "wrapper(" + wrapped.Name() + ")";
  }
  switch (kind) {
    case Kind::kDyn: return "dyn";
    case Kind::kAny: return "any";
    case Kind::kFree: return "dyn";
    case Kind::kNull: return "null_type";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kUint: return "uint";
    case Kind::kDouble: return "double";
    case Kind::kString: return "string";
    case Kind::kList: return "list(" + elem->Name() + ")";
    case Kind::kMap: return "map(" + key->Name() + ", " + elem->Name() + ")";
    case Kind::kQuantity: return "kubernetes.Quantity";
    case Kind::kSemver: return "kubernetes.Semver";
    case Kind::kIP: return "net.IP";
    case Kind::kCIDR: return "net.CIDR";
    case Kind::kURL: return "kubernetes.URL";
    case Kind::kFormat: return "kubernetes.NamedFormat";
    case Kind::kAuthorizer: return "kubernetes.authorization.Authorizer";
    case Kind::kPathCheck: return "kubernetes.authorization.PathCheck";
    case Kind::kGroupCheck: return "kubernetes.authorization.GroupCheck";
    case Kind::kResourceCheck: return "kubernetes.authorization.ResourceCheck";
    case Kind::kDecision: return "kubernetes.authorization.Decision";
    case Kind::kDevice: return "kubernetes.DRADevice";
    case Kind::kOptional: return "optional_type(" + elem->Name() + ")";
    case Kind::kBytes: return "bytes";
    case Kind::kDuration: return "duration";
    case Kind::kTimestamp: return "timestamp";
    case Kind::kType: return "type(" + elem->Name() + ")";
  }
  return "dyn";
}

bool Type::nullable() const {
  if (wrapper) return true;
  switch (kind) {
    case Kind::kDuration: case Kind::kTimestamp: case Kind::kOptional: case Kind::kDevice:
    case Kind::kQuantity: case Kind::kSemver: case Kind::kIP: case Kind::kCIDR: case Kind::kURL: case Kind::kFormat:
    case Kind::kAuthorizer: case Kind::kPathCheck: case Kind::kGroupCheck: case Kind::kResourceCheck:
    case Kind::kDecision:
      return true;
    default:
      return false;
  }
}

bool Compatible(const Type& to, const Type& from) {
  if (to.is_dyn() || from.is_dyn()) return true;
  if (to.kind == Type::Kind::kNull && from.nullable()) return true;
  if (from.kind == Type::Kind::kNull && to.nullable()) return true;
  if (to.kind != from.kind) return false;
  // Type values compare with each other whatever type they name.
  if (to.kind == Type::Kind::kType) return true;
  if (to.kind == Type::Kind::kList || to.kind == Type::Kind::kOptional) return Compatible(*to.elem, *from.elem);
  if (to.kind == Type::Kind::kMap) return Compatible(*to.key, *from.key) && Compatible(*to.elem, *from.elem);
  return true;
}

bool SameType(const Type& a, const Type& b) {
  if (a.kind == Type::Kind::kFree || b.kind == Type::Kind::kFree) return true;
  if (a.kind != b.kind) return false;
  if (a.kind == Type::Kind::kList || a.kind == Type::Kind::kOptional || a.kind == Type::Kind::kType) {
    return SameType(*a.elem, *b.elem);
  }
  if (a.kind == Type::Kind::kMap) return SameType(*a.key, *b.key) && SameType(*a.elem, *b.elem);
  return true;
}

Type BindFree(const Type& a, const Type& b) {
  if (a.kind == Type::Kind::kFree) return b;
  if (a.kind != b.kind || !a.elem || !b.elem) return a;
  Type bound = a;
  bound.elem = std::make_shared<const Type>(BindFree(*a.elem, *b.elem));
  if (a.key && b.key) bound.key = std::make_shared<const Type>(BindFree(*a.key, *b.key));
  return bound;
}

}  // namespace ksched::cel
