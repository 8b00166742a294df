#include "pkg/cel/checker.h"

#include <optional>
#include <string>
#include <vector>

#include "pkg/cel/functions.h"
#include "pkg/cel/lexer.h"

namespace ksched::cel {
namespace {

using TypeKind = Type::Kind;

class Checker {
 public:
  Checker(std::string_view source, const CompileOptions& options) : source_(source), options_(options) {}

  util::Status Run(Expr& root) {
    Visit(root);
    if (!err_.ok()) return err_;
    // The unknown type is the attributes' type: any, or dyn from 1.37.
    const TypeKind unknown = options_.dyn_attributes ? TypeKind::kDyn : TypeKind::kAny;
    if (root.type.kind != TypeKind::kBool && root.type.kind != unknown) {
      return util::InvalidArgument("must evaluate to bool or the unknown type, not " + root.type.Name());
    }
    return util::Status::Ok();
  }

 private:
  void Fail(size_t pos, const std::string& what) {
    if (err_.ok()) err_ = util::InvalidArgument(Location(source_, pos) + ": " + what);
  }

  static std::string ArgList(const std::vector<Type>& types) {
    std::string out = "(";
    for (size_t k = 0; k < types.size(); ++k) {
      if (k) out += ", ";
      out += types[k].Name();
    }
    return out + ")";
  }

  const Type* Lookup(const std::string& name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    return nullptr;
  }

  void Visit(Expr& e) {
    if (!err_.ok()) return;
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        e.type = LiteralType(e.literal);
        return;
      case Expr::Kind::kIdent:
        if (const Type* t = Lookup(e.name)) {
          e.type = *t;
        } else if (e.name == "device") {
          e.type = Type::Of(TypeKind::kDevice);
        } else if (IsTypeName(e.name)) {
          Fail(e.pos, "type identifiers such as '" + e.name + "' are not supported");
        } else {
          Fail(e.pos, "undeclared reference to '" + e.name + "'");
        }
        return;
      case Expr::Kind::kSelect:
        Select(e);
        return;
      case Expr::Kind::kCall:
        Call(e);
        return;
      case Expr::Kind::kList:
        List(e);
        return;
      case Expr::Kind::kMap:
        Map(e);
        return;
      case Expr::Kind::kComprehension:
        Comprehension(e);
        return;
      case Expr::Kind::kBind:
        Visit(*e.target);
        if (!err_.ok()) return;
        scope_.emplace_back(e.name, e.target->type);
        Visit(*e.args[0]);
        scope_.pop_back();
        e.type = e.args[0]->type;
        return;
    }
  }

  static bool IsTypeName(const std::string& n) {
    return n == "int" || n == "uint" || n == "double" || n == "string" || n == "bool" || n == "bytes" ||
           n == "list" || n == "map" || n == "null_type" || n == "type";
  }

  static Type LiteralType(const Value& v) {
    switch (v.kind) {
      case Value::Kind::kBool: return Type::Of(TypeKind::kBool);
      case Value::Kind::kInt: return Type::Of(TypeKind::kInt);
      case Value::Kind::kUint: return Type::Of(TypeKind::kUint);
      case Value::Kind::kDouble: return Type::Of(TypeKind::kDouble);
      case Value::Kind::kString: return Type::Of(TypeKind::kString);
      default: return Type::Of(TypeKind::kNull);
    }
  }

  void Select(Expr& e) {
    Visit(*e.target);
    if (!err_.ok()) return;
    const Type& t = e.target->type;
    Type field;
    if (t.kind == TypeKind::kDevice) {
      if (e.name == "driver") {
        field = Type::Of(TypeKind::kString);
      } else if (e.name == "attributes") {
        field = Type::Map(Type::Of(TypeKind::kString),
                          Type::Map(Type::Of(TypeKind::kString),
                                    options_.dyn_attributes ? Type::Dyn() : Type::Of(TypeKind::kAny)));
      } else if (e.name == "capacity") {
        field = Type::Map(Type::Of(TypeKind::kString),
                          Type::Map(Type::Of(TypeKind::kString), Type::Of(TypeKind::kQuantity)));
      } else if (e.name == "allowMultipleAllocations") {
        field = Type::Of(TypeKind::kBool);
      } else {
        Fail(e.pos, "undefined field '" + e.name + "'");
        return;
      }
    } else if (t.kind == TypeKind::kMap) {
      field = *t.elem;
    } else if (t.is_dyn()) {
      // A field of an unknown value is dyn, even when the value is any.
      field = Type::Dyn();
    } else {
      Fail(e.pos, "type '" + t.Name() + "' does not support field selection");
      return;
    }
    e.type = e.test_only ? Type::Of(TypeKind::kBool) : field;
  }

