// CelCompileOptions: DRA's CEL environment at the emulated minor, from the
// feature gates' CEL switches (one field each). The DynamicResources plugin
// and the cel_eval comparison tool compile selectors with it, so both
// follow the same table.
//
// Thread-safety: a pure function.
#pragma once

#include "pkg/cel/options.h"
#include "pkg/scheduler/framework/feature_gates.h"

namespace ksched::scheduler::framework {

inline cel::CompileOptions CelCompileOptions(const FeatureGates& features) {
  cel::CompileOptions o;
  o.checked_empty_substring_offsets = features.cel_checked_empty_substring_offsets;
  o.includes = features.cel_includes;
  o.includes_unbounded = features.cel_unbounded_includes;
  o.bounded_lists_range = features.cel_bounded_lists_range;
  o.dyn_attributes = features.cel_dyn_attributes;
  o.quantity_deep_copy = features.cel_quantity_deep_copy;
  o.duration_of_int = !features.cel_no_duration_of_int;
  o.url_lenient_colons = !features.cel_strict_url_ports;
  o.legacy_label_key_messages = !features.cel_label_key_messages;
  o.leading_dot_sees_locals = !features.cel_leading_dot_skips_locals;
  o.refuse_backtick_identifiers = !features.cel_backtick_identifiers;
  o.or_passes_non_optionals = !features.cel_optional_or_checks_receiver;
  o.refuse_wrapper_bool_results = !features.cel_wrapper_bool_results;
  return o;
}

}  // namespace ksched::scheduler::framework
