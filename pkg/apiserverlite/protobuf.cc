#include "pkg/apiserverlite/protobuf.h"

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <vector>

#include "pkg/apiserverlite/meta.h"

namespace ksched::apiserver {

namespace {

using nlohmann::json;

// Protobuf wire reader over a byte range; every read checks bounds.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }

  std::optional<uint64_t> Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return std::nullopt;
      uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return std::nullopt;
  }
  std::optional<std::string_view> Bytes() {
    auto len = Varint();
    if (!len || *len > data_.size() - pos_) return std::nullopt;
    std::string_view out = data_.substr(pos_, *len);
    pos_ += *len;
    return out;
  }
  bool Skip(uint32_t wire_type) {
    switch (wire_type) {
      case 0: return Varint().has_value();
      case 1: return Advance(8);
      case 2: return Bytes().has_value();
      case 5: return Advance(4);
      default: return false;
    }
  }

 private:
  bool Advance(size_t n) {
    if (n > data_.size() - pos_) return false;
    pos_ += n;
    return true;
  }
  std::string_view data_;
  size_t pos_ = 0;
};

enum class Kind { kString, kInt, kBool, kMessage, kStringMap, kTime, kIntOrString,
                  kRepeatedString, kRepeatedMessage };

struct Message;
struct Field {
  uint32_t number;
  const char* name;
  Kind kind;
  const Message* message = nullptr;
};
struct Message {
  std::vector<Field> fields;
};

// Schemas from k8s.io/api and k8s.io/apimachinery generated.proto.
const Message kOwnerReference{{{1, "kind", Kind::kString},
                               {3, "name", Kind::kString},
                               {4, "uid", Kind::kString},
                               {5, "apiVersion", Kind::kString},
                               {6, "controller", Kind::kBool},
                               {7, "blockOwnerDeletion", Kind::kBool}}};
const Message kObjectMeta{{{1, "name", Kind::kString},
                           {2, "generateName", Kind::kString},
                           {3, "namespace", Kind::kString},
                           {5, "uid", Kind::kString},
                           {6, "resourceVersion", Kind::kString},
                           {7, "generation", Kind::kInt},
                           {8, "creationTimestamp", Kind::kTime},
                           {9, "deletionTimestamp", Kind::kTime},
                           {10, "deletionGracePeriodSeconds", Kind::kInt},
                           {11, "labels", Kind::kStringMap},
                           {12, "annotations", Kind::kStringMap},
                           {13, "ownerReferences", Kind::kRepeatedMessage, &kOwnerReference},
                           {14, "finalizers", Kind::kRepeatedString}}};
const Message kLabelSelectorRequirement{{{1, "key", Kind::kString},
                                         {2, "operator", Kind::kString},
                                         {3, "values", Kind::kRepeatedString}}};
const Message kLabelSelector{{{1, "matchLabels", Kind::kStringMap},
                              {2, "matchExpressions", Kind::kRepeatedMessage,
                               &kLabelSelectorRequirement}}};
const Message kNamespaceSpec{{{1, "finalizers", Kind::kRepeatedString}}};
const Message kNamespace{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                          {2, "spec", Kind::kMessage, &kNamespaceSpec}}};
const Message kPriorityClass{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                              {2, "value", Kind::kInt},
                              {3, "globalDefault", Kind::kBool},
                              {4, "description", Kind::kString},
                              {5, "preemptionPolicy", Kind::kString}}};
const Message kPodDisruptionBudgetSpec{{{1, "minAvailable", Kind::kIntOrString},
                                        {2, "selector", Kind::kMessage, &kLabelSelector},
                                        {3, "maxUnavailable", Kind::kIntOrString},
                                        {4, "unhealthyPodEvictionPolicy", Kind::kString}}};
const Message kPodDisruptionBudget{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                                    {2, "spec", Kind::kMessage, &kPodDisruptionBudgetSpec}}};
// runtime.Unknown and runtime.TypeMeta.
const Message kTypeMeta{{{1, "apiVersion", Kind::kString}, {2, "kind", Kind::kString}}};

ApiError Malformed(const std::string& what) {
  return BadRequestError("malformed protobuf body: " + what);
}

ApiResult<json> DecodeMessage(std::string_view data, const Message& schema);

