#include "pkg/cel/parser.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pkg/cel/lexer.h"

namespace ksched::cel {
namespace {

// Kubernetes' limits (cel-go's parser): nesting of parentheses, lists, maps
// and argument lists up to 250 levels, and a tree at most 250 high, where
// literals do not count and && / || chains are balanced. They bound the
// recursion of the parser, checker, folder and evaluator.
constexpr int kMaxDepth = 250;
constexpr int kMaxTreeHeight = 250;

const std::set<std::string, std::less<>> kReserved = {
    "as", "break", "const", "continue", "else", "for", "function", "if", "import",
    "let", "loop", "package", "namespace", "return", "var", "void", "while", "in"};
// The words CEL's lexer reads as tokens of their own, never as identifiers:
// not even a field or method may be named so (x.true is a syntax error).
const std::set<std::string, std::less<>> kKeywords = {"in", "true", "false", "null"};
// Macros over a range (r.all(x, p), ...). Called with other arities, or as
// global functions, they are undeclared, as in Kubernetes.
const std::set<std::string, std::less<>> kMacros = {"all", "exists", "exists_one", "map", "filter",
                                                    "existsOne", "transformList", "transformMap",
                                                    "transformMapEntry"};

class Parser {
 public:
  Parser(std::string_view expr, std::vector<Token> tokens, const CompileOptions& options)
      : expr_(expr), toks_(std::move(tokens)), options_(options) {}

  util::StatusOr<ExprPtr> Run() {
    ExprPtr e = Expression();
    if (!err_.ok()) return err_;
    if (Peek().kind != Token::Kind::kEnd) {
      Fail(Peek().pos, "syntax error: unexpected '" + Spelling(Peek()) + "'");
      return err_;
    }
    return e;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    size_t k = std::min(i_ + ahead, toks_.size() - 1);
    return toks_[k];
  }
  bool IsPunct(const char* p, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == Token::Kind::kPunct && t.text == p;
  }
  bool Accept(const char* p) {
    if (!IsPunct(p)) return false;
    ++i_;
    return true;
  }
  void Expect(const char* p) {
    if (!err_.ok()) return;
    if (!Accept(p)) {
      const Token& t = Peek();
      Fail(t.pos, std::string("syntax error: expected '") + p + "'" +
                      (t.kind == Token::Kind::kEnd ? " at end of input" : ", found '" + Spelling(t) + "'"));
    }
  }
  // A token as written, for messages.
  static std::string Spelling(const Token& t) {
    return t.kind == Token::Kind::kBacktickIdent ? "`" + t.text + "`" : t.text;
  }
  void Fail(size_t pos, const std::string& what) {
    if (err_.ok()) err_ = util::InvalidArgument(Location(expr_, pos) + ": " + what);
  }
  ExprPtr Node(Expr::Kind kind, size_t pos) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    return e;
  }
  ExprPtr Call(std::string fn, size_t pos, std::vector<ExprPtr> args) {
    ExprPtr e = Node(Expr::Kind::kCall, pos);
    e->name = std::move(fn);
    e->args = std::move(args);
    Height(*e);
    return e;
  }
  // Sets e's height from its children; too tall a tree is an error.
  void Height(Expr& e) {
    int h = 0;
    if (e.target) h = Of(*e.target);
    for (const auto& a : e.args) h = std::max(h, Of(*a));
    e.depth = h + 1;
    if (e.depth > kMaxTreeHeight) Fail(e.pos, "expression nested too deeply");
  }
  ExprPtr Call2(const char* fn, size_t pos, ExprPtr a, ExprPtr b) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    return Call(fn, pos, std::move(args));
  }

  static int Of(const Expr& e) { return e.kind == Expr::Kind::kLiteral ? 0 : e.depth; }

  // cel-go builds && and || chains as balanced trees; evaluation order stays
  // left to right.
  ExprPtr Balanced(const char* fn, std::vector<ExprPtr>& terms, std::vector<size_t>& ops, size_t lo, size_t hi) {
    if (lo == hi) return std::move(terms[lo]);
    size_t mid = (lo + hi + 1) / 2;
    ExprPtr left = Balanced(fn, terms, ops, lo, mid - 1);
    ExprPtr right = Balanced(fn, terms, ops, mid, hi);
    return Call2(fn, ops[mid - 1], std::move(left), std::move(right));
  }

