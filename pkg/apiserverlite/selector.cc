#include "pkg/apiserverlite/selector.h"

#include <memory>

namespace ksched::apiserver {

namespace {

std::vector<std::string> SplitPointer(const std::string& pointer) {
  std::vector<std::string> out;
  size_t start = 1;
  while (start <= pointer.size()) {
    size_t slash = pointer.find('/', start);
    if (slash == std::string::npos) slash = pointer.size();
    out.push_back(pointer.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

std::string FieldValue(const nlohmann::json& obj, const std::vector<std::string>& path,
                       const std::string& default_value) {
  const nlohmann::json* cur = &obj;
  for (const auto& token : path) {
    if (!cur->is_object()) return default_value;
    auto it = cur->find(token);
    if (it == cur->end()) return default_value;
    cur = &*it;
  }
  if (cur->is_string()) return cur->get<std::string>();
  if (cur->is_null()) return default_value;
  if (cur->is_boolean()) return cur->get<bool>() ? "true" : "false";
  return cur->dump();
}

}  // namespace

ApiResult<ObjectFilter> ObjectFilter::Create(const ResourceInfo& info, std::string ns,
                                             std::string_view label_selector,
                                             std::string_view field_selector) {
  ObjectFilter filter;
  filter.namespace_ = std::move(ns);
  auto labels = api::Selector::Parse(label_selector);
  if (!labels.ok()) {
    return BadRequestError(labels.status().message());
  }
  filter.labels_ = std::move(labels.value());
  for (const auto& req : filter.labels_.requirements()) filter.label_keys_.push_back(req.key());
  auto fields = api::FieldSelector::Parse(field_selector);
  if (!fields.ok()) {
    return BadRequestError(fields.status().message());
  }
  for (const auto& req : fields->requirements()) {
    FieldTerm term;
    if (req.field == "metadata.name") {
      term.path = {"metadata", "name"};
    } else if (req.field == "metadata.namespace") {
      term.path = {"metadata", "namespace"};
    } else if (const FieldLabel* label = info.FindFieldLabel(req.field)) {
      term.path = SplitPointer(label->path);
      term.default_value = label->default_value;
    } else {
      return BadRequestError("field label not supported: " + req.field);
    }
    term.equals = req.equals;
    term.value = req.value;
    filter.fields_.push_back(std::move(term));
  }
  return filter;
}

bool ObjectFilter::Matches(const nlohmann::json& obj) const {
  if (!namespace_.empty()) {
    auto m = obj.find("metadata");
    if (m == obj.end() || !m->is_object()) return false;
    auto ns = m->find("namespace");
    if (ns == m->end() || !ns->is_string() || ns->get_ref<const std::string&>() != namespace_) {
      return false;
    }
  }
  for (const auto& term : fields_) {
    bool eq = FieldValue(obj, term.path, term.default_value) == term.value;
    if (eq != term.equals) return false;
  }
  if (labels_.Empty()) return true;
  api::StringMap labels;
  auto m = obj.find("metadata");
  if (m != obj.end() && m->is_object()) {
    auto l = m->find("labels");
    if (l != m->end() && l->is_object()) {
      for (const auto& key : label_keys_) {
        auto v = l->find(key);
        if (v != l->end() && v->is_string()) labels.emplace(key, v->get<std::string>());
      }
    }
  }
  return labels_.Matches(labels);
}

std::function<bool(const nlohmann::json&)> ObjectFilter::AsPredicate() const {
  auto self = std::make_shared<const ObjectFilter>(*this);
  return [self](const nlohmann::json& obj) { return self->Matches(obj); };
}

}  // namespace ksched::apiserver
