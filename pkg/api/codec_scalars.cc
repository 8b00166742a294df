// Leaf codecs: strings, booleans, integers, quantities, times, IntOrString,
// and resource lists (name -> quantity).

#include <cmath>
#include <limits>
#include <string>

#include "pkg/api/codec_fields.h"

namespace ksched::api {

util::Status Decode(const Decoder& d, std::string* out) { return d.GetString(out); }
util::Status Decode(const Decoder& d, bool* out) { return d.GetBool(out); }
util::Status Decode(const Decoder& d, int32_t* out) { return d.GetInt32(out); }
util::Status Decode(const Decoder& d, int64_t* out) { return d.GetInt64(out); }

util::Status Decode(const Decoder& d, Quantity* out) {
  if (d.IsAbsent()) return util::Status::Ok();
  const nlohmann::json& j = d.json();
  std::string text;
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    auto parsed = Quantity::Parse(s);
    if (!parsed.ok()) return d.Error(parsed.status().message());
    *out = *parsed;
    return util::Status::Ok();
  }
  // A bare number is read through its decimal text, as kube's
  // Quantity.UnmarshalJSON parses the raw bytes of an unquoted value.
  if (j.is_number_unsigned()) {
    text = std::to_string(j.get<uint64_t>());
  } else if (j.is_number_integer()) {
    text = std::to_string(j.get<int64_t>());
  } else if (j.is_number_float()) {
    if (!std::isfinite(j.get<double>())) return d.Error("quantity must be a finite number");
    text = j.dump();  // shortest round-trip form, e.g. "0.1", "1e+21"
  } else {
    return d.TypeError("quantity (string or number)");
  }
  auto parsed = Quantity::Parse(text);
  if (!parsed.ok()) return d.Error(parsed.status().message());
  *out = *parsed;
  return util::Status::Ok();
}

util::Status Decode(const Decoder& d, Time* out) {
  if (d.IsAbsent()) return util::Status::Ok();
  if (!d.json().is_string()) return d.TypeError("RFC 3339 time string");
  auto parsed = ParseTime(d.json().get_ref<const std::string&>());
  if (!parsed.ok()) return d.Error(parsed.status().message());
  *out = *parsed;
  return util::Status::Ok();
}

util::Status Decode(const Decoder& d, IntOrString* out) {
  if (d.IsAbsent()) return util::Status::Ok();
  if (d.json().is_string()) {
    out->is_int = false;
    out->int_value = 0;
    out->str_value = d.json().get_ref<const std::string&>();
    return util::Status::Ok();
  }
  if (!d.json().is_number()) return d.TypeError("integer or string");
  int32_t value = 0;
  KSCHED_API_RETURN_IF_ERROR(d.GetInt32(&value));
  out->is_int = true;
  out->int_value = value;
  out->str_value.clear();
  return util::Status::Ok();
}

// ---------------------------------------------------------------- fast path
// Each accepts only what the Decode above accepts without error, and
// produces the same value; everything else (a number for a quantity, an
// out-of-range integer, a bad time) goes the slow way for its error.

bool ReadFast(JsonReader& r, std::string* out) {
  if (r.ConsumeNull()) return true;
  std::string scratch;
  std::string_view s;
  if (!r.ReadString(&s, &scratch)) return false;
  out->assign(s);
  return true;
}

bool ReadFast(JsonReader& r, bool* out) { return r.ConsumeNull() || r.ReadBool(out); }

bool ReadFast(JsonReader& r, int32_t* out) {
  if (r.ConsumeNull()) return true;
  int64_t v = 0;
  if (!r.ReadInt(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), &v)) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

bool ReadFast(JsonReader& r, int64_t* out) {
  if (r.ConsumeNull()) return true;
  return r.ReadInt(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), out);
}

bool ReadFast(JsonReader& r, Quantity* out) {
  if (r.ConsumeNull()) return true;
  std::string scratch;
  std::string_view s;
  if (!r.ReadString(&s, &scratch)) return false;
  auto parsed = Quantity::Parse(s);
  if (!parsed.ok()) return false;
  *out = *parsed;
  return true;
}

bool ReadFast(JsonReader& r, Time* out) {
  if (r.ConsumeNull()) return true;
  std::string scratch;
  std::string_view s;
  if (!r.ReadString(&s, &scratch)) return false;
  auto parsed = ParseTime(s);
  if (!parsed.ok()) return false;
  *out = *parsed;
  return true;
}

bool ReadFast(JsonReader& r, IntOrString* out) {
  if (r.ConsumeNull()) return true;
  if (r.Peek() == '"') {
    std::string scratch;
    std::string_view s;
    if (!r.ReadString(&s, &scratch)) return false;
    out->is_int = false;
    out->int_value = 0;
    out->str_value.assign(s);
    return true;
  }
  int64_t v = 0;
  if (!r.ReadInt(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), &v)) return false;
  out->is_int = true;
  out->int_value = static_cast<int32_t>(v);
  out->str_value.clear();
  return true;
}

void Encode(const std::string& in, nlohmann::json* out) { *out = in; }
void Encode(bool in, nlohmann::json* out) { *out = in; }
void Encode(int32_t in, nlohmann::json* out) { *out = in; }
void Encode(int64_t in, nlohmann::json* out) { *out = in; }
void Encode(const Quantity& in, nlohmann::json* out) { *out = in.ToString(); }
void Encode(const Time& in, nlohmann::json* out) { *out = FormatTime(in); }

void Encode(const IntOrString& in, nlohmann::json* out) {
  if (in.is_int) {
    *out = in.int_value;
  } else {
    *out = in.str_value;
  }
}

void Write(JsonWriter& w, const std::string& in) { w.String(in); }
void Write(JsonWriter& w, bool in) { w.Bool(in); }
void Write(JsonWriter& w, int32_t in) { w.Int(in); }
void Write(JsonWriter& w, int64_t in) { w.Int(in); }
void Write(JsonWriter& w, const Quantity& in) { w.String(in.ToString()); }
void Write(JsonWriter& w, const Time& in) { w.String(FormatTime(in)); }

void Write(JsonWriter& w, const IntOrString& in) {
  if (in.is_int) {
    w.Int(in.int_value);
  } else {
    w.String(in.str_value);
  }
}

}  // namespace ksched::api