ApiResult<json> DecodeValue(Reader& r, uint32_t wire, const Field& f) {
  if (f.kind == Kind::kInt || f.kind == Kind::kBool) {
    if (wire != 0) return Malformed(fmt::format("{}: want a varint", f.name));
    auto v = r.Varint();
    if (!v) return Malformed(f.name);
    if (f.kind == Kind::kBool) return json(*v != 0);
    return json(static_cast<int64_t>(*v));
  }
  if (wire != 2) return Malformed(fmt::format("{}: want a length-delimited field", f.name));
  auto bytes = r.Bytes();
  if (!bytes) return Malformed(f.name);
  switch (f.kind) {
    case Kind::kString:
    case Kind::kRepeatedString:
      return json(std::string(*bytes));
    case Kind::kMessage:
    case Kind::kRepeatedMessage:
      return DecodeMessage(*bytes, *f.message);
    case Kind::kStringMap: {
      static const Message kEntry{{{1, "key", Kind::kString}, {2, "value", Kind::kString}}};
      return DecodeMessage(*bytes, kEntry);
    }
    case Kind::kTime: {
      static const Message kTime{{{1, "seconds", Kind::kInt}, {2, "nanos", Kind::kInt}}};
      auto t = DecodeMessage(*bytes, kTime);
      if (!t.ok()) return t;
      return json(FormatTime(util::WallTime(std::chrono::seconds(t.value().value("seconds", 0)))));
    }
    case Kind::kIntOrString: {
      static const Message kIntOrString{
          {{1, "type", Kind::kInt}, {2, "intVal", Kind::kInt}, {3, "strVal", Kind::kString}}};
      auto v = DecodeMessage(*bytes, kIntOrString);
      if (!v.ok()) return v;
      if (v.value().value("type", 0) == 1) return json(v.value().value("strVal", ""));
      return json(static_cast<int32_t>(v.value().value("intVal", int64_t{0})));
    }
    default:
      return Malformed(f.name);
  }
}

ApiResult<json> DecodeMessage(std::string_view data, const Message& schema) {
  json out = json::object();
  Reader r(data);
  while (!r.done()) {
    auto tag = r.Varint();
    if (!tag) return Malformed("truncated tag");
    uint32_t number = static_cast<uint32_t>(*tag >> 3);
    uint32_t wire = static_cast<uint32_t>(*tag & 7);
    const Field* field = nullptr;
    for (const auto& f : schema.fields) {
      if (f.number == number) field = &f;
    }
    if (field == nullptr) {
      if (!r.Skip(wire)) return Malformed(fmt::format("field {}", number));
      continue;
    }
    auto value = DecodeValue(r, wire, *field);
    if (!value.ok()) return value;
    switch (field->kind) {
      case Kind::kRepeatedString:
      case Kind::kRepeatedMessage:
        out[field->name].push_back(std::move(value.value()));
        break;
      case Kind::kStringMap:
        out[field->name][value.value().value("key", "")] = value.value().value("value", "");
        break;
      default:
        out[field->name] = std::move(value.value());
    }
  }
  return out;
}

}  // namespace

bool IsProtobufContentType(std::string_view content_type) {
  return content_type.substr(0, content_type.find(';')) == "application/vnd.kubernetes.protobuf";
}

ApiResult<json> DecodeProtobufObject(std::string_view body) {
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) return Malformed("missing the k8s envelope");
  static const Message kUnknown{{{1, "typeMeta", Kind::kMessage, &kTypeMeta},
                                 {2, "raw", Kind::kString},
                                 {3, "contentEncoding", Kind::kString},
                                 {4, "contentType", Kind::kString}}};
  auto unknown = DecodeMessage(body.substr(4), kUnknown);
  if (!unknown.ok()) return unknown;
  const json& u = unknown.value();
  std::string api_version = u.value("typeMeta", json::object()).value("apiVersion", "");
  std::string kind = u.value("typeMeta", json::object()).value("kind", "");
  if (!u.value("contentEncoding", "").empty()) return Malformed("content encodings are unsupported");
  const Message* schema = nullptr;
  if (kind == "Namespace" && api_version == "v1") schema = &kNamespace;
  if (kind == "PriorityClass" && api_version == "scheduling.k8s.io/v1") schema = &kPriorityClass;
  if (kind == "PodDisruptionBudget" && api_version == "policy/v1") schema = &kPodDisruptionBudget;
  if (schema == nullptr) {
    return ApiError{415, "UnsupportedMediaType",
                    fmt::format("protobuf bodies are supported for Namespace, PriorityClass and "
                                "PodDisruptionBudget only (got {} {}); send JSON",
                                api_version, kind),
                    nullptr};
  }
  auto obj = DecodeMessage(u.value("raw", ""), *schema);
  if (!obj.ok()) return obj;
  obj.value()["apiVersion"] = api_version;
  obj.value()["kind"] = kind;
  return obj;
}

}  // namespace ksched::apiserver
