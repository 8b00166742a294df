#include "pkg/cel/fold.h"

#include <string>
#include <vector>

#include "pkg/cel/eval.h"
#include "pkg/cel/lexer.h"

namespace ksched::cel {
namespace {

bool IsConversion(const std::string& name) {
  return name == "int" || name == "uint" || name == "double" || name == "string" || name == "bool" ||
         name == "dyn" || name == "bytes" || name == "duration" || name == "timestamp";
}

bool IsPrimitive(const Value& v) {
  using K = Value::Kind;
  return v.kind == K::kBool || v.kind == K::kInt || v.kind == K::kUint || v.kind == K::kDouble ||
         v.kind == K::kString;
}

void MakeLiteral(Expr& e, Value v) {
  e.kind = Expr::Kind::kLiteral;
  e.literal = std::move(v);
  e.args.clear();
  e.target.reset();
}

class Folder {
 public:
  explicit Folder(std::string_view source) : source_(source) {}

  util::Status Visit(Expr& e) {
    if (e.target) {
      util::Status st = Visit(*e.target);
      if (!st.ok()) return st;
    }
    for (auto& a : e.args) {
      util::Status st = Visit(*a);
      if (!st.ok()) return st;
    }
    switch (e.kind) {
      case Expr::Kind::kList: {
        // `?` entries are checked and dropped at run time.
        if (!AllLiterals(e) || !e.optional_entries.empty()) break;
        ValueList items;
        for (auto& a : e.args) items.push_back(a->literal);
        MakeLiteral(e, Value::List(std::move(items)));
        break;
      }
      case Expr::Kind::kMap: {
        if (!AllLiterals(e)) break;
        CostBudget budget{UINT64_MAX, 0};
        Value m = Evaluate(e, Value::Null(), &budget);
        // An unhashable key (bytes) panics Kubernetes' planner: the
        // expression does not compile. Other errors are the value's.
        if (budget.aborted()) return util::InvalidArgument(Location(source_, e.pos) + ": " + budget.abort);
        MakeLiteral(e, std::move(m));
        break;
      }
      case Expr::Kind::kCall:
        if (!e.target && e.args.size() == 1 && IsConversion(e.name) && e.args[0]->kind == Expr::Kind::kLiteral) {
          CostBudget budget{UINT64_MAX, 0};
          Value v = CallFunction(e.name, false, {e.args[0]->literal}, &budget);
          if (v.is_error()) return util::InvalidArgument(Location(source_, e.pos) + ": " + v.s);
          MakeLiteral(e, std::move(v));
        } else if ((e.name == "_[_]" || e.name == "_[?_]") && e.args[1]->kind == Expr::Kind::kLiteral &&
                   UnqualifiableType(e.args[1]->literal.kind)) {
          // Kubernetes plans a constant index as a qualifier, which bytes,
          // a duration or a timestamp cannot be.
          return util::InvalidArgument(Location(source_, e.pos) + ": invalid qualifier type: " +
                                       UnqualifiableType(e.args[1]->literal.kind));
        } else if (e.name == "matches" && e.args.back()->kind == Expr::Kind::kLiteral &&
                   e.args.back()->literal.kind == Value::Kind::kString) {
          util::StatusOr<Regex> re = Regex::Compile(e.args.back()->literal.s);
          if (!re.ok()) return util::InvalidArgument(Location(source_, e.pos) + ": " + re.status().message());
          e.regex = std::make_shared<const Regex>(std::move(re).value());
        } else if ((e.name == "find" || e.name == "findAll") && e.target && !e.args.empty() &&
                   e.args[0]->kind == Expr::Kind::kLiteral && e.args[0]->literal.kind == Value::Kind::kString) {
          // Kubernetes compiles a constant pattern with the program.
          util::StatusOr<Regex> re = Regex::Compile(e.args[0]->literal.s);
          if (!re.ok()) return util::InvalidArgument(Location(source_, e.pos) + ": " + re.status().message());
          e.regex = std::make_shared<const Regex>(std::move(re).value());
        } else if (e.name == "@in" && e.args[1]->kind == Expr::Kind::kLiteral &&
                   e.args[1]->literal.kind == Value::Kind::kList) {
          const ValueList& items = *e.args[1]->literal.list;
          if (items.empty()) {
            MakeLiteral(e, Value::Bool(false));
            break;
          }
          bool primitive = true;
          for (const Value& v : items) primitive = primitive && IsPrimitive(v);
          e.constant_set = primitive;
        }
        break;
      default:
        break;
    }
    return util::Status::Ok();
  }

 private:
  static bool AllLiterals(const Expr& e) {
    for (const auto& a : e.args) {
      if (a->kind != Expr::Kind::kLiteral) return false;
    }
    return true;
  }

  std::string_view source_;
};

}  // namespace

util::Status Fold(std::string_view source, Expr& root) { return Folder(source).Visit(root); }

}  // namespace ksched::cel