  struct DepthGuard {
    explicit DepthGuard(Parser* p) : p(p) { ++p->depth_; }
    ~DepthGuard() { --p->depth_; }
    Parser* p;
  };

  ExprPtr Expression() {
    DepthGuard g(this);
    if (depth_ > kMaxDepth) {
      Fail(Peek().pos, "expression nested too deeply");
      return Node(Expr::Kind::kLiteral, Peek().pos);
    }
    ExprPtr cond = Or();
    if (!err_.ok()) return cond;
    if (IsPunct("?")) {
      size_t pos = Peek().pos;
      ++i_;
      ExprPtr a = Or();
      Expect(":");
      ExprPtr b = Expression();
      std::vector<ExprPtr> args;
      args.push_back(std::move(cond));
      args.push_back(std::move(a));
      args.push_back(std::move(b));
      return Call("_?_:_", pos, std::move(args));
    }
    return cond;
  }

  ExprPtr Or() { return Logical("||", "_||_", &Parser::And); }
  ExprPtr And() { return Logical("&&", "_&&_", &Parser::Relation); }

  ExprPtr Logical(const char* op, const char* fn, ExprPtr (Parser::*operand)()) {
    std::vector<ExprPtr> terms;
    std::vector<size_t> ops;
    terms.push_back((this->*operand)());
    while (err_.ok() && IsPunct(op)) {
      ops.push_back(Peek().pos);
      ++i_;
      terms.push_back((this->*operand)());
    }
    if (!err_.ok()) return std::move(terms[0]);
    return Balanced(fn, terms, ops, 0, terms.size() - 1);
  }

  ExprPtr Relation() {
    ExprPtr e = Addition();
    while (err_.ok()) {
      static const std::pair<const char*, const char*> kOps[] = {
          {"<", "_<_"}, {"<=", "_<=_"}, {">", "_>_"}, {">=", "_>=_"}, {"==", "_==_"}, {"!=", "_!=_"}};
      const char* fn = nullptr;
      for (const auto& [p, name] : kOps) {
        if (IsPunct(p)) fn = name;
      }
      if (!fn && Peek().kind == Token::Kind::kIdent && Peek().text == "in") fn = "@in";
      if (!fn) break;
      size_t pos = Peek().pos;
      ++i_;
      e = Call2(fn, pos, std::move(e), Addition());
    }
    return e;
  }

  ExprPtr Addition() {
    ExprPtr e = Multiplication();
    while (err_.ok() && (IsPunct("+") || IsPunct("-"))) {
      const char* fn = IsPunct("+") ? "_+_" : "_-_";
      size_t pos = Peek().pos;
      ++i_;
      e = Call2(fn, pos, std::move(e), Multiplication());
    }
    return e;
  }

  ExprPtr Multiplication() {
    ExprPtr e = Unary();
    while (err_.ok() && (IsPunct("*") || IsPunct("/") || IsPunct("%"))) {
      const char* fn = IsPunct("*") ? "_*_" : (IsPunct("/") ? "_/_" : "_%_");
      size_t pos = Peek().pos;
      ++i_;
      e = Call2(fn, pos, std::move(e), Unary());
    }
    return e;
  }

  ExprPtr Unary() {
    // A run of '!' or '-' applies to a member expression; as in CEL's
    // grammar an even run cancels out (!!x is x, and binds like x).
    if (IsPunct("!") || IsPunct("-")) {
      const char* op = IsPunct("!") ? "!" : "-";
      size_t pos = Peek().pos;
      size_t run = 0;
      while (IsPunct(op)) {
        ++i_;
        ++run;
      }
      // A single minus directly before a number literal is part of the
      // literal, so that the smallest int64 can be written.
      if (run == 1 && op[0] == '-' && IsNumber(Peek())) return Member(NegativeLiteral(pos));
      // After a run of '!' the operand is a member expression, which may be
      // a negative literal (!-1) but not a negation (!-x).
      ExprPtr operand;
      if (op[0] == '!' && IsPunct("-") && IsNumber(Peek(1))) {
        size_t minus = Peek().pos;
        ++i_;
        operand = Member(NegativeLiteral(minus));
      } else {
        operand = Member(Primary());
      }
      if (run % 2 == 0) return operand;
      std::vector<ExprPtr> args;
      args.push_back(std::move(operand));
      return Call(op[0] == '!' ? "!_" : "-_", pos, std::move(args));
    }
    return Member(Primary());
  }

