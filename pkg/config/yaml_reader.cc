#include "pkg/config/yaml_reader.h"

#include <cmath>
#include <limits>

#include "pkg/api/yaml_scalar.h"
#include "pkg/util/go_duration.h"
#include "pkg/config/known_plugins.h"

namespace ksched::config {
namespace {

std::string Describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "null";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  ResolvedScalar r = ResolveScalar(node);
  switch (r.kind) {
    case ScalarKind::kNull:
      return "null";
    case ScalarKind::kBool:
      return r.bool_value ? "true" : "false";
    case ScalarKind::kInt:
    case ScalarKind::kFloat:
      return r.text;
    case ScalarKind::kString:
      return Quote(r.text);
  }
  return r.text;
}

}  // namespace

ResolvedScalar ResolveScalar(const YAML::Node& node) {
  ResolvedScalar r;
  if (!node.IsDefined() || node.IsNull()) return r;
  r.text = node.Scalar();
  const std::string& tag = node.Tag();
  // A value its explicit tag does not fit stays a string, which the typed
  // readers then reject with the field's path.
  util::StatusOr<api::YamlScalar> typed = api::TypeYamlScalar(tag.empty() ? "?" : tag, r.text);
  if (!typed.ok()) {
    r.kind = ScalarKind::kString;
    return r;
  }
  switch (typed->kind) {
    case api::YamlScalar::kNull:
      break;
    case api::YamlScalar::kBool:
      r.kind = ScalarKind::kBool;
      r.bool_value = typed->b;
      break;
    case api::YamlScalar::kInt:
      r.kind = ScalarKind::kInt;
      r.int_value = typed->i;
      break;
    case api::YamlScalar::kUint:  // beyond int64: no int field can hold it
      r.kind = ScalarKind::kFloat;
      r.float_value = static_cast<double>(typed->u);
      break;
    case api::YamlScalar::kBigInt:
    case api::YamlScalar::kFloat:
      r.kind = ScalarKind::kFloat;
      r.float_value = typed->f;
      break;
    case api::YamlScalar::kString:
      r.kind = ScalarKind::kString;
      break;
  }
  return r;
}

nlohmann::json NodeToJson(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return nullptr;
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = node.begin(); it != node.end(); ++it) {
      out[it->first.Scalar()] = NodeToJson(it->second);
    }
    return out;
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const YAML::Node& item : node) out.push_back(NodeToJson(item));
    return out;
  }
  ResolvedScalar r = ResolveScalar(node);
  switch (r.kind) {
    case ScalarKind::kNull:
      return nullptr;
    case ScalarKind::kBool:
      return r.bool_value;
    case ScalarKind::kInt:
      return r.int_value;
    case ScalarKind::kFloat:
      return r.float_value;
    case ScalarKind::kString:
      return r.text;
  }
  return r.text;
}

std::string ChildPath(std::string_view parent, std::string_view field) {
  if (parent.empty()) return std::string(field);
  std::string out(parent);
  out += '.';
  out += field;
  return out;
}

