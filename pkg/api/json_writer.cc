#include "pkg/api/json_writer.h"

#include <charconv>

#include "pkg/util/json_escape.h"

namespace ksched::api {

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_->push_back(',');
  first_.back() = false;
}

void JsonWriter::BeginObject() {
  BeforeValue();
  out_->push_back('{');
  const bool outermost = first_.empty();
  first_.push_back(true);
  if (outermost && !first_members_.empty()) {
    out_->append(first_members_);
    first_.back() = false;
  }
}

void JsonWriter::EndObject() {
  first_.pop_back();
  out_->push_back('}');
}

void JsonWriter::BeginArray() {
  BeforeValue();
  out_->push_back('[');
  first_.push_back(true);
}

void JsonWriter::EndArray() {
  first_.pop_back();
  out_->push_back(']');
}

void JsonWriter::Key(std::string_view key) {
  if (!first_.back()) out_->push_back(',');
  first_.back() = false;
  AppendQuoted(key, out_);
  out_->push_back(':');
  after_key_ = true;
}

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  AppendQuoted(s, out_);
}

void JsonWriter::Int(int64_t v) {
  BeforeValue();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out_->append(buf, end);
}

void JsonWriter::Bool(bool v) {
  BeforeValue();
  out_->append(v ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  out_->append("null");
}

void JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_->append(json);
}

void JsonWriter::AppendQuoted(std::string_view s, std::string* out) {
  out->reserve(out->size() + s.size() + 2);
  out->push_back('"');
  util::AppendJsonEscaped(*out, s);
  out->push_back('"');
}

}  // namespace ksched::api