  static bool IsNumber(const Token& t) { return t.kind == Token::Kind::kInt || t.kind == Token::Kind::kDouble; }

  // The number token at i_, negated, as one literal at pos.
  ExprPtr NegativeLiteral(size_t pos) {
    const Token& next = Peek();
    ExprPtr lit = Node(Expr::Kind::kLiteral, pos);
    if (next.kind == Token::Kind::kDouble) {
      lit->literal = Value::Double(-next.d);
    } else if (next.u > static_cast<uint64_t>(INT64_MAX) + 1) {
      Fail(next.pos, "syntax error: integer literal out of range");
    } else {
      lit->literal = Value::Int(static_cast<int64_t>(0 - next.u));
    }
    ++i_;
    return lit;
  }

  std::vector<ExprPtr> Args(const char* close) {
    std::vector<ExprPtr> args;
    if (Accept(close)) return args;
    while (err_.ok()) {
      args.push_back(Expression());
      if (Accept(close)) break;
      Expect(",");
      // CEL accepts a trailing comma in lists, maps and argument lists.
      if (Accept(close)) break;
    }
    return args;
  }

  ExprPtr Member(ExprPtr e) {
    // Whether e is still a (dotted) name, which `{` makes a message
    // construction: an identifier not in parentheses, then `.name`s.
    bool name = e->kind == Expr::Kind::kIdent && i_ > 0 && toks_[i_ - 1].kind == Token::Kind::kIdent;
    while (err_.ok()) {
      const bool was_name = name;
      name = false;
      // `.?` and `[?` may be one token or two (`. ?`, `[ ?`), as in CEL's grammar.
      const bool opt_select = IsPunct(".?") || (IsPunct(".") && IsPunct("?", 1));
      if (opt_select) {
        i_ += IsPunct(".?") ? 1 : 2;
        const Token& t = Peek();
        // `.?f(` is a syntax error at the '(' (no call follows `.?f`).
        if (!FieldName(t, t.pos)) {
          Fail(t.pos, "syntax error: expected a field name after '.?'");
          return e;
        }
        ++i_;
        e = Selection(std::move(e), t, /*optional=*/true);
      } else if (Accept(".")) {
        const Token& t = Peek();
        if (!FieldName(t, t.pos)) {
          Fail(t.pos, "syntax error: expected a field or method name after '.'");
          return e;
        }
        ++i_;
        // In CEL's grammar a quoted name is neither a method nor part of a
        // message's type name (`T.`U`{}` is a syntax error).
        if (t.kind == Token::Kind::kBacktickIdent) {
          e = Selection(std::move(e), t, /*optional=*/false);
          continue;
        }
        if (Accept("(")) {
          if (kMacros.count(t.text)) {
            e = Macro(t.text, t.pos, std::move(e));
            continue;
          }
          if (t.text == "sortBy") {
            e = SortBy(t.pos, std::move(e));
            continue;
          }
          ExprPtr call = Node(Expr::Kind::kCall, t.pos);
          call->name = t.text;
          call->target = std::move(e);
          call->args = Args(")");
          if ((t.text == "optMap" || t.text == "optFlatMap") && call->args.size() == 2) {
            e = OptionalMacro(std::move(call));
            continue;
          }
          Height(*call);
          e = std::move(call);
        } else {
          e = Selection(std::move(e), t, /*optional=*/false);
          name = was_name;
        }
      } else if (IsPunct("[") || IsPunct("[?")) {
        size_t pos = Peek().pos;
        bool opt = IsPunct("[?");
        ++i_;
        if (!opt) opt = Accept("?");
        ExprPtr index = Expression();
        Expect("]");
        e = Call2(opt ? "_[?_]" : "_[_]", pos, std::move(e), std::move(index));
      } else if (IsPunct("{") && was_name) {
        // Selections and calls may follow (`T{}.f`), another `{` not.
        e = Message(std::move(e));
      } else {
        return e;
      }
    }
    return e;
  }

