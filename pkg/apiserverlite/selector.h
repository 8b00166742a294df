// ObjectFilter: what a list or watch request selects — a namespace, a
// labelSelector (pkg/api/labels.h syntax) and a fieldSelector over the field
// labels the resource supports (metadata.name, metadata.namespace and the
// per-resource fields of the resource table, e.g. spec.nodeName,
// spec.schedulerName, status.phase for pods), with "=", "==" and "!=".
//
// Immutable once created; Matches is safe to call from any thread. Cost:
// O(label requirements * log labels + field terms) per object.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/apiserverlite/api_error.h"
#include "pkg/apiserverlite/resources.h"
#include "pkg/api/labels.h"

namespace ksched::apiserver {

class ObjectFilter {
 public:
  // 400 BadRequest for a selector that does not parse or a field label the
  // resource does not support ("field label not supported: x").
  static ApiResult<ObjectFilter> Create(const ResourceInfo& info, std::string ns,
                                        std::string_view label_selector,
                                        std::string_view field_selector);

  bool Matches(const nlohmann::json& obj) const;
  // True when every object of the namespace matches (no selectors).
  bool SelectsAllInNamespace() const { return labels_.Empty() && fields_.empty(); }
  const std::string& ns() const { return namespace_; }
  // A self-contained predicate (copies the filter) for WatchOptions.
  std::function<bool(const nlohmann::json&)> AsPredicate() const;

 private:
  struct FieldTerm {
    std::vector<std::string> path;  // {"spec", "nodeName"}
    std::string default_value;
    bool equals = true;
    std::string value;
  };

  std::string namespace_;
  api::Selector labels_;
  // The label keys labels_ mentions: only these are copied out of an object
  // for matching.
  std::vector<std::string> label_keys_;
  std::vector<FieldTerm> fields_;
};

}  // namespace ksched::apiserver
