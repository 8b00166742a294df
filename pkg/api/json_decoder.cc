#include "pkg/api/json_decoder.h"

#include <limits>
#include <string>

namespace ksched::api {

namespace {

// A short rendering of a number for error messages.
std::string NumberText(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Reads an integral JSON number into [lo, hi]; floats (even 2.0) are
// rejected as Go's encoding/json rejects them for integer fields.
template <class Int>
util::Status GetIntegral(const Decoder& d, const char* type_name, Int* out) {
  if (d.IsAbsent()) return util::Status::Ok();
  const nlohmann::json& j = d.json();
  constexpr auto kMin = std::numeric_limits<Int>::min();
  constexpr auto kMax = std::numeric_limits<Int>::max();
  if (j.is_number_unsigned()) {
    const uint64_t v = j.get_ref<const nlohmann::json::number_unsigned_t&>();
    if (v > static_cast<uint64_t>(kMax)) {
      return d.Error("value " + std::to_string(v) + " out of range for " + type_name);
    }
    *out = static_cast<Int>(v);
    return util::Status::Ok();
  }
  if (j.is_number_integer()) {
    const int64_t v = j.get_ref<const nlohmann::json::number_integer_t&>();
    if (v < static_cast<int64_t>(kMin) || v > static_cast<int64_t>(kMax)) {
      return d.Error("value " + std::to_string(v) + " out of range for " + type_name);
    }
    *out = static_cast<Int>(v);
    return util::Status::Ok();
  }
  if (j.is_number_float()) {
    return d.Error(std::string("expected ") + type_name + ", got number " + NumberText(j));
  }
  return d.TypeError(type_name);
}

}  // namespace

Decoder Decoder::Field(std::string_view key) const {
  const nlohmann::json* child = nullptr;
  if (json_ != nullptr && json_->is_object()) {
    const auto& object = json_->get_ref<const nlohmann::json::object_t&>();
    auto it = object.find(key);
    if (it != object.end()) child = &it->second;
  }
  return Decoder(child, this, key, 0, Step::kField);
}

Decoder Decoder::Index(size_t i) const {
  const nlohmann::json* child = nullptr;
  if (json_ != nullptr && json_->is_array() && i < json_->size()) {
    child = &json_->get_ref<const nlohmann::json::array_t&>()[i];
  }
  return Decoder(child, this, {}, i, Step::kIndex);
}

util::Status Decoder::RequireObject() const {
  if (IsAbsent() || json_->is_object()) return util::Status::Ok();
  return TypeError("object");
}

util::Status Decoder::RequireArray() const {
  if (IsAbsent() || json_->is_array()) return util::Status::Ok();
  return TypeError("array");
}

void Decoder::AppendPath(std::string* out) const {
  if (parent_ != nullptr) parent_->AppendPath(out);
  switch (step_) {
    case Step::kRoot:
      break;
    case Step::kField:
      if (!out->empty()) out->push_back('.');
      out->append(key_);
      break;
    case Step::kIndex:
      out->push_back('[');
      out->append(std::to_string(index_));
      out->push_back(']');
      break;
  }
}

std::string Decoder::Path() const {
  std::string path;
  AppendPath(&path);
  return path;
}

util::Status Decoder::Error(std::string_view reason) const {
  std::string message = Path();
  if (!message.empty()) message.append(": ");
  message.append(reason);
  return util::InvalidArgument(std::move(message));
}

util::Status Decoder::TypeError(std::string_view what) const {
  std::string reason = "expected ";
  reason.append(what);
  reason.append(", got ");
  reason.append(json_ == nullptr ? "nothing" : json_->type_name());
  return Error(reason);
}

util::Status Decoder::GetString(std::string* out) const {
  if (IsAbsent()) return util::Status::Ok();
  if (!json_->is_string()) return TypeError("string");
  *out = json_->get_ref<const std::string&>();
  return util::Status::Ok();
}

util::Status Decoder::GetBool(bool* out) const {
  if (IsAbsent()) return util::Status::Ok();
  if (!json_->is_boolean()) return TypeError("boolean");
  *out = json_->get<bool>();
  return util::Status::Ok();
}

util::Status Decoder::GetInt32(int32_t* out) const { return GetIntegral(*this, "int32", out); }

util::Status Decoder::GetInt64(int64_t* out) const { return GetIntegral(*this, "int64", out); }

}  // namespace ksched::api
