// Strict, position-keeping reading of yaml-cpp nodes, for the decoder.
//
// Scalars are typed the way kube's YAML path (sigs.k8s.io/yaml on go-yaml v2)
// types them: a quoted scalar is a string; a plain one is null ("~", "null",
// empty), a YAML 1.1 boolean (true/false/yes/no/on/off/y/n in their usual
// casings), an integer (decimal, 0x, 0o, leading-0 octal, 0b; "_" allowed),
// a float, or else a string. A field of the wrong type is an error naming
// what was expected and what was found, e.g.
//   profiles[0].plugins.score.enabled[1].weight: expected an integer, got "high"
// Null is "absent", as Go's JSON decoding treats it.
//
// MapReader reads one mapping strictly: duplicate keys are errors, and every
// key the decoder did not ask for is reported by Finish() as
// `strict decoding error: unknown field "x"` (with a "did you mean" hint).
//
// Every value read is recorded in the ConfigSource under its field path.
// Errors accumulate in the ErrorList; readers never throw.
//
// Thread-safety: a reader is used by one thread at a time.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/errors.h"
#include "pkg/util/clock.h"

namespace ksched::config {

enum class ScalarKind { kNull, kBool, kInt, kFloat, kString };

struct ResolvedScalar {
  ScalarKind kind = ScalarKind::kNull;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0;
  std::string text;  // the scalar as written
};

// Types a scalar (or null) node; maps and sequences must not be passed.
ResolvedScalar ResolveScalar(const YAML::Node& node);

// Converts a node to JSON with the typing above (for args kept untyped).
nlohmann::json NodeToJson(const YAML::Node& node);

// A node together with its field path and 1-based position.
struct Value {
  YAML::Node node;
  std::string path;
  SourcePos pos;
};

std::string ChildPath(std::string_view parent, std::string_view field);
std::string IndexPath(std::string_view parent, size_t index);

class YamlReader {
 public:
  YamlReader(ConfigSource* source, ErrorList* errors) : source_(source), errors_(errors) {}

  static SourcePos PosOf(const YAML::Node& node);
  // The document root, recorded under the empty path.
  Value Root(const YAML::Node& node);

  void Record(const std::string& path, SourcePos pos) { source_->Record(path, pos); }
  void Fail(ErrorType type, std::string path, SourcePos pos, std::string detail);
  // "expected <expected>, got <what v holds>".
  void TypeError(const Value& v, std::string_view expected);
  size_t error_count() const { return errors_->size(); }

  // Each returns nullopt for null and, after recording an error, for a value
  // of the wrong type or out of range.
  std::optional<std::string> String(const Value& v);
  std::optional<bool> Bool(const Value& v);
  std::optional<int64_t> Int(const Value& v, int64_t min, int64_t max);
  std::optional<int32_t> Int32(const Value& v);
  std::optional<int64_t> Int64(const Value& v);
  std::optional<double> Float(const Value& v);
  // A Go duration string ("15s"); numbers are rejected as Go's JSON decoding
  // of metav1.Duration rejects them.
  std::optional<util::Duration> Duration(const Value& v);

  // The items of a sequence (empty for null; error for anything else).
  std::vector<Value> Items(const Value& v);
  std::vector<std::string> StringList(const Value& v);
  // A mapping of strings to strings (labels); entries are at "path[key]".
  std::map<std::string, std::string> StringMap(const Value& v);

 private:
  ConfigSource* source_;
  ErrorList* errors_;
};

class MapReader {
 public:
  // Reports an error (and reads nothing) unless v is a mapping or null.
  MapReader(YamlReader* reader, const Value& v);

  bool is_map() const { return is_map_; }
  const std::string& path() const { return path_; }
  // The value of a schema field; nullopt when absent or null. Asking marks
  // the name as part of the schema for Finish().
  std::optional<Value> Get(std::string_view name);
  // True when the key is present (even with a null value).
  bool Has(std::string_view name) const;
  // Reports every key that no Get() asked for.
  void Finish();

 private:
  struct Entry {
    std::string key;
    SourcePos key_pos;
    Value value;
    bool used = false;
  };
  YamlReader* reader_;
  std::string path_;
  bool is_map_ = false;
  std::vector<Entry> entries_;
  std::vector<std::string> schema_;
};

// Calls read(value) when `field` is present in `m` and not null.
template <class F>
void ReadField(MapReader& m, std::string_view field, F&& read) {
  if (std::optional<Value> v = m.Get(field)) read(*v);
}

}  // namespace ksched::config
