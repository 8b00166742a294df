// Decoder: a cursor into a parsed JSON document that knows its field path.
//
// The codec walks an nlohmann::json tree with Decoders. A child Decoder
// (Field("spec"), Index(1), Member(key)) points at its parent instead of
// copying the path, so descending costs nothing; the dotted path
// ("spec.containers[1].resources.requests.cpu") is only built when an error
// is reported. JSON null and missing members both read as absent, as Go's
// encoding/json treats them.
//
// Ownership: a Decoder borrows the JSON value, its parent Decoder and the key
// text; all must outlive it. Children are meant to live on the stack of the
// function that made them.
//
// Thread-safety: a Decoder is immutable; concurrent reads of one JSON tree
// through separate Decoders are safe.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/util/status.h"

// Returns from the enclosing function when `expr` yields a non-OK Status.
#define KSCHED_API_RETURN_IF_ERROR(expr)                \
  do {                                                  \
    ::ksched::util::Status ksched_api_status_ = (expr); \
    if (!ksched_api_status_.ok()) return ksched_api_status_; \
  } while (false)

namespace ksched::api {

class Decoder {
 public:
  // A decoder for the document root (empty path).
  explicit Decoder(const nlohmann::json& root) : json_(&root) {}

  // The member `key` of this object. Absent if this value is absent, not an
  // object, or has no such member: callers check the object type first with
  // RequireObject(). `key` must outlive the child (string literals and keys
  // owned by the JSON tree do).
  Decoder Field(std::string_view key) const;
  // Element `i` of this array; the caller has checked IsArray() and the size.
  Decoder Index(size_t i) const;

  // Missing or JSON null.
  bool IsAbsent() const { return json_ == nullptr || json_->is_null(); }
  // The value; only valid when !IsAbsent().
  const nlohmann::json& json() const { return *json_; }

  // OK when absent or an object; otherwise a type error at this path.
  util::Status RequireObject() const;
  // OK when absent or an array; otherwise a type error at this path.
  util::Status RequireArray() const;

  // "spec.containers[1].image"; empty at the root.
  std::string Path() const;
  // InvalidArgument "<path>: <reason>" (just the reason at the root).
  util::Status Error(std::string_view reason) const;
  // "expected <what>, got <json type>" at this path.
  util::Status TypeError(std::string_view what) const;

  // Typed reads. Absent leaves *out untouched and returns OK; a value of the
  // wrong JSON type, or out of range for the C++ type, is an error.
  util::Status GetString(std::string* out) const;
  util::Status GetBool(bool* out) const;
  util::Status GetInt32(int32_t* out) const;
  util::Status GetInt64(int64_t* out) const;

  // Calls fn(const Decoder& element) for each element of an array, stopping
  // at the first error. Absent is an empty array.
  template <class Fn>
  util::Status ForEachElement(Fn&& fn) const {
    KSCHED_API_RETURN_IF_ERROR(RequireArray());
    if (IsAbsent()) return util::Status::Ok();
    const auto& array = json_->get_ref<const nlohmann::json::array_t&>();
    for (size_t i = 0; i < array.size(); ++i) {
      KSCHED_API_RETURN_IF_ERROR(fn(Decoder(&array[i], this, {}, i, Step::kIndex)));
    }
    return util::Status::Ok();
  }

  // Calls fn(const std::string& key, const Decoder& value) for each member
  // of an object in key order, stopping at the first error. Absent is an
  // empty object.
  template <class Fn>
  util::Status ForEachMember(Fn&& fn) const {
    KSCHED_API_RETURN_IF_ERROR(RequireObject());
    if (IsAbsent()) return util::Status::Ok();
    for (const auto& [key, value] : json_->get_ref<const nlohmann::json::object_t&>()) {
      KSCHED_API_RETURN_IF_ERROR(fn(key, Decoder(&value, this, key, 0, Step::kField)));
    }
    return util::Status::Ok();
  }

 private:
  enum class Step : uint8_t { kRoot, kField, kIndex };

  Decoder(const nlohmann::json* json, const Decoder* parent, std::string_view key, size_t index,
          Step step)
      : json_(json), parent_(parent), key_(key), index_(index), step_(step) {}

  void AppendPath(std::string* out) const;

  const nlohmann::json* json_;  // null when missing
  const Decoder* parent_ = nullptr;
  std::string_view key_;
  size_t index_ = 0;
  Step step_ = Step::kRoot;
};

}  // namespace ksched::api
