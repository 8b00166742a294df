// Lexer: splits a CEL expression into tokens (the CEL language definition's
// lexical grammar: identifiers, backtick-quoted names, int/uint/double
// literals, quoted, raw and triple-quoted strings with CEL's escapes, bytes
// literals, operators).
//
// Tokenize reads the whole expression up front; an invalid token is an error
// naming its 1-based line:column. O(length).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::cel {

struct Token {
  // kBacktickIdent: a backtick-quoted name (`a-b`), which only a field
  // selection or a message field may use (parser.cc); its text is the name
  // between the backticks.
  enum class Kind { kEnd, kIdent, kBacktickIdent, kInt, kUint, kDouble, kString, kBytes, kPunct };
  Kind kind = Kind::kEnd;
  size_t pos = 0;
  std::string text;   // identifier or name, punctuation, decoded string, or a number's digits
  uint64_t u = 0;     // kInt (magnitude, sign applied by the parser), kUint
  double d = 0;       // kDouble
};

util::StatusOr<std::vector<Token>> Tokenize(std::string_view expr);

// "line:column" (1-based) of a byte offset, for error messages.
std::string Location(std::string_view expr, size_t pos);

}  // namespace ksched::cel
