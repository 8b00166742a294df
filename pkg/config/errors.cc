#include "pkg/config/errors.h"

#include <nlohmann/json.hpp>

namespace ksched::config {

std::string FieldError::ToString() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (pos.known()) out += ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
    out += ": ";
  } else if (pos.known()) {
    out += std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": ";
  }
  if (!field.empty()) out += field + ": ";
  out += detail;
  return out;
}

std::string JoinErrors(const ErrorList& errors) {
  std::string out;
  for (const FieldError& e : errors) {
    if (!out.empty()) out += "\n";
    out += e.ToString();
  }
  return out;
}

// Never throws: bytes that are not UTF-8 print as U+FFFD.
std::string Quote(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string QuoteList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += Quote(values[i]);
  }
  return out + "]";
}

FieldError Invalid(std::string field, std::string_view value, std::string_view detail) {
  std::string d = "Invalid value: " + std::string(value);
  if (!detail.empty()) d += ": " + std::string(detail);
  return FieldError{ErrorType::kInvalid, std::move(field), std::move(d), {}, {}};
}

FieldError Required(std::string field, std::string_view detail) {
  std::string d = "Required value";
  if (!detail.empty()) d += ": " + std::string(detail);
  return FieldError{ErrorType::kRequired, std::move(field), std::move(d), {}, {}};
}

FieldError Duplicate(std::string field, std::string_view value) {
  return FieldError{ErrorType::kDuplicate, std::move(field), "Duplicate value: " + std::string(value), {}, {}};
}

FieldError NotSupported(std::string field, std::string_view value, const std::vector<std::string>& supported,
                        std::string_view detail) {
  std::string d = "Unsupported value: " + std::string(value);
  if (!detail.empty()) d += ": " + std::string(detail);
  if (!supported.empty()) {
    d += ": supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) d += ", ";
      d += Quote(supported[i]);
    }
  }
  return FieldError{ErrorType::kNotSupported, std::move(field), std::move(d), {}, {}};
}

FieldError Forbidden(std::string field, std::string_view detail) {
  return FieldError{ErrorType::kForbidden, std::move(field), "Forbidden: " + std::string(detail), {}, {}};
}

std::string_view ParentPath(std::string_view path) {
  if (path.empty()) return path;
  if (path.back() == ']') {
    size_t open = path.rfind('[');
    return open == std::string_view::npos ? std::string_view() : path.substr(0, open);
  }
  size_t dot = path.rfind('.');
  size_t open = path.rfind('[');
  // "a[0]" has no dot after its index; "a.b" ends in a name.
  if (dot == std::string_view::npos) return std::string_view();
  if (open != std::string_view::npos && open > dot) return path.substr(0, open);
  return path.substr(0, dot);
}

void ConfigSource::Record(const std::string& path, SourcePos pos) { positions_.insert_or_assign(path, pos); }

SourcePos ConfigSource::Lookup(std::string_view path) const {
  while (true) {
    auto it = positions_.find(path);
    if (it != positions_.end()) return it->second;
    if (path.empty()) return SourcePos{};
    path = ParentPath(path);
  }
}

bool ConfigSource::Has(std::string_view path) const { return positions_.find(path) != positions_.end(); }

void ConfigSource::Locate(FieldError* e) const {
  if (e->file.empty()) e->file = file_;
  if (!e->pos.known()) e->pos = Lookup(e->field);
}

}  // namespace ksched::config
