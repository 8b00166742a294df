// CompileOptions: the parts of DRA's CEL environment that differ between the
// Kubernetes releases ksched emulates, and the cost limit. The scheduler
// sets them from its feature gates (framework/feature_gates.cc), one
// switch per field.
//
// Thread-safety: a plain value type.
#pragma once

#include <cstdint>

namespace ksched::cel {

struct CompileOptions {
  // The runtime cost limit per evaluation.
  uint64_t cost_limit = 1'000'000;
  // The strings extension as cel-go 0.29 (Kubernetes 1.37) has it:
  // indexOf/lastIndexOf with an empty substring check a negative offset
  // (an error) and clamp one past the end to the length; before, they
  // returned the offset as given.
  bool checked_empty_substring_offsets = false;
  // `x.includes(y)` (1.36): declared by DRA's environment for list-typed
  // attributes; true when x is a list holding y or x equals y.
  bool includes = false;
  // 1.36's DRA-local includes() refuses lists longer than 48 elements
  // (ResourceSliceMaxAttributeValuesPerDevice); 1.37's, from Kubernetes'
  // lists library, has no bound.
  bool includes_unbounded = false;
  // cel-go 0.29 (1.37): lists.range(n) fails for n < 0 and n > 1,000,000;
  // before, a negative n gave an empty list and there was no bound.
  bool bounded_lists_range = false;
  // 1.37 declares attribute values as `dyn`, not `any` (type.h): list and
  // map literals mixing an attribute with another type no longer compile,
  // and a selector may evaluate to dyn.
  bool dyn_attributes = false;
  // cel-go before 0.29 (1.34-1.36) declares duration(int), which always
  // fails at run time ("type conversion error from 'int' to
  // 'google.protobuf.Duration'"); 0.29 (1.37) does not declare it.
  bool duration_of_int = false;
  // 1.37's quantity library deep-copies the receiver of add() and sub();
  // before, the result shared the receiver's decimal, so a quantity in
  // decimal form changed with every add or sub on it.
  bool quantity_deep_copy = false;
  // Kubernetes 1.34 and 1.35 (Go 1.24 and 1.25 semantics) read a URL host's
  // port after its last colon whatever the scheme, so url() accepts
  // "http://a:b:80/"; from 1.36 (Go 1.26's default) an http or https host's
  // port starts at its first colon. Inverted, so that the default is 1.37's.
  bool url_lenient_colons = false;
  // Kubernetes 1.34's apimachinery words the format library's
  // qualifiedName and labelValue messages as its util/validation did ("a
  // qualified name ...", lengths in "characters"); from 1.35 they are the
  // content package's ("a valid label key ...", lengths in "bytes").
  // Inverted, so that the default is 1.37's.
  bool legacy_label_key_messages = false;
  // What a leading-dot name (`.x`, `.net.IP`) whose first identifier is also
  // a comprehension or cel.bind variable in scope names. cel-go 0.26 (1.35,
  // 1.36) finds the variable for a single identifier and the type for a
  // qualified type name; cel-go 0.29 (1.37) looks past the variable to the
  // root scope (the device; a type name there fails as an undefined type).
  // A leading-dot name no variable shadows means the same at every release.
  // Inverted, so that the default is 1.37's.
  bool leading_dot_sees_locals = false;
  // cel-go 0.29 (1.37) accepts a backtick-quoted name (`a-b`, `a.b`) in a
  // field selection (`m.`a-b``, `m.?`a-b``, `has(m.`a-b`)`) and as a
  // message field (`T{`f`: v}`); cel-go 0.26 (1.35, 1.36) parses it and
  // refuses it ("unsupported syntax: '`'"). Inverted, so that the default
  // is 1.37's.
  bool refuse_backtick_identifiers = false;
  // cel-go 0.26 (1.35, 1.36) evaluates `x.or(y)` and `x.orValue(y)` of an x
  // that is not an optional (a dyn or null receiver) to x itself; cel-go
  // 0.29 (1.37) fails them ("no such overload"). Inverted, so that the
  // default is 1.37's.
  bool or_passes_non_optionals = false;
  // A selector may evaluate to wrapper(bool) (google.protobuf.BoolValue{})
  // at 1.37, whose DRA compiler compares the result type with bool as cel-go's
  // IsExactType does; 1.35 and 1.36 compared it by identity and refused it.
  // Inverted, so that the default is 1.37's.
  bool refuse_wrapper_bool_results = false;

  bool operator==(const CompileOptions&) const = default;
};

}  // namespace ksched::cel
