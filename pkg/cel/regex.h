// Regex: the regular expressions of CEL's matches(), with Go's regexp (RE2)
// syntax and semantics for a boolean search: literals and escapes, ".",
// classes ([a-z], [^...], [[:alpha:]], \d \w \s and their negations),
// anchors (^ $ \A \z \b \B), groups ((...), (?:...), (?P<name>...)), the
// flags i, m, s and U, alternation and the repetitions * + ? {n} {n,}
// {n,m} (greedy or lazy), \Q...\E, Unicode classes (\pL, \p{Greek},
// \P{Lu}, \p{^L}, in and out of brackets) and (?i) with Go's simple case
// folding, from Go's unicode tables (unicode_tables.h).
//
// Matching runs a Thompson NFA over the code points: time O(pattern x
// text), no backtracking, no recursion over the text, so no input can make
// it slow or exhaust the stack.
//
// Thread-safety: an immutable value type after Compile.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::cel {

class Regex {
 public:
  // Errors read like Go's: "error parsing regexp: missing closing ): `(a`".
  static util::StatusOr<Regex> Compile(std::string_view pattern);

  // Whether the pattern matches anywhere in text (Go's MatchString).
  // O(text code points x size()).
  bool Search(std::string_view text) const;
  // The same within a budget of thread steps (one per live NFA thread per
  // code point, plus one per code point): nullopt once *steps would exceed
  // max_steps. *steps receives the steps taken.
  std::optional<bool> Search(std::string_view text, uint64_t max_steps, uint64_t* steps) const;

  // The leftmost-first match (Go's FindStringIndex) of the text `runes`,
  // searching from code point `from` (assertions see the text before it):
  // its [begin, end) in code points, or {SIZE_MAX, SIZE_MAX} when there is
  // none; nullopt once *steps would exceed max_steps (counted as Search
  // counts them, added to *steps). O((runes - from) x size()).
  std::optional<std::pair<size_t, size_t>> Find(const std::vector<uint32_t>& runes, size_t from, uint64_t max_steps,
                                                uint64_t* steps) const;

  using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;  // sorted, disjoint
  struct Inst {
    enum class Op { kRanges, kAny, kAnyNotNL, kSplit, kJmp, kMatch, kAssert };
    Op op = Op::kMatch;
    std::shared_ptr<const Ranges> ranges;               // kRanges: never null
    int x = 0, y = 0;                                   // kSplit targets, kJmp target
    int assertion = 0;                                  // kAssert: a regex_syntax::Assertion
  };

 private:
  std::vector<Inst> prog_;
};

}  // namespace ksched::cel
