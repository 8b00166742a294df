#include "pkg/cel/regex_syntax.h"

#include <algorithm>
#include <span>
#include <string>

#include "pkg/cel/unicode_tables.h"
#include "pkg/cel/utf8.h"

namespace ksched::cel::regex_syntax {
namespace {

constexpr int kMaxNesting = 200;
constexpr int kMaxRepeat = 1000;

struct Flags {
  bool fold = false, multi_line = false, dot_nl = false, ungreedy = false;
};

bool IsWord(uint32_t r) { return IsWordChar(r); }

}  // namespace

bool IsWordChar(uint32_t r) {
  return (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r == '_';
}

namespace {

Ranges Normalize(Ranges r) {
  std::sort(r.begin(), r.end());
  Ranges out;
  for (const auto& [lo, hi] : r) {
    if (!out.empty() && lo <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, hi);
    } else {
      out.emplace_back(lo, hi);
    }
  }
  return out;
}

Ranges Negate(const Ranges& r) {
  Ranges out;
  uint32_t next = 0;
  for (const auto& [lo, hi] : r) {
    if (lo > next) out.emplace_back(next, lo - 1);
    next = hi + 1;
  }
  if (next <= 0x10FFFF) out.emplace_back(next, 0x10FFFF);
  return out;
}

// unicode.SimpleFold: the next code point of r's case-folding orbit (r
// itself when it has none). O(log runs).
uint32_t SimpleFold(uint32_t r) {
  auto runs = unicode_tables::FoldRuns();
  auto it = std::upper_bound(runs.begin(), runs.end(), r,
                             [](uint32_t c, const unicode_tables::FoldRun& run) { return c < run.lo; });
  if (it == runs.begin() || std::prev(it)->hi < r) return r;
  const auto& run = *std::prev(it);
  if (!run.alternate) return static_cast<uint32_t>(static_cast<int64_t>(r) + run.delta);
  return (r - run.lo) % 2 == 0 ? r + 1 : r - 1;
}

// Appends [lo, hi] and, for (?i), the whole case-folding orbit of each of
// its code points, as Go folds a class range. Visits only the code points
// that fold (a few thousand at most), however wide the range.
void AddFoldedRange(Ranges* out, uint32_t lo, uint32_t hi) {
  out->emplace_back(lo, hi);
  auto runs = unicode_tables::FoldRuns();
  // A range holding every code point that folds holds each orbit whole.
  if (runs.empty() || (lo <= runs.front().lo && hi >= runs.back().hi)) return;
  auto from = std::lower_bound(runs.begin(), runs.end(), lo,
                               [](const unicode_tables::FoldRun& run, uint32_t c) { return run.hi < c; });
  for (const auto& run : std::span(from, runs.end())) {
    if (run.lo > hi) break;
    for (uint32_t c = std::max(lo, run.lo); c <= std::min(hi, run.hi); ++c) {
      for (uint32_t f = SimpleFold(c); f != c; f = SimpleFold(f)) out->emplace_back(f, f);
    }
  }
}

// A named class (Perl, POSIX or Unicode) as Go adds it to a class: folded
// first under (?i), then complemented when negated, so (?i)\W excludes the
// Kelvin sign that (?i)\w includes.
Ranges NamedClass(const Ranges& cls, bool fold, bool negated) {
  Ranges r;
  for (const auto& [lo, hi] : cls) {
    if (fold) {
      AddFoldedRange(&r, lo, hi);
    } else {
      r.emplace_back(lo, hi);
    }
  }
  r = Normalize(std::move(r));
  return negated ? Negate(r) : r;
}

// Go's canonical form of a \p name: the separators _ - and space dropped,
// the first letter upper case and the others lower case, byte by byte.
std::string CanonicalName(std::string_view name) {
  std::string out;
  bool first = true;
  for (char c : name) {
    if (c == '_' || c == '-' || c == ' ') continue;
    if (first) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      first = false;
    } else if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
    out.push_back(c);
  }
  return out;
}

const unicode_tables::Class* FindUnicodeClass(std::string_view name) {
  auto classes = unicode_tables::Classes();
  std::string key = CanonicalName(name);
  auto it = std::lower_bound(classes.begin(), classes.end(), key,
                             [](const unicode_tables::Class& c, const std::string& k) { return c.name < k; });
  return it != classes.end() && it->name == key ? &*it : nullptr;
}

void AddTable(Ranges* out, std::span<const unicode_tables::Range> table) {
  for (const auto& r : table) {
    if (r.stride == 1) {
      out->emplace_back(r.lo, r.hi);
    } else {
      for (uint32_t c = r.lo; c <= r.hi; c += r.stride) out->emplace_back(c, c);
    }
  }
}

const Ranges& Perl(char c) {
  static const Ranges d = {{'0', '9'}};
  static const Ranges s = {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}};
  static const Ranges w = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
  return c == 'd' ? d : (c == 's' ? s : w);
}