  // Whether t may name a selected field (`.f`, `.?f`) or a message field:
  // an identifier but a keyword (CEL reserves words such as namespace and
  // if as identifiers only, so authz's resourceCheck.namespace(...) is
  // fine), or a backtick-quoted name. A release that refuses quoted names
  // fails there with cel-go 0.26's error, at `refused_at`.
  bool FieldName(const Token& t, size_t refused_at) {
    if (t.kind == Token::Kind::kBacktickIdent) {
      if (options_.refuse_backtick_identifiers) Fail(refused_at, "unsupported syntax: '`'");
      return true;
    }
    return t.kind == Token::Kind::kIdent && !kKeywords.count(t.text);
  }

  // target.f (or target.?f) for the name token f.
  ExprPtr Selection(ExprPtr target, const Token& f, bool optional) {
    ExprPtr sel = Node(Expr::Kind::kSelect, f.pos);
    sel->name = f.text;
    sel->optional = optional;
    sel->target = std::move(target);
    Height(*sel);
    return sel;
  }

  // `T{f: v, ?g: o}` from the '{', where `name` spells T: a Message whose
  // args pair an Ident per field with its value.
  ExprPtr Message(ExprPtr name) {
    const size_t pos = Peek().pos;
    ++i_;  // '{'
    ExprPtr m = Node(Expr::Kind::kMessage, pos);
    const Expr* root = name.get();
    std::string dotted;
    for (; root->kind == Expr::Kind::kSelect; root = root->target.get()) dotted = "." + root->name + dotted;
    m->name = root->name + dotted;
    m->leading_dot = root->leading_dot;
    Entries(*m, &Parser::MessageField);
    return m;
  }

  // A message's field name, as an Ident at the token after it (its ':',
  // where cel-go reports field errors). cel-go 0.26 places a refused
  // quoted name at the first entry.
  bool MessageField(Expr& m, size_t first_entry) {
    const Token& f = Peek();
    if (!FieldName(f, first_entry)) {
      Fail(f.pos, "syntax error: expected a field name");
      return false;
    }
    ++i_;
    ExprPtr field = Node(Expr::Kind::kIdent, Peek().pos);
    field->name = f.text;
    m.args.push_back(std::move(field));
    return true;
  }

  // A map literal's key: any expression.
  bool MapKey(Expr& map, size_t /*first_entry*/) {
    map.args.push_back(Expression());
    return true;
  }

  // The entries of a map literal or a message after its '{', through the
  // '}': `key: value` pairs, each optionally marked `?` (kept in
  // optional_entries when any is), separated by commas, a trailing one
  // allowed; a lone comma (`{,}`) is no entry, as in CEL's grammar. `key`
  // reads a key into e.args, false on a syntax error.
  void Entries(Expr& e, bool (Parser::*key)(Expr&, size_t)) {
    if (Accept("}")) return;
    if (Accept(",")) {
      Expect("}");
      return;
    }
    const size_t first_entry = Peek().pos;
    std::vector<bool> marks;
    while (err_.ok()) {
      marks.push_back(Accept("?"));
      if (!(this->*key)(e, first_entry)) return;
      Expect(":");
      e.args.push_back(Expression());
      if (Accept("}")) break;
      Expect(",");
      if (Accept("}")) break;
    }
    if (std::find(marks.begin(), marks.end(), true) != marks.end()) e.optional_entries = std::move(marks);
    Height(e);
  }

