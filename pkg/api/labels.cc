#include "pkg/api/labels.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "pkg/util/name_validation.h"

namespace ksched::api {
namespace {

// strconv.ParseInt(s, 10, 64): optional sign, at least one digit, no
// overflow.
bool ParseInt64(std::string_view s, int64_t* out) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i == s.size()) return false;
  uint64_t magnitude = 0;
  const uint64_t limit = negative ? static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1
                                  : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (magnitude > (limit - digit) / 10) return false;
    magnitude = magnitude * 10 + digit;
  }
  *out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

const char* OperatorName(SelectorOperator op) {
  switch (op) {
    case SelectorOperator::kIn:
      return "in";
    case SelectorOperator::kNotIn:
      return "notin";
    case SelectorOperator::kEquals:
      return "=";
    case SelectorOperator::kDoubleEquals:
      return "==";
    case SelectorOperator::kNotEquals:
      return "!=";
    case SelectorOperator::kExists:
      return "exists";
    case SelectorOperator::kDoesNotExist:
      return "!";
    case SelectorOperator::kGreaterThan:
      return "gt";
    case SelectorOperator::kLessThan:
      return "lt";
  }
  return "?";
}

void SortByKey(std::vector<LabelRequirement>* reqs) {
  std::stable_sort(reqs->begin(), reqs->end(),
                   [](const LabelRequirement& a, const LabelRequirement& b) { return a.key() < b.key(); });
}

// ---------------------------------------------------------------- lexer

enum class Token {
  kEnd,
  kIdentifier,
  kDoesNotExist,  // !
  kEquals,        // =
  kDoubleEquals,  // ==
  kNotEquals,     // !=
  kGreaterThan,   // >
  kLessThan,      // <
  kIn,
  kNotIn,
  kOpenPar,
  kClosedPar,
  kComma,
};

struct Lexeme {
  Token token;
  std::string text;
};