bool Posix(std::string_view name, Ranges* out) {
  static const std::pair<std::string_view, Ranges> kClasses[] = {
      {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
      {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
      {"ascii", {{0, 0x7F}}},
      {"blank", {{'\t', '\t'}, {' ', ' '}}},
      {"cntrl", {{0, 0x1F}, {0x7F, 0x7F}}},
      {"digit", {{'0', '9'}}},
      {"graph", {{'!', '~'}}},
      {"lower", {{'a', 'z'}}},
      {"print", {{' ', '~'}}},
      {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}},
      {"space", {{'\t', '\r'}, {' ', ' '}}},
      {"upper", {{'A', 'Z'}}},
      {"word", {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}},
      {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
  };
  for (const auto& [n, r] : kClasses) {
    if (n == name) {
      *out = r;
      return true;
    }
  }
  return false;
}


class RegexParser {
 public:
  explicit RegexParser(std::string_view pattern) : pattern_(pattern), r_(DecodeRunes(pattern)) {}

  util::StatusOr<NodePtr> Run() {
    Flags flags;
    NodePtr n = Alt(&flags);
    if (!err_.ok()) return err_;
    if (i_ < r_.size()) return Error("unexpected )");
    return n;
  }

 private:
  util::Status Error(const std::string& what) {
    return util::InvalidArgument("error parsing regexp: " + what + ": `" + std::string(pattern_) + "`");
  }
  void Fail(const std::string& what) {
    if (err_.ok()) err_ = Error(what);
  }
  // An error quoting part of the pattern, as Go quotes the offending \p.
  void FailAt(const std::string& what, size_t begin, size_t end) {
    if (err_.ok()) {
      err_ = util::InvalidArgument("error parsing regexp: " + what + ": `" + EncodeRunes(r_, begin, end) + "`");
    }
  }
  bool At(uint32_t c, size_t ahead = 0) const { return i_ + ahead < r_.size() && r_[i_ + ahead] == c; }

  NodePtr Make(Node::Kind k) {
    auto n = std::make_unique<Node>();
    n->kind = k;
    return n;
  }

  NodePtr Alt(Flags* flags) {
    if (++depth_ > kMaxNesting) Fail("expression nests too deeply");
    NodePtr alt = Make(Node::Kind::kAlt);
    alt->kids.push_back(Concat(flags));
    while (err_.ok() && At('|')) {
      ++i_;
      alt->kids.push_back(Concat(flags));
    }
    --depth_;
    if (alt->kids.size() == 1) return std::move(alt->kids[0]);
    return alt;
  }

  NodePtr Concat(Flags* flags) {
    NodePtr cat = Make(Node::Kind::kConcat);
    while (err_.ok() && i_ < r_.size() && !At('|') && !At(')')) {
      const bool quote = At('\\') && At('Q', 1);
      NodePtr atom = Atom(flags);
      if (!err_.ok()) break;
      // A repetition applies to what was parsed last, as on Go's parse
      // stack: the last code point of \Q...\E, or across a flag group,
      // which adds nothing (a(?i)* repeats a).
      if (quote) {
        for (auto& kid : atom->kids) cat->kids.push_back(std::move(kid));
      } else if (atom) {
        cat->kids.push_back(std::move(atom));
      }
      if (!IsRepeatOp()) continue;
      if (cat->kids.empty()) {
        Fail("missing argument to repetition operator");
        break;
      }
      cat->kids.back() = Repeats(std::move(cat->kids.back()), *flags);
    }
    return cat;
  }

  // {n}, {n,} or {n,m} at i_: sets *min/*max and the length; false if the
  // text is not a repetition (then '{' is a literal).
  bool RepeatSpec(int* min, int* max, size_t* len) {
    size_t j = i_ + 1;
    auto number = [&](int* out) {
      size_t start = j;
      long v = 0;
      while (j < r_.size() && r_[j] >= '0' && r_[j] <= '9') {
        v = std::min<long>(v * 10 + (r_[j] - '0'), 100000);
        ++j;
      }
      *out = static_cast<int>(v);
      return j > start;
    };
    if (!number(min)) return false;
    *max = *min;
    if (j < r_.size() && r_[j] == ',') {
      ++j;
      if (!number(max)) *max = -1;
    }
    if (j >= r_.size() || r_[j] != '}') return false;
    *len = j + 1 - i_;
    return true;
  }

  bool IsRepeatOp() {
    if (At('*') || At('+') || At('?')) return true;
    int a = 0, b = 0;
    size_t len = 0;
    return At('{') && RepeatSpec(&a, &b, &len);
  }

  NodePtr Repeats(NodePtr atom, const Flags& flags) {
    if (!IsRepeatOp()) return atom;
    int min = 0, max = -1;
    if (At('*')) {
      ++i_;
    } else if (At('+')) {
      min = 1;
      ++i_;
    } else if (At('?')) {
      max = 1;
      ++i_;
    } else {
      size_t len = 0;
      RepeatSpec(&min, &max, &len);
      i_ += len;
      if (min > kMaxRepeat || max > kMaxRepeat || (max >= 0 && max < min)) {
        Fail("invalid repeat count");
        return atom;
      }
    }
    // Lazy (?) prefers fewer repetitions; the U flag swaps the meanings.
    bool lazy = flags.ungreedy;
    if (At('?')) {
      ++i_;
      lazy = !lazy;
    }
    NodePtr rep = Make(Node::Kind::kRepeat);
    rep->min = min;
    rep->max = max;
    rep->lazy = lazy;
    rep->kids.push_back(std::move(atom));
    // Go refuses nested counted repetitions that would copy the innermost
    // thing more than 1000 times ((a{100}){20}); it checks only when this
    // count reaches 2, which bounds the walks (counts of 0 and 1 cannot
    // nest deeply enough to matter).
    if ((min >= 2 || max >= 2) && !RepeatFits(*rep, kMaxRepeat)) {
      Fail("invalid repeat count");
      return rep;
    }
    if (IsRepeatOp()) {
      Fail("invalid nested repetition operator");
      return rep;
    }
    return rep;
  }

  // Whether n's repetitions, nested, copy nothing more than n times: each
  // repetition divides the budget by its maximum (its minimum when
  // unbounded); a maximum of 0 holds nothing. *, + and ? divide by 0 or 1
  // as {0,}, {1,} and {0,1} would, so they need no case of their own.
  static bool RepeatFits(const Node& node, int n) {
    if (node.kind == Node::Kind::kRepeat) {
      int m = node.max;
      if (m == 0) return true;
      if (m < 0) m = node.min;
      if (m > n) return false;
      if (m > 0) n /= m;
    }
    for (const auto& kid : node.kids) {
      if (!RepeatFits(*kid, n)) return false;
    }
    return true;
  }

  NodePtr Chars(Ranges r) {
    NodePtr n = Make(Node::Kind::kChars);
    n->ranges = Normalize(std::move(r));
    return n;
  }

  // A literal code point; under (?i) any code point of its folding orbit.
  NodePtr Literal(uint32_t c, const Flags& flags) {
    Ranges r;
    if (flags.fold) {
      AddFoldedRange(&r, c, c);
    } else {
      r.emplace_back(c, c);
    }
    return Chars(std::move(r));
  }

  // \p{Name}, \pN, \P{Name} or \p{^Name} at i_ (on the p or P, after the
  // backslash): the class as Go resolves the name (unicode_tables.h). Under
  // (?i) the class gains Go's fold table for it, complemented after that.
  // False, with Go's error quoting the \p text, for a name Go does not know.
  bool UnicodeClass(const Flags& flags, Ranges* out) {
    const size_t start = i_ - 1;
    bool negated = r_[i_++] == 'P';
    std::string name;
    if (At('{')) {
      size_t close = i_;
      while (close < r_.size() && r_[close] != '}') ++close;
      if (close == r_.size()) {
        FailAt("invalid character class range", start, r_.size());
        return false;
      }
      name = EncodeRunes(r_, i_ + 1, close);
      i_ = close + 1;
    } else if (i_ < r_.size()) {
      name = EncodeRunes(r_, i_, i_ + 1);
      ++i_;
    }
    if (!name.empty() && name[0] == '^') {
      negated = !negated;
      name.erase(0, 1);
    }
    const unicode_tables::Class* cls = FindUnicodeClass(name);
    if (cls == nullptr) {
      FailAt("invalid character class range", start, i_);
      return false;
    }
    if (cls->negate) negated = !negated;
    Ranges r;
    AddTable(&r, cls->table);
    if (flags.fold) AddTable(&r, cls->fold);
    r = Normalize(std::move(r));
    *out = negated ? Negate(r) : std::move(r);
    return true;
  }

  NodePtr Assert(int a) {
    NodePtr n = Make(Node::Kind::kAssert);
    n->assertion = a;
    return n;
  }

  NodePtr Atom(Flags* flags) {
    uint32_t c = r_[i_];
    if (c == '*' || c == '+' || c == '?' || (c == '{' && IsRepeatOp())) {
      Fail("missing argument to repetition operator");
      return nullptr;
    }
    if (c == '(') return Group(flags);
    if (c == '[') return Class(*flags);
    ++i_;
    switch (c) {
      case '.': {
        NodePtr n = Make(Node::Kind::kAny);
        n->dot_nl = flags->dot_nl;
        return n;
      }
      case '^': return Assert(flags->multi_line ? kBeginLine : kBeginText);
      case '$': return Assert(flags->multi_line ? kEndLine : kEndText);
      case '\\': return Escape(*flags);
      default:
        return Literal(c, *flags);
    }
  }

  NodePtr Group(Flags* flags) {
    ++i_;  // (
    Flags inner = *flags;
    if (At('?')) {
      ++i_;
      if (At('P') && At('<', 1)) ++i_;
      if (At('<')) {
        ++i_;
        size_t start = i_;
        while (i_ < r_.size() && IsWord(r_[i_])) ++i_;
        if (i_ == start || !At('>')) {
          Fail("invalid named capture");
          return nullptr;
        }
        ++i_;
      } else {
        // Flags: (?i) for the rest of this group, (?i:re) for re.
        bool negated = false, any = false;
        while (i_ < r_.size() && !At(')') && !At(':')) {
          uint32_t f = r_[i_++];
          if (f == '-' && !negated) {
            negated = true;
            continue;
          }
          any = true;
          if (f == 'i') {
            inner.fold = !negated;
          } else if (f == 'm') {
            inner.multi_line = !negated;
          } else if (f == 's') {
            inner.dot_nl = !negated;
          } else if (f == 'U') {
            inner.ungreedy = !negated;
          } else {
            Fail("invalid or unsupported Perl syntax");
            return nullptr;
          }
        }
        if (i_ >= r_.size() || (negated && !any)) {
          Fail("invalid or unsupported Perl syntax");
          return nullptr;
        }
        if (At(')')) {
          ++i_;
          *flags = inner;
          return nullptr;
        }
        ++i_;  // :
      }
    }
    NodePtr n = Alt(&inner);
    if (!err_.ok()) return n;
    if (!At(')')) {
      Fail("missing closing )");
      return n;
    }
    ++i_;
    return n;
  }

  // An escape after the backslash: a rune, or (perl != 0) a Perl class.
  bool EscapeRune(uint32_t* out, char* perl, bool* negated) {
    if (i_ >= r_.size()) {
      Fail("trailing backslash at end of expression");
      return false;
    }
    uint32_t c = r_[i_++];
    *perl = 0;
    switch (c) {
      case 'a': *out = 7; return true;
      case 'f': *out = '\f'; return true;
      case 't': *out = '\t'; return true;
      case 'n': *out = '\n'; return true;
      case 'r': *out = '\r'; return true;
      case 'v': *out = '\v'; return true;
      case 'd': case 's': case 'w': case 'D': case 'S': case 'W':
        *perl = static_cast<char>(c | 0x20);
        *negated = c < 'a';
        return true;
      case 'x': {
        uint32_t v = 0;
        auto hex = [](uint32_t h) { return (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'); };
        auto val = [](uint32_t h) { return h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10; };
        if (At('{')) {
          ++i_;
          size_t start = i_;
          while (i_ < r_.size() && hex(r_[i_])) {
            v = v * 16 + val(r_[i_++]);
            if (v > 0x10FFFF) break;
          }
          if (i_ == start || !At('}') || v > 0x10FFFF) break;
          ++i_;
          *out = v;
          return true;
        }
        if (i_ + 1 < r_.size() && hex(r_[i_]) && hex(r_[i_ + 1])) {
          *out = val(r_[i_]) * 16 + val(r_[i_ + 1]);
          i_ += 2;
          return true;
        }
        break;
      }
      case '1': case '2': case '3': case '4': case '5': case '6': case '7':
        // A single non-zero digit would be a backreference.
        if (i_ >= r_.size() || r_[i_] < '0' || r_[i_] > '7') break;
        [[fallthrough]];
      case '0': {
        uint32_t v = c - '0';
        for (int k = 1; k < 3 && i_ < r_.size() && r_[i_] >= '0' && r_[i_] <= '7'; ++k) v = v * 8 + (r_[i_++] - '0');
        *out = v;
        return true;
      }
      default:
        if (c < 0x80 && !IsWord(c)) {
          *out = c;
          return true;
        }
        break;
    }
    Fail("invalid escape sequence");
    return false;
  }

  NodePtr Escape(const Flags& flags) {
    if (At('A')) { ++i_; return Assert(kBeginText); }
    if (At('z')) { ++i_; return Assert(kEndText); }
    if (At('b')) { ++i_; return Assert(kWordBoundary); }
    if (At('B')) { ++i_; return Assert(kNotWordBoundary); }
    if (At('Q')) {
      // \Q...\E: literal text up to \E or the end.
      ++i_;
      NodePtr cat = Make(Node::Kind::kConcat);
      while (i_ < r_.size() && !(At('\\') && At('E', 1))) {
        cat->kids.push_back(Literal(r_[i_++], flags));
      }
      if (i_ < r_.size()) i_ += 2;
      return cat;
    }
    if (At('p') || At('P')) {
      Ranges rs;
      if (!UnicodeClass(flags, &rs)) return nullptr;
      return Chars(std::move(rs));
    }
    uint32_t r = 0;
    char perl = 0;
    bool negated = false;
    if (!EscapeRune(&r, &perl, &negated)) return nullptr;
    if (perl) return Chars(NamedClass(Perl(perl), flags.fold, negated));
    return Literal(r, flags);
  }

  // [...] and [^...]. Each member is folded by itself under (?i) (a named
  // class as NamedClass does it), the whole complemented last, as Go builds it.
  NodePtr Class(const Flags& flags) {
    ++i_;  // [
    bool negate = false;
    if (At('^')) {
      negate = true;
      ++i_;
    }
    Ranges rs;
    bool first = true;
    while (err_.ok()) {
      if (i_ >= r_.size()) {
        Fail("missing closing ]");
        return nullptr;
      }
      if (At(']') && !first) {
        ++i_;
        break;
      }
      first = false;
      if (At('[') && At(':', 1)) {
        size_t close = i_ + 2;
        while (close + 1 < r_.size() && !(r_[close] == ':' && r_[close + 1] == ']')) ++close;
        if (close + 1 < r_.size()) {
          std::string name;
          bool neg = false;
          for (size_t k = i_ + 2; k < close; ++k) name.push_back(static_cast<char>(r_[k]));
          if (!name.empty() && name[0] == '^') {
            neg = true;
            name.erase(0, 1);
          }
          Ranges pr;
          if (!Posix(name, &pr)) {
            Fail("invalid character class range");
            return nullptr;
          }
          Append(&rs, NamedClass(pr, flags.fold, neg));
          i_ = close + 2;
          continue;
        }
      }
      if (At('\\') && (At('p', 1) || At('P', 1))) {
        ++i_;
        Ranges pr;
        if (!UnicodeClass(flags, &pr)) return nullptr;
        Append(&rs, pr);
        continue;
      }
      uint32_t lo = 0;
      if (!ClassChar(&lo, &rs, flags)) {
        if (!err_.ok()) return nullptr;
        continue;  // a Perl class was added
      }
      uint32_t hi = lo;
      if (At('-') && i_ + 1 < r_.size() && r_[i_ + 1] != ']') {
        ++i_;
        if (!ClassChar(&hi, nullptr, flags)) {
          Fail("invalid character class range");
          return nullptr;
        }
        if (hi < lo) {
          Fail("invalid character class range");
          return nullptr;
        }
      }
      if (flags.fold) {
        AddFoldedRange(&rs, lo, hi);
      } else {
        rs.emplace_back(lo, hi);
      }
    }
    rs = Normalize(std::move(rs));
    NodePtr n = Make(Node::Kind::kChars);
    n->ranges = negate ? Negate(rs) : rs;
    return n;
  }

  static void Append(Ranges* to, const Ranges& from) { to->insert(to->end(), from.begin(), from.end()); }

  // One class member: a rune (true), or a Perl class added to *perl_out
  // (false, with no error).
  bool ClassChar(uint32_t* out, Ranges* perl_out, const Flags& flags) {
    uint32_t c = r_[i_++];
    if (c != '\\') {
      *out = c;
      return true;
    }
    char perl = 0;
    bool negated = false;
    if (!EscapeRune(out, &perl, &negated)) return false;
    if (perl) {
      if (!perl_out) {
        Fail("invalid character class range");
        return false;
      }
      Append(perl_out, NamedClass(Perl(perl), flags.fold, negated));
      return false;
    }
    return true;
  }

  std::string_view pattern_;
  std::vector<uint32_t> r_;
  size_t i_ = 0;
  int depth_ = 0;
  util::Status err_;
};


}  // namespace

util::StatusOr<NodePtr> Parse(std::string_view pattern) { return RegexParser(pattern).Run(); }

}  // namespace ksched::cel::regex_syntax
