// The Unicode data of Go's regexp/syntax that ksched's regular expressions
// (regex_syntax.cc) need: the classes \p{Name} can name and unicode.
// SimpleFold, for (?i). unicode_tables.cc is generated from the Go
// toolchain's unicode package by test/k8s/cmd/gen-unicode-tables (see its
// header for the Go and Unicode versions and how to regenerate); the
// generator checks every table against regexp/syntax before writing it.
// Internal to pkg/cel.
//
// Thread-safety: constant data and pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ksched::cel::unicode_tables {

// unicode.Version of the tables, e.g. "15.0.0".
extern const char kUnicodeVersion[];

// Code points lo, lo+stride, ..., up to hi (as in a unicode.RangeTable).
struct Range {
  uint32_t lo, hi, stride;
};

// A class regexp/syntax resolves a \p name to.
struct Class {
  // The name after regexp/syntax canonicalizes the spelled one: separators
  // _ - and space dropped, first letter upper case, the rest lower case
  // ("Greek", "Lu", "Letter", "Any"). Names whose Go table key is not in
  // this form (Old_Italic) are not here, as Go does not find them either.
  std::string_view name;
  std::span<const Range> table;  // sorted by lo
  // The code points outside `table` that (?i) adds: Go's FoldCategory or
  // FoldScript entry, empty when Go has none (then (?i) adds nothing).
  std::span<const Range> fold;
  bool negate;  // the class is everything but table (and fold): Assigned
};

// Every class, sorted by name (byte order): binary-searchable.
std::span<const Class> Classes();

// unicode.SimpleFold as runs: for lo <= r <= hi, SimpleFold(r) is r+delta,
// or, when alternate, r+1 if r-lo is even and r-1 if odd. Sorted by lo,
// disjoint; code points in no run fold to themselves.
struct FoldRun {
  uint32_t lo, hi;
  int32_t delta;
  bool alternate;
};
std::span<const FoldRun> FoldRuns();

}  // namespace ksched::cel::unicode_tables