bool IsSelectorWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsSpecialSymbol(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

std::optional<Token> SymbolToken(std::string_view s) {
  if (s == "!") return Token::kDoesNotExist;
  if (s == "!=") return Token::kNotEquals;
  if (s == "(") return Token::kOpenPar;
  if (s == ")") return Token::kClosedPar;
  if (s == ",") return Token::kComma;
  if (s == "=") return Token::kEquals;
  if (s == "==") return Token::kDoubleEquals;
  if (s == ">") return Token::kGreaterThan;
  if (s == "<") return Token::kLessThan;
  return std::nullopt;
}

// Splits the selector into lexemes. Like kube's lexer, special symbols are
// read greedily as the longest known symbol ("!=" rather than "!" then "="),
// and "in"/"notin" are keywords only where an operator may appear (the
// parser decides).
std::vector<Lexeme> Lex(std::string_view s) {
  std::vector<Lexeme> out;
  size_t i = 0;
  while (true) {
    while (i < s.size() && IsSelectorWhitespace(s[i])) ++i;
    if (i == s.size()) {
      out.push_back({Token::kEnd, ""});
      return out;
    }
    if (IsSpecialSymbol(s[i])) {
      // Every special symbol is a token alone, and the two-character ones
      // ("!=", "==") win when they apply.
      const size_t len = i + 1 < s.size() && SymbolToken(s.substr(i, 2)) ? 2 : 1;
      out.push_back({*SymbolToken(s.substr(i, len)), std::string(s.substr(i, len))});
      i += len;
      continue;
    }
    size_t j = i;
    while (j < s.size() && !IsSelectorWhitespace(s[j]) && !IsSpecialSymbol(s[j])) ++j;
    std::string word(s.substr(i, j - i));
    Token t = word == "in" ? Token::kIn : (word == "notin" ? Token::kNotIn : Token::kIdentifier);
    out.push_back({t, std::move(word)});
    i = j;
  }
}

// ---------------------------------------------------------------- parser

class Parser {
 public:
  explicit Parser(std::string_view s) : lexemes_(Lex(s)) {}

  util::StatusOr<std::vector<LabelRequirement>> ParseAll() {
    std::vector<LabelRequirement> reqs;
    while (true) {
      const Lexeme& next = PeekValue();
      if (next.token == Token::kEnd) return reqs;
      if (next.token != Token::kIdentifier && next.token != Token::kDoesNotExist) {
        return Error("found '" + next.text + "', expected: !, identifier, or 'end of string'");
      }
      auto r = ParseRequirement();
      if (!r.ok()) return r.status();
      reqs.push_back(std::move(r).value());
      const Lexeme after = ConsumeValue();
      if (after.token == Token::kEnd) return reqs;
      if (after.token != Token::kComma) return Error("found '" + after.text + "', expected: ',' or 'end of string'");
      const Lexeme& following = PeekValue();
      if (following.token != Token::kIdentifier && following.token != Token::kDoesNotExist) {
        return Error("found '" + following.text + "', expected: identifier after ','");
      }
    }
  }

 private:
  static util::Status Error(std::string msg) { return util::InvalidArgument("unable to parse requirement: " + msg); }

  // In value position the keywords are plain identifiers, so a key or a
  // value may be named "in".
  static Lexeme AsValue(Lexeme l) {
    if (l.token == Token::kIn || l.token == Token::kNotIn) l.token = Token::kIdentifier;
    return l;
  }
  const Lexeme& Peek() const { return lexemes_[pos_]; }
  Lexeme PeekValue() const { return AsValue(Peek()); }
  Lexeme Consume() {
    Lexeme l = lexemes_[pos_];
    if (l.token != Token::kEnd) ++pos_;
    return l;
  }
  Lexeme ConsumeValue() { return AsValue(Consume()); }

  util::StatusOr<LabelRequirement> ParseRequirement() {
    bool does_not_exist = false;
    Lexeme key = ConsumeValue();
    if (key.token == Token::kDoesNotExist) {
      does_not_exist = true;
      key = ConsumeValue();
    }
    if (key.token != Token::kIdentifier) return Error("found '" + key.text + "', expected: identifier");
    if (auto st = ValidateLabelKey(key.text); !st.ok()) return Error(st.message());
    const Token next = PeekValue().token;
    if (does_not_exist) {
      return Wrap(LabelRequirement::Create(key.text, SelectorOperator::kDoesNotExist, {}));
    }
    if (next == Token::kEnd || next == Token::kComma) {
      return Wrap(LabelRequirement::Create(key.text, SelectorOperator::kExists, {}));
    }
    const Lexeme op_lexeme = Consume();
    SelectorOperator op;
    switch (op_lexeme.token) {
      case Token::kIn:
        op = SelectorOperator::kIn;
        break;
      case Token::kNotIn:
        op = SelectorOperator::kNotIn;
        break;
      case Token::kEquals:
        op = SelectorOperator::kEquals;
        break;
      case Token::kDoubleEquals:
        op = SelectorOperator::kDoubleEquals;
        break;
      case Token::kNotEquals:
        op = SelectorOperator::kNotEquals;
        break;
      case Token::kGreaterThan:
        op = SelectorOperator::kGreaterThan;
        break;
      case Token::kLessThan:
        op = SelectorOperator::kLessThan;
        break;
      default:
        return Error("found '" + op_lexeme.text + "', expected: in, notin, =, ==, !=, >, <");
    }
    std::vector<std::string> values;
    if (op == SelectorOperator::kIn || op == SelectorOperator::kNotIn) {
      auto v = ParseValueSet();
      if (!v.ok()) return v.status();
      values = std::move(v).value();
    } else {
      auto v = ParseExactValue();
      if (!v.ok()) return v.status();
      values.push_back(std::move(v).value());
    }
    return Wrap(LabelRequirement::Create(key.text, op, std::move(values)));
  }

  static util::StatusOr<LabelRequirement> Wrap(util::StatusOr<LabelRequirement> r) {
    if (!r.ok()) return Error(r.status().message());
    return r;
  }

  // "(a,b)", "()" (one empty value, as kube reads it), "(,a)", "(a,,b)".
  util::StatusOr<std::vector<std::string>> ParseValueSet() {
    const Lexeme open = ConsumeValue();
    if (open.token != Token::kOpenPar) return Error("found '" + open.text + "' expected: '('");
    const Lexeme first = PeekValue();
    if (first.token == Token::kClosedPar) {
      Consume();
      return std::vector<std::string>{""};
    }
    if (first.token != Token::kIdentifier && first.token != Token::kComma) {
      return Error("found '" + first.text + "', expected: ',', ')' or identifier");
    }
    std::vector<std::string> values;
    while (true) {
      const Lexeme l = ConsumeValue();
      if (l.token == Token::kIdentifier) {
        values.push_back(l.text);
        const Lexeme after = PeekValue();
        if (after.token == Token::kComma) continue;  // consumed on the next turn
        if (after.token == Token::kClosedPar) {
          Consume();
          return values;
        }
        return Error("found '" + after.text + "', expected: ',' or ')'");
      }
      if (l.token == Token::kComma) {
        // Commas with nothing between them, or at either end, denote the
        // empty value: "(,a)", "(a,)", "(a,,b)".
        if (values.empty()) values.push_back("");
        const Token t = PeekValue().token;
        if (t == Token::kClosedPar) {
          Consume();
          values.push_back("");
          return values;
        }
        if (t == Token::kComma) {
          Consume();
          values.push_back("");
        }
        continue;
      }
      return Error("found '" + l.text + "', expected: ',', or identifier");
    }
  }

  util::StatusOr<std::string> ParseExactValue() {
    const Token t = PeekValue().token;
    if (t == Token::kEnd || t == Token::kComma) return std::string();
    const Lexeme l = ConsumeValue();
    if (l.token == Token::kIdentifier) return l.text;
    return Error("found '" + l.text + "', expected: identifier");
  }

  std::vector<Lexeme> lexemes_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------- fields

std::string EscapeFieldValue(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == ',' || c == '=') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

util::StatusOr<std::string> UnescapeFieldValue(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (c == '\\') {
      if (i + 1 == v.size()) return util::InvalidArgument("invalid field selector value: trailing backslash");
      const char next = v[++i];
      if (next != '\\' && next != ',' && next != '=') {
        return util::InvalidArgument(std::string("invalid escape sequence '\\") + next + "' in field selector value");
      }
      out.push_back(next);
      continue;
    }
    if (c == ',' || c == '=') {
      return util::InvalidArgument(std::string("invalid field selector value: unescaped '") + c + "'");
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- validation

util::Status ValidateLabelKey(std::string_view key) {
  auto bad = [&](const std::string& why) { return util::InvalidArgument("invalid label key \"" + std::string(key) + "\": " + why); };
  std::string_view name = key;
  const size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) return bad("prefix part must be non-empty");
    if (prefix.size() > 253 || !util::MatchesDnsSubdomain(prefix)) return bad("prefix part must be a lowercase RFC 1123 subdomain");
    if (name.find('/') != std::string_view::npos) return bad("a qualified name has at most one '/'");
  }
  if (name.empty()) return bad("name part must be non-empty");
  if (name.size() > 63) return bad("name part must be no more than 63 characters");
  if (!util::MatchesQualifiedNamePart(name)) {
    return bad("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  }
  return util::Status::Ok();
}

util::Status ValidateLabelValue(std::string_view value) {
  if (value.empty()) return util::Status::Ok();
  if (value.size() > 63) {
    return util::InvalidArgument("invalid label value \"" + std::string(value) + "\": must be no more than 63 characters");
  }
  if (!util::MatchesQualifiedNamePart(value)) {
    return util::InvalidArgument("invalid label value \"" + std::string(value) +
                                 "\": must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                                 "with an alphanumeric character");
  }
  return util::Status::Ok();
}

// ---------------------------------------------------------------- requirement

util::StatusOr<LabelRequirement> LabelRequirement::Create(std::string key, SelectorOperator op,
                                                          std::vector<std::string> values) {
  if (auto st = ValidateLabelKey(key); !st.ok()) return st;
  switch (op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      if (values.empty()) {
        return util::InvalidArgument("key \"" + key + "\": for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case SelectorOperator::kEquals:
    case SelectorOperator::kDoubleEquals:
    case SelectorOperator::kNotEquals:
      if (values.size() != 1) {
        return util::InvalidArgument("key \"" + key + "\": exact-match compatibility requires one single value");
      }
      break;
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      if (!values.empty()) {
        return util::InvalidArgument("key \"" + key + "\": values set must be empty for exists and does not exist");
      }
      break;
    case SelectorOperator::kGreaterThan:
    case SelectorOperator::kLessThan: {
      if (values.size() != 1) {
        return util::InvalidArgument("key \"" + key + "\": for 'Gt', 'Lt' operators, exactly one value is required");
      }
      int64_t ignored = 0;
      if (!ParseInt64(values[0], &ignored)) {
        return util::InvalidArgument("key \"" + key + "\": for 'Gt', 'Lt' operators, the value must be an integer");
      }
      break;
    }
  }
  for (const std::string& v : values) {
    if (auto st = ValidateLabelValue(v); !st.ok()) return util::InvalidArgument("key \"" + key + "\": " + st.message());
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return LabelRequirement(std::move(key), op, std::move(values));
}

bool LabelRequirement::Matches(const StringMap& labels) const {
  const auto it = labels.find(key_);
  const bool has = it != labels.end();
  auto has_value = [&] { return has && std::binary_search(values_.begin(), values_.end(), it->second); };
  switch (op_) {
    case SelectorOperator::kIn:
    case SelectorOperator::kEquals:
    case SelectorOperator::kDoubleEquals:
      return has_value();
    case SelectorOperator::kNotIn:
    case SelectorOperator::kNotEquals:
      return !has_value();
    case SelectorOperator::kExists:
      return has;
    case SelectorOperator::kDoesNotExist:
      return !has;
    case SelectorOperator::kGreaterThan:
    case SelectorOperator::kLessThan: {
      // A label that is not an integer never satisfies a comparison.
      int64_t label_value = 0;
      int64_t bound = 0;
      if (!has || values_.size() != 1 || !ParseInt64(it->second, &label_value) || !ParseInt64(values_[0], &bound)) {
        return false;
      }
      return op_ == SelectorOperator::kGreaterThan ? label_value > bound : label_value < bound;
    }
  }
  return false;
}

std::string LabelRequirement::ToString() const {
  switch (op_) {
    case SelectorOperator::kExists:
      return key_;
    case SelectorOperator::kDoesNotExist:
      return "!" + key_;
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn: {
      std::string out = key_ + " " + OperatorName(op_) + " (";
      for (size_t i = 0; i < values_.size(); ++i) {
        if (i > 0) out += ",";
        out += values_[i];
      }
      return out + ")";
    }
    case SelectorOperator::kGreaterThan:
      return key_ + ">" + values_[0];
    case SelectorOperator::kLessThan:
      return key_ + "<" + values_[0];
    case SelectorOperator::kEquals:
    case SelectorOperator::kDoubleEquals:
    case SelectorOperator::kNotEquals:
      return key_ + OperatorName(op_) + values_[0];
  }
  return key_;
}

// ---------------------------------------------------------------- selector

Selector Selector::Nothing() {
  Selector s;
  s.nothing_ = true;
  return s;
}

util::StatusOr<Selector> Selector::FromLabelSelector(const LabelSelector& selector) {
  Selector out;
  for (const auto& [key, value] : selector.match_labels) {
    auto r = LabelRequirement::Create(key, SelectorOperator::kEquals, {value});
    if (!r.ok()) return r.status();
    out.requirements_.push_back(std::move(r).value());
  }
  for (const LabelSelectorRequirement& expr : selector.match_expressions) {
    SelectorOperator op;
    if (expr.operator_ == "In") {
      op = SelectorOperator::kIn;
    } else if (expr.operator_ == "NotIn") {
      op = SelectorOperator::kNotIn;
    } else if (expr.operator_ == "Exists") {
      op = SelectorOperator::kExists;
    } else if (expr.operator_ == "DoesNotExist") {
      op = SelectorOperator::kDoesNotExist;
    } else {
      return util::InvalidArgument("\"" + expr.operator_ + "\" is not a valid label selector operator");
    }
    auto r = LabelRequirement::Create(expr.key, op, expr.values);
    if (!r.ok()) return r.status();
    out.requirements_.push_back(std::move(r).value());
  }
  SortByKey(&out.requirements_);
  return out;
}

util::StatusOr<Selector> Selector::FromLabelSelector(const std::optional<LabelSelector>& selector) {
  if (!selector) return Nothing();
  return FromLabelSelector(*selector);
}

Selector Selector::FromSet(const StringMap& set) {
  Selector out;
  for (const auto& [key, value] : set) {
    out.requirements_.push_back(LabelRequirement(key, SelectorOperator::kEquals, {value}));
  }
  return out;  // a std::map iterates in key order
}

util::StatusOr<Selector> Selector::Parse(std::string_view s) {
  Parser parser(s);
  auto reqs = parser.ParseAll();
  if (!reqs.ok()) return reqs.status();
  Selector out;
  out.requirements_ = std::move(reqs).value();
  SortByKey(&out.requirements_);
  return out;
}

bool Selector::Matches(const StringMap& labels) const {
  if (nothing_) return false;
  for (const LabelRequirement& r : requirements_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

Selector Selector::Add(LabelRequirement r) const {
  Selector out = *this;
  out.requirements_.push_back(std::move(r));
  SortByKey(&out.requirements_);
  return out;
}

std::string Selector::ToString() const {
  std::string out;
  if (nothing_) return out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ",";
    out += requirements_[i].ToString();
  }
  return out;
}

// ---------------------------------------------------------------- field selector

util::StatusOr<FieldSelector> FieldSelector::Parse(std::string_view s) {
  // Split on unescaped commas; a backslash keeps the next character in the
  // term for the value unescaping below.
  std::vector<std::string_view> terms;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == ',') {
      terms.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(s.substr(std::min(start, s.size())));

  FieldSelector out;
  for (std::string_view term : terms) {
    if (term.empty()) continue;
    // The first operator position wins; at one position "!=" and "==" are
    // tried before "=".
    size_t op_pos = std::string_view::npos;
    size_t op_len = 0;
    bool equals = true;
    for (size_t i = 0; i < term.size() && op_pos == std::string_view::npos; ++i) {
      const std::string_view rest = term.substr(i);
      if (rest.starts_with("!=")) {
        op_pos = i, op_len = 2, equals = false;
      } else if (rest.starts_with("==")) {
        op_pos = i, op_len = 2;
      } else if (rest.starts_with("=")) {
        op_pos = i, op_len = 1;
      }
    }
    if (op_pos == std::string_view::npos) {
      return util::InvalidArgument("invalid field selector '" + std::string(s) + "': can't understand '" +
                                   std::string(term) + "'");
    }
    auto value = UnescapeFieldValue(term.substr(op_pos + op_len));
    if (!value.ok()) {
      return util::InvalidArgument("invalid field selector '" + std::string(s) + "': " + value.status().message());
    }
    out.requirements_.push_back({std::string(term.substr(0, op_pos)), equals, std::move(value).value()});
  }
  return out;
}

bool FieldSelector::Matches(const StringMap& fields) const {
  for (const FieldRequirement& r : requirements_) {
    const auto it = fields.find(r.field);
    const std::string_view actual = it == fields.end() ? std::string_view() : std::string_view(it->second);
    if ((actual == r.value) != r.equals) return false;
  }
  return true;
}

std::optional<std::string> FieldSelector::RequiresExactMatch(std::string_view field) const {
  for (const FieldRequirement& r : requirements_) {
    if (r.equals && r.field == field) return r.value;
  }
  return std::nullopt;
}

std::string FieldSelector::ToString() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ",";
    out += requirements_[i].field + (requirements_[i].equals ? "=" : "!=") + EscapeFieldValue(requirements_[i].value);
  }
  return out;
}

}  // namespace ksched::api
