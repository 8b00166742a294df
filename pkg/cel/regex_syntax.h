// The syntax tree of a regular expression (regex.h) and its parser: Go's
// regexp syntax with the Perl flags, into nodes the compiler turns into a
// Thompson NFA. Internal to pkg/cel.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::cel::regex_syntax {

// Sorted, non-overlapping code point ranges.
using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

enum Assertion { kBeginText, kEndText, kBeginLine, kEndLine, kWordBoundary, kNotWordBoundary };

struct Node {
  enum class Kind { kEmpty, kChars, kAny, kConcat, kAlt, kRepeat, kAssert };
  Kind kind = Kind::kEmpty;
  Ranges ranges;         // kChars
  bool dot_nl = false;   // kAny: also matches a newline
  int min = 0, max = 0;  // kRepeat; max -1 = unbounded
  bool lazy = false;     // kRepeat: prefers fewer repetitions
  int assertion = 0;     // kAssert
  std::vector<std::unique_ptr<Node>> kids;
};
using NodePtr = std::unique_ptr<Node>;

// Errors read like Go's ("error parsing regexp: missing closing ): `(a`",
// "invalid character class range: `\p{Foo}`"). Unicode classes (\p, \P)
// and (?i) use Go's tables (unicode_tables.h). O(pattern) apart from the
// classes: a Unicode class costs O(its ranges), (?i) on a class range
// O(its ranges + the code points in it that fold), each with a log factor.
util::StatusOr<NodePtr> Parse(std::string_view pattern);

// [0-9A-Za-z_], what \b and \w consider a word character.
bool IsWordChar(uint32_t r);

}  // namespace ksched::cel::regex_syntax