  // o.optMap(x, t) or o.optFlatMap(x, t), parsed as a call: a
  // Comprehension over o binding x to o's value.
  ExprPtr OptionalMacro(ExprPtr call) {
    if (call->args[0]->kind != Expr::Kind::kIdent) {
      Fail(call->args[0]->pos, call->name + "() variable name must be a simple identifier");
      return call;
    }
    // cel-go's expansion of optMap(.x, t) refers to an undeclared `.x`.
    if (call->args[0]->leading_dot) {
      Fail(call->args[0]->pos, "undeclared reference to '." + call->args[0]->name + "'");
      return call;
    }
    ExprPtr e = Node(Expr::Kind::kComprehension, call->pos);
    e->name = call->name;
    e->iter_var = call->args[0]->name;
    e->target = std::move(call->target);
    e->args.push_back(std::move(call->args[1]));
    Height(*e);
    return e;
  }

  // The entries of a list literal after its '[' (or '[?', when
  // `first_optional`): elements, each optionally marked `?`. A lone comma
  // (`[,]`) is an empty list, as in CEL's grammar.
  void ListEntries(Expr& list, bool first_optional) {
    std::vector<bool> marks;
    if (!first_optional && Accept("]")) return;
    if (!first_optional && Accept(",")) {
      Expect("]");
      return;
    }
    while (err_.ok()) {
      marks.push_back(first_optional || Accept("?"));
      first_optional = false;
      list.args.push_back(Expression());
      if (Accept("]")) break;
      Expect(",");
      // CEL accepts a trailing comma in lists, maps and argument lists.
      if (Accept("]")) break;
    }
    if (std::find(marks.begin(), marks.end(), true) != marks.end()) list.optional_entries = std::move(marks);
  }

  ExprPtr Primary() {
    const Token& t = Peek();
    size_t pos = t.pos;
    switch (t.kind) {
      case Token::Kind::kEnd:
        Fail(pos, "syntax error: unexpected end of expression");
        return Node(Expr::Kind::kLiteral, pos);
      case Token::Kind::kInt: {
        ++i_;
        ExprPtr e = Node(Expr::Kind::kLiteral, pos);
        if (t.u > static_cast<uint64_t>(INT64_MAX)) Fail(pos, "syntax error: integer literal out of range");
        e->literal = Value::Int(static_cast<int64_t>(t.u));
        return e;
      }
      case Token::Kind::kUint: {
        ++i_;
        ExprPtr e = Node(Expr::Kind::kLiteral, pos);
        e->literal = Value::Uint(t.u);
        return e;
      }
      case Token::Kind::kDouble: {
        ++i_;
        ExprPtr e = Node(Expr::Kind::kLiteral, pos);
        e->literal = Value::Double(t.d);
        return e;
      }
      case Token::Kind::kString: {
        ++i_;
        ExprPtr e = Node(Expr::Kind::kLiteral, pos);
        e->literal = Value::String(t.text);
        return e;
      }
      case Token::Kind::kBytes: {
        ++i_;
        ExprPtr e = Node(Expr::Kind::kLiteral, pos);
        e->literal = Value::Bytes(t.text);
        return e;
      }
      case Token::Kind::kIdent:
        return Identifier();
      case Token::Kind::kPunct:
      case Token::Kind::kBacktickIdent:
        break;
    }
    if (Accept("(")) {
      ExprPtr e = Expression();
      Expect(")");
      return e;
    }
    if (IsPunct("[") || IsPunct("[?")) {
      const bool first_optional = IsPunct("[?");
      ++i_;
      ExprPtr e = Node(Expr::Kind::kList, pos);
      ListEntries(*e, first_optional);
      Height(*e);
      return e;
    }
    if (Accept("{")) {
      ExprPtr e = Node(Expr::Kind::kMap, pos);
      Entries(*e, &Parser::MapKey);
      return e;
    }
    if (IsPunct(".") && Peek(1).kind == Token::Kind::kIdent) {
      ++i_;
      return RootIdentifier(pos);
    }
    Fail(pos, "syntax error: unexpected '" + Spelling(t) + "'");
    return Node(Expr::Kind::kLiteral, pos);
  }