std::string IndexPath(std::string_view parent, size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

SourcePos YamlReader::PosOf(const YAML::Node& node) {
  YAML::Mark m = node.Mark();
  if (m.line < 0) return SourcePos{};
  return SourcePos{m.line + 1, m.column + 1};
}

Value YamlReader::Root(const YAML::Node& node) {
  Value v{node, "", PosOf(node)};
  Record("", v.pos);
  return v;
}

void YamlReader::Fail(ErrorType type, std::string path, SourcePos pos, std::string detail) {
  FieldError e;
  e.type = type;
  e.field = std::move(path);
  e.detail = std::move(detail);
  e.file = source_->file();
  e.pos = pos;
  errors_->push_back(std::move(e));
}

void YamlReader::TypeError(const Value& v, std::string_view expected) {
  Fail(ErrorType::kDecode, v.path, v.pos, "expected " + std::string(expected) + ", got " + Describe(v.node));
}

std::optional<std::string> YamlReader::String(const Value& v) {
  if (v.node.IsNull()) return std::nullopt;
  if (!v.node.IsScalar()) {
    TypeError(v, "a string");
    return std::nullopt;
  }
  ResolvedScalar r = ResolveScalar(v.node);
  if (r.kind != ScalarKind::kString) {
    TypeError(v, "a string");
    return std::nullopt;
  }
  return r.text;
}

std::optional<bool> YamlReader::Bool(const Value& v) {
  if (v.node.IsNull()) return std::nullopt;
  if (!v.node.IsScalar() || ResolveScalar(v.node).kind != ScalarKind::kBool) {
    TypeError(v, "a boolean");
    return std::nullopt;
  }
  return ResolveScalar(v.node).bool_value;
}

std::optional<int64_t> YamlReader::Int(const Value& v, int64_t min, int64_t max) {
  if (v.node.IsNull()) return std::nullopt;
  if (!v.node.IsScalar()) {
    TypeError(v, "an integer");
    return std::nullopt;
  }
  ResolvedScalar r = ResolveScalar(v.node);
  int64_t value;
  if (r.kind == ScalarKind::kInt) {
    value = r.int_value;
  } else if (r.kind == ScalarKind::kFloat && std::isfinite(r.float_value) &&
             r.float_value == std::trunc(r.float_value) && std::fabs(r.float_value) < 9.2e18) {
    // go-yaml decodes 5.0 as a float that JSON re-encodes as 5, which then
    // fits an integer field; keep accepting what kube-scheduler accepts.
    value = static_cast<int64_t>(r.float_value);
  } else {
    TypeError(v, "an integer");
    return std::nullopt;
  }
  if (value < min || value > max) {
    Fail(ErrorType::kDecode, v.path, v.pos,
         "value " + r.text + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return std::nullopt;
  }
  return value;
}

std::optional<int32_t> YamlReader::Int32(const Value& v) {
  std::optional<int64_t> i = Int(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  if (!i) return std::nullopt;
  return static_cast<int32_t>(*i);
}

std::optional<int64_t> YamlReader::Int64(const Value& v) {
  return Int(v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
}

std::optional<double> YamlReader::Float(const Value& v) {
  if (v.node.IsNull()) return std::nullopt;
  if (v.node.IsScalar()) {
    ResolvedScalar r = ResolveScalar(v.node);
    if (r.kind == ScalarKind::kInt) return static_cast<double>(r.int_value);
    if (r.kind == ScalarKind::kFloat) return r.float_value;
  }
  TypeError(v, "a number");
  return std::nullopt;
}

std::optional<util::Duration> YamlReader::Duration(const Value& v) {
  if (v.node.IsNull()) return std::nullopt;
  if (!v.node.IsScalar() || ResolveScalar(v.node).kind != ScalarKind::kString) {
    TypeError(v, "a duration string such as \"15s\"");
    return std::nullopt;
  }
  util::StatusOr<util::Duration> d = util::ParseGoDuration(v.node.Scalar());
  if (!d.ok()) {
    Fail(ErrorType::kDecode, v.path, v.pos, d.status().message());
    return std::nullopt;
  }
  return *d;
}

std::vector<Value> YamlReader::Items(const Value& v) {
  std::vector<Value> out;
  if (v.node.IsNull()) return out;
  if (!v.node.IsSequence()) {
    TypeError(v, "a list");
    return out;
  }
  size_t i = 0;
  for (const YAML::Node& item : v.node) {
    Value iv{item, IndexPath(v.path, i++), PosOf(item)};
    // A null item has no position of its own; yaml-cpp marks where the next
    // token starts, so use the list's.
    if (item.IsNull()) iv.pos = v.pos;
    Record(iv.path, iv.pos);
    out.push_back(std::move(iv));
  }
  return out;
}

std::vector<std::string> YamlReader::StringList(const Value& v) {
  std::vector<std::string> out;
  for (const Value& item : Items(v)) {
    std::optional<std::string> s = String(item);
    out.push_back(s.value_or(""));
  }
  return out;
}

std::map<std::string, std::string> YamlReader::StringMap(const Value& v) {
  std::map<std::string, std::string> out;
  if (v.node.IsNull()) return out;
  if (!v.node.IsMap()) {
    TypeError(v, "a mapping of strings");
    return out;
  }
  for (auto it = v.node.begin(); it != v.node.end(); ++it) {
    SourcePos key_pos = PosOf(it->first);
    std::string key = it->first.Scalar();
    std::string path = std::string(v.path) + "[" + key + "]";
    if (out.count(key) > 0) {
      Fail(ErrorType::kDuplicateField, path, key_pos, "duplicate field " + Quote(key));
      continue;
    }
    Value item{it->second, path, it->second.IsNull() ? key_pos : PosOf(it->second)};
    Record(path, item.pos);
    out[key] = String(item).value_or("");
  }
  return out;
}

MapReader::MapReader(YamlReader* reader, const Value& v) : reader_(reader), path_(v.path) {
  if (v.node.IsNull()) return;
  if (!v.node.IsMap()) {
    reader_->TypeError(v, "a mapping");
    return;
  }
  is_map_ = true;
  for (auto it = v.node.begin(); it != v.node.end(); ++it) {
    Entry e;
    e.key_pos = YamlReader::PosOf(it->first);
    if (!it->first.IsScalar()) {
      reader_->Fail(ErrorType::kDecode, path_, e.key_pos, "mapping keys must be strings");
      continue;
    }
    e.key = it->first.Scalar();
    std::string child = ChildPath(path_, e.key);
    bool duplicate = false;
    for (const Entry& prev : entries_) {
      if (prev.key == e.key) {
        reader_->Fail(
            ErrorType::kDuplicateField, child, e.key_pos,
            "duplicate field " + Quote(e.key) + " (first set at line " + std::to_string(prev.key_pos.line) + ")");
        duplicate = true;
        break;
      }
    }
    if (duplicate) continue;
    SourcePos value_pos = it->second.IsNull() ? e.key_pos : YamlReader::PosOf(it->second);
    e.value = Value{it->second, child, value_pos};
    reader_->Record(child, value_pos);
    entries_.push_back(std::move(e));
  }
}

std::optional<Value> MapReader::Get(std::string_view name) {
  schema_.emplace_back(name);
  for (Entry& e : entries_) {
    if (e.key == name) {
      e.used = true;
      if (e.value.node.IsNull()) return std::nullopt;
      return e.value;
    }
  }
  return std::nullopt;
}

bool MapReader::Has(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.key == name) return true;
  }
  return false;
}

void MapReader::Finish() {
  for (const Entry& e : entries_) {
    if (e.used) continue;
    std::string detail = "strict decoding error: unknown field " + Quote(e.key);
    std::string hint = ClosestName(e.key, schema_);
    if (!hint.empty()) detail += " (did you mean " + Quote(hint) + "?)";
    reader_->Fail(ErrorType::kUnknownField, ChildPath(path_, e.key), e.key_pos, std::move(detail));
  }
}

}  // namespace ksched::config
