#include "pkg/cel/checker.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/cel/eval.h"
#include "pkg/cel/functions.h"
#include "pkg/cel/lib_format.h"
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
    // 1.35 and 1.36 compare the result's type by identity, which a
    // wrapper(bool) fails.
    const bool refused_wrapper = root.type.wrapper && options_.refuse_wrapper_bool_results;
    if ((root.type.kind != TypeKind::kBool && root.type.kind != unknown) || refused_wrapper) {
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

  // Fails a call no overload accepts: "f' applied to '(int)'" for a global
  // call, "'int.(string)'" for a member call (the receiver first in types).
  void NoMatchingOverload(const Expr& e, const std::vector<Type>& types) {
    const bool member = e.target != nullptr;
    Fail(e.pos, "found no matching overload for '" + e.name + "' applied to '" +
                    (member ? types[0].Name() + "." : std::string()) +
                    ArgList(member ? std::vector<Type>(types.begin() + 1, types.end()) : types) + "'");
  }

  const Type* Lookup(const std::string& name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    return nullptr;
  }

  // The variable in scope an identifier names, if any. A leading-dot
  // identifier that a variable shadows names it only at 1.35 and 1.36
  // (options_.leading_dot_sees_locals), and then loses its dot, so that the
  // evaluator looks it up as a variable.
  const Type* Local(Expr& ident) {
    const Type* t = Lookup(ident.name);
    if (!t || !ident.leading_dot) return t;
    if (!options_.leading_dot_sees_locals) return nullptr;
    ident.leading_dot = false;
    return t;
  }

  static std::string Spelled(const Expr& ident) { return (ident.leading_dot ? "." : "") + ident.name; }

  // Whether the type name `name`, spelled from root ident `root`, may be
  // used when a variable shadows a leading-dot root: at 1.35 and 1.36 (a
  // qualified name resolves before a variable in cel-go 0.26), not at 1.37,
  // where cel-go keeps the dot and finds no such type.
  bool TypeNameUsable(const Expr& root, const std::string& name) {
    if (!root.leading_dot || !Lookup(root.name) || options_.leading_dot_sees_locals) return true;
    Fail(root.pos, "reference to undefined type: ." + name);
    return false;
  }

  void Visit(Expr& e) {
    if (!err_.ok()) return;
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        e.type = LiteralType(e.literal);
        return;
      case Expr::Kind::kIdent:
        if (const Type* t = Local(e)) {
          // cel-go plans a variable holding a type as a type name, which
          // fails.
          if (t->kind == TypeKind::kType) Fail(e.pos, "reference to undefined type: " + e.name);
          e.type = *t;
        } else if (!err_.ok()) {
          return;
        } else if (e.name == "device") {
          e.type = Type::Of(TypeKind::kDevice);
        } else if (std::optional<Type> named = NamedType(e.name)) {
          if (TypeNameUsable(e, e.name)) MakeTypeLiteral(e, e.name, *named);
        } else {
          Fail(e.pos, "undeclared reference to '" + Spelled(e) + "'");
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
      case Expr::Kind::kMessage:
        Message(e);
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

  // A message pkg/cel builds: its type and its fields' types.
  struct MessageType {
    Type type;
    std::vector<std::pair<std::string_view, Type>> fields;
  };

  // google.protobuf.Duration and Timestamp (int seconds and nanos) and the
  // wrappers (a value of the wrapped type; Int32Value's is an int, checked
  // against int32's range at run time, FloatValue's a double).
  static std::optional<MessageType> Buildable(const std::string& name) {
    if (name == "google.protobuf.Duration" || name == "google.protobuf.Timestamp") {
      return MessageType{Type::Of(name == "google.protobuf.Duration" ? TypeKind::kDuration : TypeKind::kTimestamp),
                         {{"seconds", Type::Of(TypeKind::kInt)}, {"nanos", Type::Of(TypeKind::kInt)}}};
    }
    static const std::pair<const char*, TypeKind> kWrappers[] = {
        {"google.protobuf.BoolValue", TypeKind::kBool},     {"google.protobuf.BytesValue", TypeKind::kBytes},
        {"google.protobuf.DoubleValue", TypeKind::kDouble}, {"google.protobuf.FloatValue", TypeKind::kDouble},
        {"google.protobuf.Int32Value", TypeKind::kInt},     {"google.protobuf.Int64Value", TypeKind::kInt},
        {"google.protobuf.StringValue", TypeKind::kString}, {"google.protobuf.UInt32Value", TypeKind::kUint},
        {"google.protobuf.UInt64Value", TypeKind::kUint}};
    for (const auto& [wrapper, kind] : kWrappers) {
      if (name == wrapper) return MessageType{Type::Wrapper(kind), {{"value", Type::Of(kind)}}};
    }
    // The JSON messages, typed as cel-go's checker types them: a Struct is
    // a map(string, dyn), a ListValue a list(dyn), a Value dyn (its
    // null_value an int, as enums are).
    const Type json_struct = Type::Map(Type::Of(TypeKind::kString), Type::Dyn());
    const Type json_list = Type::List(Type::Dyn());
    if (name == "google.protobuf.Struct") return MessageType{json_struct, {{"fields", json_struct}}};
    if (name == "google.protobuf.ListValue") return MessageType{json_list, {{"values", json_list}}};
    if (name == "google.protobuf.Value") {
      return MessageType{Type::Dyn(),
                         {{"null_value", Type::Of(TypeKind::kInt)},
                          {"number_value", Type::Of(TypeKind::kDouble)},
                          {"string_value", Type::Of(TypeKind::kString)},
                          {"bool_value", Type::Of(TypeKind::kBool)},
                          {"struct_value", json_struct},
                          {"list_value", json_list}}};
    }
    return std::nullopt;
  }

  // kubernetes.DRADevice, the device variable's declared type: its fields
  // typed as the device's are, so such a message compiles; cel-go's
  // registry has no such message, so it fails at run time (eval.cc).
  MessageType DeviceMessage() const {
    return MessageType{
        Type::Of(TypeKind::kDevice),
        {{"driver", Type::Of(TypeKind::kString)},
         {"attributes", Type::Map(Type::Of(TypeKind::kString),
                                  Type::Map(Type::Of(TypeKind::kString),
                                            options_.dyn_attributes ? Type::Dyn() : Type::Of(TypeKind::kAny)))},
         {"capacity", Type::Map(Type::Of(TypeKind::kString),
                                Type::Map(Type::Of(TypeKind::kString), Type::Of(TypeKind::kQuantity)))},
         {"allowMultipleAllocations", Type::Of(TypeKind::kBool)}}};
  }

  // T{f: v, ...}. Of the messages Kubernetes' type provider knows, pkg/cel
  // builds the Buildable ones and compiles kubernetes.DRADevice; Any and
  // Empty are refused as not supported (docs/conformance.md).
  void Message(Expr& e) {
    static const char* const kUnbuilt[] = {"google.protobuf.Any", "google.protobuf.Empty"};
    for (const char* unbuilt : kUnbuilt) {
      if (e.name == unbuilt) {
        Fail(e.pos, "construction of a " + e.name + " message is not supported");
        return;
      }
    }
    std::optional<MessageType> message =
        e.name == "kubernetes.DRADevice" ? std::optional<MessageType>(DeviceMessage()) : Buildable(e.name);
    if (!message) {
      Fail(e.pos, NamedType(e.name) ? "'" + e.name + "' is not a message type"
                                    : "undeclared reference to '" + Spelled(e) + "'");
      return;
    }
    for (size_t k = 0; k < e.args.size(); k += 2) {
      const Expr& field = *e.args[k];
      auto declared = std::find_if(message->fields.begin(), message->fields.end(),
                                   [&](const auto& f) { return f.first == field.name; });
      if (declared == message->fields.end()) {
        Fail(field.pos, "undefined field '" + field.name + "'");
        return;
      }
      const Type& want = declared->second;
      Expr& value = *e.args[k + 1];
      Visit(value);
      if (!err_.ok()) return;
      const Type& t = value.type;
      if (!e.optional_entries.empty() && e.optional_entries[k / 2]) {
        if (!t.is_dyn() && !(t.kind == TypeKind::kOptional && (t.elem->is_dyn() || FieldAccepts(want, *t.elem)))) {
          Fail(value.pos, "expected type '" + Type::Optional(want).Name() + "' but found '" + t.Name() + "'");
          return;
        }
      } else if (!t.is_dyn() && !FieldAccepts(want, t)) {
        Fail(field.pos, "expected type of field '" + field.name + "' is '" + want.Name() + "' but provided type is '" +
                            t.Name() + "'");
        return;
      }
    }
    e.type = message->type;
  }

  // Whether a message field of type `want` takes a value of type t (not
  // dyn): one of its kind, a list or map also by its elements' types.
  static bool FieldAccepts(const Type& want, const Type& t) {
    if (t.kind != want.kind) return false;
    return (want.kind != TypeKind::kList && want.kind != TypeKind::kMap) || Compatible(want, t);
  }

  // The type a type identifier names (`int`, `net.IP`), or nullopt.
  static std::optional<Type> NamedType(const std::string& n) {
    static const std::pair<const char*, TypeKind> kScalars[] = {
        {"int", TypeKind::kInt},     {"uint", TypeKind::kUint},     {"double", TypeKind::kDouble},
        {"bool", TypeKind::kBool},   {"string", TypeKind::kString}, {"bytes", TypeKind::kBytes},
        {"null_type", TypeKind::kNull}, {"net.IP", TypeKind::kIP},  {"net.CIDR", TypeKind::kCIDR},
        {"google.protobuf.Duration", TypeKind::kDuration}, {"google.protobuf.Timestamp", TypeKind::kTimestamp}};
    for (const auto& [name, kind] : kScalars) {
      if (n == name) return Type::Of(kind);
    }
    if (n == "list") return Type::List(Type::Dyn());
    if (n == "map") return Type::Map(Type::Dyn(), Type::Dyn());
    if (n == "optional_type") return Type::Optional(Type::Dyn());
    if (n == "type") return Type::TypeOf(Type::Dyn());
    return std::nullopt;
  }

  // Turns e into the type value named `name` (the runtime type's name).
  static void MakeTypeLiteral(Expr& e, const std::string& name, const Type& named) {
    e.kind = Expr::Kind::kLiteral;
    e.literal = Value::TypeNamed(name);
    e.target.reset();
    e.type = Type::TypeOf(named);
  }

  static Type LiteralType(const Value& v) {
    switch (v.kind) {
      case Value::Kind::kBool: return Type::Of(TypeKind::kBool);
      case Value::Kind::kInt: return Type::Of(TypeKind::kInt);
      case Value::Kind::kUint: return Type::Of(TypeKind::kUint);
      case Value::Kind::kDouble: return Type::Of(TypeKind::kDouble);
      case Value::Kind::kString: return Type::Of(TypeKind::kString);
      case Value::Kind::kBytes: return Type::Of(TypeKind::kBytes);
      default: return Type::Of(TypeKind::kNull);
    }
  }

  // The dotted name a chain of selections from an identifier spells
  // (google.protobuf.Duration), unless its root is a variable or a test.
  std::optional<std::string> QualifiedName(const Expr& e) const {
    if (e.kind == Expr::Kind::kIdent) {
      // A variable hides a qualified name spelled from it, unless the name
      // has a leading dot (then TypeNameUsable decides by release).
      if (!e.leading_dot && Lookup(e.name)) return std::nullopt;
      return e.name;
    }
    if (e.kind != Expr::Kind::kSelect || e.test_only || e.optional) return std::nullopt;
    std::optional<std::string> prefix = QualifiedName(*e.target);
    if (!prefix) return std::nullopt;
    return *prefix + "." + e.name;
  }

  void Select(Expr& e) {
    // net.IP, net.CIDR, google.protobuf.Duration and
    // google.protobuf.Timestamp are type identifiers, unless their first
    // name is a variable.
    if (std::optional<std::string> qualified = QualifiedName(e)) {
      if (std::optional<Type> named = NamedType(*qualified)) {
        const Expr* root = &e;
        while (root->kind == Expr::Kind::kSelect) root = root->target.get();
        if (TypeNameUsable(*root, *qualified)) MakeTypeLiteral(e, *qualified, *named);
        return;
      }
    }
    Visit(*e.target);
    if (!err_.ok()) return;
    // A field of an optional value (or selected with `.?`) is optional.
    const bool optional = e.optional || e.target->type.kind == TypeKind::kOptional;
    const Type t = e.target->type.kind == TypeKind::kOptional ? *e.target->type.elem : e.target->type;
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
    e.type = e.test_only ? Type::Of(TypeKind::kBool) : (optional ? Type::Optional(field) : field);
  }

  // o.optMap(x, t): optional of t's type; o.optFlatMap(x, t): t's type,
  // which must be optional. x is o's value.
  void OptionalMacro(Expr& e) {
    Visit(*e.target);
    if (!err_.ok()) return;
    const Type& o = e.target->type;
    if (o.kind != TypeKind::kOptional && o.kind != TypeKind::kNull && !o.is_dyn()) {
      Fail(e.pos, "found no matching overload for 'hasValue' applied to '" + o.Name() + ".()'");
      return;
    }
    scope_.emplace_back(e.iter_var, BoundHeld(o).value_or(Type::Dyn()));
    Visit(*e.args[0]);
    scope_.pop_back();
    if (!err_.ok()) return;
    const Type& t = e.args[0]->type;
    if (e.name == "optMap") {
      e.type = Type::Optional(t);
    } else if (t.kind == TypeKind::kOptional) {
      e.type = t;
    } else if (t.is_dyn()) {
      e.type = Type::Optional(Type::Dyn());
    } else {
      Fail(e.args[0]->pos, "optFlatMap() needs an optional value, not " + t.Name());
    }
  }

  // Whether a is as general as b or more (cel-go's isEqualOrLessSpecific):
  // dyn, any and free are the most general.
  static bool LessSpecific(const Type& a, const Type& b) {
    if (a.is_dyn()) return true;
    if (b.is_dyn() || a.kind != b.kind) return false;
    if (a.kind == TypeKind::kList || a.kind == TypeKind::kOptional) return LessSpecific(*a.elem, *b.elem);
    if (a.kind == TypeKind::kMap) return LessSpecific(*a.key, *b.key) && LessSpecific(*a.elem, *b.elem);
    return true;
  }

  // The type an optional holds; nullopt for an unbound one (optional.none()'s)
  // and for a type that is not optional (dyn).
  static std::optional<Type> BoundHeld(const Type& t) {
    if (t.kind != TypeKind::kOptional || t.elem->kind == TypeKind::kFree) return std::nullopt;
    return *t.elem;
  }

  void Comprehension(Expr& e) {
    if (e.name == "optMap" || e.name == "optFlatMap") {
      OptionalMacro(e);
      return;
    }
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
    for (size_t k = 0; k < e.args.size(); ++k) {
      Expr& a = *e.args[k];
      Visit(a);
      if (!err_.ok()) return;
      std::optional<Type> t = EntryType(e, k, a);
      if (!t || !Homogeneous(a.pos, &elem, &first, *t)) return;
    }
    e.type = Type::List(elem);
  }

  // The type entry k of a list or map literal contributes: its value's,
  // or for a `?` entry the type its optional holds (dyn stays dyn).
  std::optional<Type> EntryType(const Expr& literal, size_t k, const Expr& value) {
    if (literal.optional_entries.empty() || !literal.optional_entries[k]) return value.type;
    if (value.type.kind == TypeKind::kOptional) return *value.type.elem;
    if (value.type.is_dyn() && in_format_ == 0) {
      // cel-go's homogeneous-literal validator reads the type an optional
      // holds from a `?` entry's type, and panics on one that has none (dyn
      // or any); Kubernetes' API server reports that as a failed compile.
      // Literals inside format() are not validated.
      Fail(value.pos, "a `?` entry of unknown type (Kubernetes' compiler panics on it)");
      return std::nullopt;
    }
    if (value.type.is_dyn()) return value.type;
    Fail(value.pos, "expected type '" + Type::Optional(value.type).Name() + "' but found '" + value.type.Name() + "'");
    return std::nullopt;
  }

  void Map(Expr& e) {
    // An empty map's keys and values: bound by its use.
    Type key = Type::Of(TypeKind::kFree), value = Type::Of(TypeKind::kFree);
    bool first_key = true, first_value = true;
    for (size_t k = 0; k < e.args.size(); k += 2) {
      Visit(*e.args[k]);
      Visit(*e.args[k + 1]);
      if (!err_.ok()) return;
      const Type& kt = e.args[k]->type;
      if (!Homogeneous(e.args[k]->pos, &key, &first_key, kt)) return;
      std::optional<Type> vt = EntryType(e, k / 2, *e.args[k + 1]);
      if (!vt || !Homogeneous(e.args[k + 1]->pos, &value, &first_value, *vt)) return;
    }
    e.type = Type::Map(key, value);
  }

  // Aggregate literals hold exactly one type (Kubernetes validates
  // homogeneous literals): dyn, any and int are three different types here.
  bool Homogeneous(size_t pos, Type* acc, bool* first, const Type& t) {
    // The first entry, or the first that binds optional.none()'s type.
    if (*first || acc->kind == TypeKind::kFree) {
      *acc = t;
      *first = false;
      return true;
    }
    if (!SameType(*acc, t) && in_format_ > 0) {
      // Literals inside a format() call are exempt (cel-go's format
      // validator asks so), and join as cel-go's checker joins them: to
      // the less specific of two compatible types, else to dyn.
      if (acc->is_dyn()) return true;
      if (t.is_dyn() || !Compatible(*acc, t)) *acc = t.is_dyn() ? t : Type::Dyn();
      return true;
    }
    if (!SameType(*acc, t)) {
      Fail(pos, "expected type '" + acc->Name() + "' but found '" + t.Name() + "'");
      return false;
    }
    *acc = BindFree(*acc, t);
    return true;
  }

  void Call(Expr& e) {
    // A namespaced global function (sets.contains) parses as a member call
    // on an identifier. A declared one wins over a variable of the same
    // name, as in cel-go's checker ([1].all(ip, ip.isCanonical("::1"))).
    if (e.target && e.target->kind == Expr::Kind::kIdent) {
      std::string qualified = e.target->name + "." + e.name;
      if (qualified == "sets.contains" || qualified == "sets.equivalent" || qualified == "sets.intersects" ||
          qualified == "lists.range" || qualified == "strings.quote" || qualified == "ip.isCanonical" ||
          qualified == "optional.of" || qualified == "optional.ofNonZeroValue" || qualified == "optional.none" ||
          qualified == "optional.unwrap" || (qualified.rfind("format.", 0) == 0 && FindOverloads(qualified))) {
        // Becomes the global function it names.
        e.name = qualified;
        e.target.reset();
        Call(e);
        return;
      }
      const bool local = Local(*e.target) != nullptr;
      if (!err_.ok()) return;
      // Neither a function nor a receiver: cel-go's first error names the
      // identifier.
      if (!local && e.target->name != "device") {
        Fail(e.target->pos, "undeclared reference to '" + Spelled(*e.target) + "'");
        return;
      }
    }
    std::vector<Type> types;
    const bool format = e.name == "format";
    in_format_ += format;
    if (e.target) {
      Visit(*e.target);
      types.push_back(e.target->type);
    }
    for (auto& a : e.args) {
      Visit(*a);
      types.push_back(a->type);
    }
    in_format_ -= format;
    if (!err_.ok()) return;
    if (Special(e, types) || OptionalCall(e, types)) return;
    if (!e.target && e.name == "duration" && options_.duration_of_int && types.size() == 1 &&
        types[0].kind == TypeKind::kInt) {
      e.type = Type::Of(TypeKind::kDuration);
      ValidateTimeLiteral(e);
      return;
    }
    if (e.target && e.name == "includes" && options_.includes) {
      e.type = Type::Of(TypeKind::kBool);  // includes(dyn, dyn)
      return;
    }
    if (e.target) {
      std::optional<Type> generic;
      if (GenericListCall(e.name, types, &generic)) {
        if (!generic) {
          NoMatchingOverload(e, types);
          return;
        }
        e.type = *generic;
        // Kubernetes' isSorted, sum, min and max bind a free element type
        // to their first overload's, int, and that overload's type guard
        // refuses at run time a list whose first element is another kind.
        const bool guarded = e.name == "isSorted" || e.name == "sum" || e.name == "min" || e.name == "max";
        e.int_overload = guarded && types[0].kind == TypeKind::kList && types[0].elem->kind == TypeKind::kFree;
        return;
      }
    }
    const std::vector<Overload>* overloads = FindOverloads(e.name);
    if (!overloads) {
      Fail(e.pos, "undeclared reference to '" + Spelled(e) + "'");
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
      NoMatchingOverload(e, types);
      return;
    }
    e.type = *results[0];
    for (const Type* r : results) {
      if (!SameType(*r, e.type)) e.type = Type::Dyn();
    }
    ValidateTimeLiteral(e);
    ValidateFormatLiteral(e);
  }

  // Kubernetes' environment checks format() of a literal string over a
  // list literal as it compiles (cel-go's string format validator).
  void ValidateFormatLiteral(const Expr& e) {
    if (!IsFormatOfLiterals(e)) return;
    size_t pos = 0;
    std::string message;
    if (!ValidateFormatCall(e, &pos, &message)) Fail(pos, message);
  }

  static bool IsFormatOfLiterals(const Expr& e) {
    return e.name == "format" && e.target && e.target->kind == Expr::Kind::kLiteral &&
           e.target->literal.kind == Value::Kind::kString && e.args.size() == 1 &&
           e.args[0]->kind == Expr::Kind::kList;
  }

  // Kubernetes' environment validates duration() and timestamp() of a
  // literal as it compiles (cel-go's ValidateDurationLiterals and
  // ValidateTimestampLiterals).
  void ValidateTimeLiteral(const Expr& e) {
    if (e.target || e.args.size() != 1 || e.args[0]->kind != Expr::Kind::kLiteral ||
        (e.name != "duration" && e.name != "timestamp")) {
      return;
    }
    if (CallTimeFunction(e.name, false, {e.args[0]->literal}).is_error()) {
      Fail(e.args[0]->pos, "invalid " + e.name + " argument");
    }
  }

  // Operators whose overloads are generic over a type parameter.
  bool Special(Expr& e, const std::vector<Type>& t) {
    const std::string& n = e.name;
    auto no_overload = [&] {
      Fail(e.pos, "found no matching overload for '" + n + "' applied to '" + ArgList(t) + "'");
      return true;
    };
    if (n == "type" && !e.target) {
      if (t.size() != 1) return no_overload();
      e.type = Type::TypeOf(t[0]);
      return true;
    }
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
        // `[][0]`, `[]` and optional.none() take the other branch's type.
        e.type = BindFree(t[1], t[2]);
      } else if ((t[1].kind == TypeKind::kNull && t[2].nullable()) ||
                 (t[2].kind == TypeKind::kNull && t[1].nullable())) {
        // Null and a nullable type: cel-go keeps the type the first branch
        // bound (mostGeneral prefers neither), null included.
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
    if (n == "_[_]" || n == "_[?_]") {
      // An element of an optional value (or indexed with `[?`) is optional.
      const bool optional = n == "_[?_]" || t[0].kind == TypeKind::kOptional;
      const Type& c = t[0].kind == TypeKind::kOptional ? *t[0].elem : t[0];
      if (c.kind == TypeKind::kList) {
        if (!Compatible(Type::Of(TypeKind::kInt), t[1])) return no_overload();
        e.type = *c.elem;
      } else if (c.kind == TypeKind::kMap) {
        if (!Compatible(*c.key, t[1])) return no_overload();
        e.type = *c.elem;
      } else if (c.is_dyn()) {
        // cel-go matches every overload of both operators here, whose
        // results differ: dyn, even for `[?` (not an optional).
        e.type = Type::Dyn();
        return true;
      } else {
        return no_overload();
      }
      if (optional) e.type = Type::Optional(e.type);
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
      // A dyn operand takes the list's type, the only overload it can
      // match (cel-go binds list(A) by the other side).
      if (other.kind == TypeKind::kDyn) {
        e.type = t[0].kind == TypeKind::kList ? t[0] : t[1];
      } else {
        e.type = SameType(t[0], t[1]) ? BindFree(t[0], t[1]) : Type::List(Type::Dyn());
      }
      return true;
    }
    return false;
  }

  // CEL's optional library: optional.of, optional.ofNonZeroValue,
  // optional.none, hasValue, value, or, orValue, first, last,
  // optional.unwrap and unwrapOpt. The type a generic overload binds
  // comes from its first argument that fixes it, as cel-go's unification
  // does: optional.none()'s held type is unbound (free).
  bool OptionalCall(Expr& e, const std::vector<Type>& t) {
    const std::string& n = e.name;
    const bool member = e.target != nullptr;
    auto no_overload = [&] {
      NoMatchingOverload(e, t);
      return true;
    };
    // null stands for an optional too (Type::nullable), its held type unbound.
    auto is_optional = [](const Type& x) {
      return x.kind == TypeKind::kOptional || x.kind == TypeKind::kNull || x.is_dyn();
    };
    if (!member && (n == "optional.of" || n == "optional.ofNonZeroValue")) {
      if (t.size() != 1) return no_overload();
      e.type = Type::Optional(t[0]);
    } else if (!member && n == "optional.none") {
      if (!t.empty()) return no_overload();
      e.type = Type::Optional(Type::Of(TypeKind::kFree));
    } else if (member && n == "hasValue") {
      if (t.size() != 1 || !is_optional(t[0])) return no_overload();
      e.type = Type::Of(TypeKind::kBool);
    } else if (member && n == "value") {
      if (t.size() != 1 || !is_optional(t[0])) return no_overload();
      e.type = BoundHeld(t[0]).value_or(Type::Dyn());
    } else if (member && (n == "or" || n == "orValue")) {
      if (t.size() != 2 || !is_optional(t[0])) return no_overload();
      if (n == "or" && !is_optional(t[1])) return no_overload();
      // or: optional(V), optional(V); orValue: optional(V), V.
      std::optional<Type> other = n == "or" ? BoundHeld(t[1]) : std::optional<Type>(t[1]);
      std::optional<Type> v = BoundHeld(t[0]);
      if (v && other && !Compatible(*v, *other)) return no_overload();
      // The parameter widens to the less specific of the two (int and dyn
      // make dyn), as cel-go's unification does; of two same types (int and
      // wrapper(int)) the first stays.
      if (!v || (other && LessSpecific(*other, *v) && !SameType(*other, *v))) v = other;
      if (n == "or") {
        e.type = Type::Optional(v.value_or(Type::Of(TypeKind::kFree)));
      } else {
        e.type = v.value_or(Type::Dyn());
      }
    } else if (member && (n == "first" || n == "last")) {
      if (t.size() != 1 || (t[0].kind != TypeKind::kList && !t[0].is_dyn())) return no_overload();
      // Over dyn the element type is unbound.
      e.type = Type::Optional(t[0].kind == TypeKind::kList ? *t[0].elem : Type::Of(TypeKind::kFree));
    } else if ((!member && n == "optional.unwrap") || (member && n == "unwrapOpt")) {
      if (t.size() != 1) return no_overload();
      const Type& l = t[0];
      // Over dyn (or a list of dyn or null) the held type is unbound.
      if (l.is_dyn() || (l.kind == TypeKind::kList && (l.elem->is_dyn() || l.elem->kind == TypeKind::kNull))) {
        e.type = Type::List(Type::Of(TypeKind::kFree));
      } else if (l.kind == TypeKind::kList && l.elem->kind == TypeKind::kOptional) {
        e.type = Type::List(*l.elem->elem);
      } else {
        return no_overload();
      }
    } else {
      return false;
    }
    return true;
  }

  std::string_view source_;
  const CompileOptions& options_;
  std::vector<std::pair<std::string, Type>> scope_;
  // How many format() calls enclose the expression being checked.
  int in_format_ = 0;
  util::Status err_;
};

}  // namespace

util::Status Check(std::string_view source, Expr& root, const CompileOptions& options) {
  return Checker(source, options).Run(root);
}

}  // namespace ksched::cel