  // `.name` or `.name(args)` after the dot: an identifier or global call
  // named from the root scope. No macro takes this form: `.has(a.b)` and
  // `.cel.bind(x, i, e)` are calls of undeclared functions, as in cel-go.
  ExprPtr RootIdentifier(size_t dot) {
    const Token& t = Peek();
    const size_t pos = t.pos;
    std::string name = t.text;
    if (kKeywords.count(name)) {
      Fail(pos, "syntax error: expected an identifier after '.', found '" + name + "'");
      return Node(Expr::Kind::kLiteral, pos);
    }
    if (kReserved.count(name)) {
      Fail(dot, "syntax error: reserved identifier '" + name + "'");
      return Node(Expr::Kind::kLiteral, pos);
    }
    ++i_;
    const size_t paren = Peek().pos;
    ExprPtr e;
    if (Accept("(")) {
      // cel-go places a global call at its '('.
      e = Call(std::move(name), paren, Args(")"));
    } else {
      e = Node(Expr::Kind::kIdent, pos);
      e->name = std::move(name);
    }
    e->leading_dot = true;
    return e;
  }

  // The name a macro's variable binds: a leading-dot one (`.x`) keeps its
  // dot, which no reference can name (`x` and `.x` both look for "x").
  static std::string VariableName(const Expr& ident) {
    return ident.leading_dot ? "." + ident.name : ident.name;
  }

  ExprPtr Identifier() {
    const Token& t = Peek();
    size_t pos = t.pos;
    std::string name = t.text;
    ++i_;
    if (name == "true" || name == "false") {
      ExprPtr e = Node(Expr::Kind::kLiteral, pos);
      e->literal = Value::Bool(name == "true");
      return e;
    }
    if (name == "null") return Node(Expr::Kind::kLiteral, pos);
    if (kReserved.count(name)) {
      Fail(pos, "syntax error: reserved identifier '" + name + "'");
      return Node(Expr::Kind::kLiteral, pos);
    }
    if (name == "cel" && IsPunct(".") && Peek(1).kind == Token::Kind::kIdent && Peek(1).text == "bind" &&
        IsPunct("(", 2)) {
      i_ += 3;
      return Bind(pos);
    }
    const size_t paren = Peek().pos;
    if (Accept("(")) {
      std::vector<ExprPtr> args = Args(")");
      if (name == "has") return Has(pos, paren, std::move(args));
      return Call(name, pos, std::move(args));
    }
    ExprPtr e = Node(Expr::Kind::kIdent, pos);
    e->name = std::move(name);
    return e;
  }

  // range.macro(x, ...) after the '('.
  // One variable: all, exists, exists_one (x, p), map (x, [f,] t),
  // filter (x, p). Two variables (index or key, and value): all, exists,
  // exists_one / existsOne (i, v, p), transformList, transformMap,
  // transformMapEntry (i, v, [f,] t).
  ExprPtr Macro(std::string macro, size_t pos, ExprPtr range) {
    std::vector<ExprPtr> args = Args(")");
    if (!err_.ok()) return range;
    size_t n = args.size();
    bool quantifier = macro == "all" || macro == "exists" || macro == "exists_one" || macro == "existsOne";
    bool transform = macro.rfind("transform", 0) == 0;
    bool two = (quantifier && n == 3) || (transform && (n == 3 || n == 4));
    bool one = (quantifier && macro != "existsOne" && n == 2) || (macro == "map" && (n == 2 || n == 3)) ||
               (macro == "filter" && n == 2);
    if (!one && !two) {
      Fail(pos, "no macro " + macro + "() takes " + std::to_string(n) + " arguments");
      return range;
    }
    size_t vars = two ? 2 : 1;
    for (size_t k = 0; k < vars; ++k) {
      if (args[k]->kind != Expr::Kind::kIdent) {
        Fail(args[k]->pos, "argument must be a simple name");
        return range;
      }
    }
    if (two && VariableName(*args[0]) == VariableName(*args[1])) {
      Fail(args[1]->pos, "duplicate variable name: " + VariableName(*args[1]));
      return range;
    }
    if (macro == "existsOne") macro = "exists_one";
    ExprPtr e = Node(Expr::Kind::kComprehension, pos);
    e->name = macro;
    e->iter_var = VariableName(*args[0]);
    if (two) e->iter_var2 = VariableName(*args[1]);
    e->target = std::move(range);
    for (size_t k = vars; k < n; ++k) e->args.push_back(std::move(args[k]));
    Height(*e);
    return e;
  }

