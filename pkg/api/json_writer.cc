#include "pkg/api/json_writer.h"

#include <charconv>

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
  static constexpr char kHex[] = "0123456789abcdef";
  out->reserve(out->size() + s.size() + 2);
  out->push_back('"');
  size_t plain = 0;  // start of the run of bytes that need no escape
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + plain, i - plain);
    plain = i + 1;
    out->push_back('\\');
    switch (c) {
      case '"': out->push_back('"'); break;
      case '\\': out->push_back('\\'); break;
      case '\b': out->push_back('b'); break;
      case '\f': out->push_back('f'); break;
      case '\n': out->push_back('n'); break;
      case '\r': out->push_back('r'); break;
      case '\t': out->push_back('t'); break;
      default:
        out->append("u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 0xf]);
    }
  }
  out->append(s.data() + plain, s.size() - plain);
  out->push_back('"');
}

}  // namespace ksched::api