  void Comprehension(Expr& e) {
    Visit(*e.target);
    if (!err_.ok()) return;
    const Type& range = e.target->type;
    const bool two = !e.iter_var2.empty();
    // One variable: the element or key. Two: index or key, and the value.
    Type var, var2;
    if (range.kind == TypeKind::kList) {
      var = two ? Type::Of(TypeKind::kInt) : *range.elem;
      var2 = *range.elem;
    } else if (range.kind == TypeKind::kMap) {
      var = *range.key;
      var2 = *range.elem;
    } else if (range.kind == TypeKind::kDyn) {
      // dyn may hold a list or a map; any (an attribute value) may not.
      var = Type::Dyn();
      var2 = Type::Dyn();
    } else {
      Fail(e.target->pos, "expression of type '" + range.Name() +
                              "' cannot be the range of a comprehension (must be list, map, or dynamic)");
      return;
    }
    scope_.emplace_back(e.iter_var, var);
    if (two) scope_.emplace_back(e.iter_var2, var2);
    for (auto& a : e.args) Visit(*a);
    scope_.pop_back();
    if (two) scope_.pop_back();
    if (!err_.ok()) return;
    // The predicate, or the filter before a transform, is a condition.
    bool transform = e.name == "map" || e.name.rfind("transform", 0) == 0;
    bool has_condition = !transform || e.args.size() == 2;
    if (has_condition && !Compatible(Type::Of(TypeKind::kBool), e.args[0]->type)) {
      Fail(e.args[0]->pos, "the condition of " + e.name + "() must be a bool, not " + e.args[0]->type.Name());
      return;
    }
    const Type& t = e.args.back()->type;
    if (e.name == "map" || e.name == "transformList") {
      e.type = Type::List(t);
    } else if (e.name == "filter") {
      e.type = Type::List(var);
    } else if (e.name == "transformMap") {
      e.type = Type::Map(var, t);
    } else if (e.name == "transformMapEntry") {
      if (t.kind == TypeKind::kMap) {
        e.type = t;
      } else if (t.is_dyn()) {
        e.type = Type::Map(Type::Dyn(), Type::Dyn());
      } else {
        Fail(e.args.back()->pos, "transformMapEntry() needs a map entry, not " + t.Name());
      }
    } else {
      e.type = Type::Of(TypeKind::kBool);
    }
  }

  void List(Expr& e) {
    Type elem = Type::Of(TypeKind::kFree);  // an empty list's elements: bound by its use
    bool first = true;
    for (auto& a : e.args) {
      Visit(*a);
      if (!err_.ok()) return;
      if (!Homogeneous(a->pos, &elem, &first, a->type)) return;
    }
    e.type = Type::List(elem);
  }

  void Map(Expr& e) {
    Type key = Type::Dyn(), value = Type::Dyn();
    bool first_key = true, first_value = true;
    for (size_t k = 0; k < e.args.size(); k += 2) {
      Visit(*e.args[k]);
      Visit(*e.args[k + 1]);
      if (!err_.ok()) return;
      const Type& kt = e.args[k]->type;
      if (!Homogeneous(e.args[k]->pos, &key, &first_key, kt)) return;
      if (!Homogeneous(e.args[k + 1]->pos, &value, &first_value, e.args[k + 1]->type)) return;
    }
    e.type = Type::Map(key, value);
  }

  // Aggregate literals hold exactly one type (Kubernetes validates
  // homogeneous literals): dyn, any and int are three different types here.
  bool Homogeneous(size_t pos, Type* acc, bool* first, const Type& t) {
    if (*first) {
      *acc = t;
      *first = false;
      return true;
    }
    if (!SameType(*acc, t)) {
      Fail(pos, "expected type '" + acc->Name() + "' but found '" + t.Name() + "'");
      return false;
    }
    return true;
  }