  // range.sortBy(x, key) after the '(', as cel-go's lists extension expands
  // it: cel.bind(@__sortBy_input__, range,
  //   @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(x, key))).
  ExprPtr SortBy(size_t pos, ExprPtr range) {
    std::vector<ExprPtr> args = Args(")");
    if (!err_.ok()) return range;
    if (args.size() != 2) {
      Fail(pos, "undeclared reference to 'sortBy'");
      return range;
    }
    const Expr::Kind k = range->kind;
    if (k != Expr::Kind::kList && k != Expr::Kind::kSelect && k != Expr::Kind::kIdent && k != Expr::Kind::kCall &&
        k != Expr::Kind::kComprehension && k != Expr::Kind::kBind) {
      Fail(range->pos, "sortBy can only be applied to a list, identifier, comprehension, call or select expression");
      return range;
    }
    if (args[0]->kind != Expr::Kind::kIdent) {
      Fail(args[0]->pos, "argument is not an identifier");
      return range;
    }
    static const char kInput[] = "@__sortBy_input__";
    auto input = [&] {
      ExprPtr id = Node(Expr::Kind::kIdent, pos);
      id->name = kInput;
      return id;
    };
    ExprPtr keys = Node(Expr::Kind::kComprehension, pos);
    keys->name = "map";
    keys->iter_var = VariableName(*args[0]);
    keys->target = input();
    keys->args.push_back(std::move(args[1]));
    Height(*keys);
    ExprPtr call = Node(Expr::Kind::kCall, pos);
    call->name = "@sortByAssociatedKeys";
    call->target = input();
    call->args.push_back(std::move(keys));
    Height(*call);
    ExprPtr e = Node(Expr::Kind::kBind, pos);
    e->name = kInput;
    e->target = std::move(range);
    e->args.push_back(std::move(call));
    Height(*e);
    return e;
  }

  // has(a.b): the selection, marked as a test. Its errors point at the
  // '(' (`paren`), where cel-go places the expanded macro.
  ExprPtr Has(size_t pos, size_t paren, std::vector<ExprPtr> args) {
    if (!err_.ok()) return Node(Expr::Kind::kLiteral, pos);
    if (args.size() != 1 || args[0]->kind != Expr::Kind::kSelect || args[0]->optional) {
      Fail(pos, "invalid argument to has() macro: it takes one field selection, like has(a.b)");
      return Node(Expr::Kind::kLiteral, pos);
    }
    args[0]->test_only = true;
    args[0]->pos = paren;
    return std::move(args[0]);
  }

  ExprPtr Bind(size_t pos) {
    std::vector<ExprPtr> args = Args(")");
    if (!err_.ok()) return Node(Expr::Kind::kLiteral, pos);
    if (args.size() != 3 || args[0]->kind != Expr::Kind::kIdent) {
      Fail(pos, "cel.bind() takes a variable name, an initial value and an expression");
      return Node(Expr::Kind::kLiteral, pos);
    }
    // cel-go does not expand cel.bind(.x, ...), and `.x` is undeclared.
    if (args[0]->leading_dot) {
      Fail(args[0]->pos, "undeclared reference to '." + args[0]->name + "'");
      return Node(Expr::Kind::kLiteral, pos);
    }
    ExprPtr e = Node(Expr::Kind::kBind, pos);
    e->name = args[0]->name;
    e->target = std::move(args[1]);
    e->args.push_back(std::move(args[2]));
    Height(*e);
    return e;
  }

  std::string_view expr_;
  std::vector<Token> toks_;
  const CompileOptions& options_;
  size_t i_ = 0;
  int depth_ = 0;
  util::Status err_;
};

}  // namespace

util::StatusOr<ExprPtr> Parse(std::string_view expr, const CompileOptions& options) {
  util::StatusOr<std::vector<Token>> toks = Tokenize(expr);
  if (!toks.ok()) return toks.status();
  return Parser(expr, std::move(toks).value(), options).Run();
}

}  // namespace ksched::cel
