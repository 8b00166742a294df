// Typing of YAML scalars as kubectl sees them (internal to pkg/api).
//
// kubectl converts YAML with sigs.k8s.io/yaml, which decodes with go-yaml v2
// into interface{} and marshals the result as JSON. These functions
// reproduce that pipeline for one scalar:
//   - plain scalars: null (""/~/null/Null/NULL); the YAML 1.1 booleans
//     y/Y/yes/Yes/YES/n/N/no/No/NO/true/True/TRUE/false/False/FALSE/
//     on/On/ON/off/Off/OFF; integers in Go's base-0 syntax (decimal, 0x, 0o,
//     0b, leading-0 octal, sign, '_' separators); floats (1.5, .5, 1e3,
//     .inf/-.inf/.nan); anything else is a string;
//   - quoted scalars and the non-specific tag "!" are strings;
//   - explicit !!str/!!int/!!float/!!bool/!!null tags force the type (a
//     value that does not fit is an error); other tags leave a string.
// As Go's json.Marshal writes an integral float64 below 1e21 without a
// fraction ("1.0" and "1e3" come out as 1 and 1000), such floats become JSON
// integers here. Infinities and NaN stay floats (Go's marshaller would
// refuse them; consumers reject them where a number is read).
//
// Tags are given as yaml-cpp reports them: "?" for an untagged plain scalar,
// "!" for a quoted one, "tag:yaml.org,2002:int" for !!int, "!foo" for custom.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/util/status.h"

namespace ksched::api {

// A scalar's type and value as go-yaml v2 resolves it, before the JSON step.
// kUint: above int64 but within uint64 (in u); kBigInt: beyond 64 bits, its
// approximate value in f (Go keeps a big.Int, which JSON reads back as a
// float).
struct YamlScalar {
  enum Kind { kNull, kBool, kInt, kUint, kBigInt, kFloat, kString } kind = kString;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
};

// The type of a scalar; an explicit tag the value does not fit is an error.
util::StatusOr<YamlScalar> TypeYamlScalar(std::string_view tag, std::string_view value);

// The JSON value of a scalar in value position.
util::StatusOr<nlohmann::json> ResolveYamlScalar(std::string_view tag, std::string_view value);

// The JSON object key for a scalar in key position: strings as they are,
// integers in decimal, floats as Go's FormatFloat(f, 'g', -1, 32) (with
// .inf/-.inf/.nan), booleans as "true"/"false". Null and integers beyond
// int64 are not valid keys, as in sigs.k8s.io/yaml.
util::StatusOr<std::string> ResolveYamlKey(std::string_view tag, std::string_view value);

// True for the merge key "<<" (plain or tagged !!merge).
bool IsYamlMergeKey(std::string_view tag, std::string_view value);

}  // namespace ksched::api