  void Call(Expr& e) {
    // A namespaced global function (sets.contains) parses as a member call
    // on an identifier. A declared one wins over a variable of the same
    // name, as in cel-go's checker ([1].all(ip, ip.isCanonical("::1"))).
    if (e.target && e.target->kind == Expr::Kind::kIdent) {
      std::string qualified = e.target->name + "." + e.name;
      if (qualified == "sets.contains" || qualified == "sets.equivalent" || qualified == "sets.intersects" ||
          qualified == "lists.range" || qualified == "strings.quote" || qualified == "ip.isCanonical") {
        // Becomes the global function it names.
        e.name = qualified;
        e.target.reset();
        Call(e);
        return;
      }
      if (IsUnsupportedFunction(qualified)) {
        Fail(e.pos, "the function " + qualified + "() is not supported");
        return;
      }
      if (!Lookup(e.target->name) && e.target->name != "device") {
        Fail(e.pos, "undeclared reference to '" + qualified + "'");
        return;
      }
    }
    std::vector<Type> types;
    if (e.target) {
      Visit(*e.target);
      types.push_back(e.target->type);
    }
    for (auto& a : e.args) {
      Visit(*a);
      types.push_back(a->type);
    }
    if (!err_.ok()) return;
    if (Special(e, types)) return;
    if (e.target && e.name == "includes" && options_.includes) {
      e.type = Type::Of(TypeKind::kBool);  // includes(dyn, dyn)
      return;
    }
    if (e.target) {
      std::optional<Type> generic;
      if (GenericListCall(e.name, types, &generic)) {
        if (!generic) {
          Fail(e.pos, "found no matching overload for '" + e.name + "' applied to '" + types[0].Name() + "." +
                          ArgList(std::vector<Type>(types.begin() + 1, types.end())) + "'");
          return;
        }
        e.type = *generic;
        return;
      }
    }
    const std::vector<Overload>* overloads = FindOverloads(e.name);
    if (!overloads) {
      if (IsUnsupportedFunction(e.name)) {
        Fail(e.pos, "the function " + e.name + "() is not supported");
      } else {
        Fail(e.pos, "undeclared reference to '" + e.name + "'");
      }
      return;
    }
    bool member = e.target != nullptr;
    std::vector<const Type*> results;
    for (const Overload& o : *overloads) {
      if (o.member != member || o.params.size() != types.size()) continue;
      bool ok = true;
      for (size_t k = 0; k < types.size() && ok; ++k) ok = Compatible(o.params[k], types[k]);
      if (ok) results.push_back(&o.result);
    }
    if (results.empty()) {
      Fail(e.pos, "found no matching overload for '" + e.name + "' applied to '" +
                      (member ? types[0].Name() + "." : std::string()) +
                      ArgList(member ? std::vector<Type>(types.begin() + 1, types.end()) : types) + "'");
      return;
    }
    e.type = *results[0];
    for (const Type* r : results) {
      if (!SameType(*r, e.type)) e.type = Type::Dyn();
    }
  }

  // Operators whose overloads are generic over a type parameter.
  bool Special(Expr& e, const std::vector<Type>& t) {
    const std::string& n = e.name;
    auto no_overload = [&] {
      Fail(e.pos, "found no matching overload for '" + n + "' applied to '" + ArgList(t) + "'");
      return true;
    };
    if (n == "_&&_" || n == "_||_") {
      for (const Type& x : t) {
        if (!Compatible(Type::Of(TypeKind::kBool), x)) return no_overload();
      }
      e.type = Type::Of(TypeKind::kBool);
      return true;
    }
    if (n == "_?_:_") {
      if (!Compatible(Type::Of(TypeKind::kBool), t[0]) || !Compatible(t[1], t[2])) return no_overload();
      if (t[1].kind == TypeKind::kAny || t[2].kind == TypeKind::kAny) {
        e.type = Type::Of(TypeKind::kAny);
      } else if (SameType(t[1], t[2])) {
        e.type = t[1];
      } else {
        e.type = Type::Dyn();
      }
      return true;
    }
    if (n == "_==_" || n == "_!=_") {
      if (!Compatible(t[0], t[1])) return no_overload();
      e.type = Type::Of(TypeKind::kBool);
      return true;
    }
    if (n == "@in") {
      if (t[1].kind == TypeKind::kList) {
        if (!Compatible(*t[1].elem, t[0])) return no_overload();
      } else if (t[1].kind == TypeKind::kMap) {
        if (!Compatible(*t[1].key, t[0])) return no_overload();
      } else if (!t[1].is_dyn()) {
        return no_overload();
      }
      e.type = Type::Of(TypeKind::kBool);
      return true;
    }
    if (n == "_[_]") {
      if (t[0].kind == TypeKind::kList) {
        if (!Compatible(Type::Of(TypeKind::kInt), t[1])) return no_overload();
        e.type = *t[0].elem;
      } else if (t[0].kind == TypeKind::kMap) {
        if (!Compatible(*t[0].key, t[1])) return no_overload();
        e.type = *t[0].elem;
      } else if (t[0].is_dyn()) {
        e.type = Type::Dyn();
      } else {
        return no_overload();
      }
      return true;
    }
    if (n == "sets.contains" || n == "sets.equivalent" || n == "sets.intersects") {
      if (t.size() != 2) return no_overload();
      for (const Type& x : t) {
        if (x.kind != TypeKind::kList && !x.is_dyn()) return no_overload();
      }
      if (!Compatible(t[0], t[1])) return no_overload();
      e.type = Type::Of(TypeKind::kBool);
      return true;
    }
    if (n == "_+_" && !e.target && (t[0].kind == TypeKind::kList || t[1].kind == TypeKind::kList)) {
      if (!Compatible(t[0], t[1])) return no_overload();
      Type other = t[0].kind == TypeKind::kList ? t[1] : t[0];
      if (!other.is_dyn() && other.kind != TypeKind::kList) return no_overload();
      e.type = SameType(t[0], t[1]) ? t[0] : Type::List(Type::Dyn());
      return true;
    }
    return false;
  }

  std::string_view source_;
  const CompileOptions& options_;
  std::vector<std::pair<std::string, Type>> scope_;
  util::Status err_;
};

}  // namespace

util::Status Check(std::string_view source, Expr& root, const CompileOptions& options) {
  return Checker(source, options).Run(root);
}

}  // namespace ksched::cel
