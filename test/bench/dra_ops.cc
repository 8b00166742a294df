#include "test/bench/dra_ops.h"

#include <fmt/format.h>

namespace ksched::bench {

using nlohmann::json;

namespace {

constexpr std::string_view kIndexPlaceholder = "{{.Index}}";

void ReplaceIndexIn(json& j, const std::string& index) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    bool replaced = false;
    for (size_t at = s.find(kIndexPlaceholder); at != std::string::npos;
         at = s.find(kIndexPlaceholder, at + index.size())) {
      s.replace(at, kIndexPlaceholder.size(), index);
      replaced = true;
    }
    if (replaced) j = std::move(s);
  } else if (j.is_structured()) {
    for (json& child : j) ReplaceIndexIn(child, index);
  }
}

std::string NameOf(const json& obj) {
  return obj.contains("metadata") ? obj["metadata"].value("name", std::string()) : std::string();
}

}  // namespace

json InstantiateIndexed(const json& tmpl, int64_t index) {
  json obj = tmpl;
  ReplaceIndexIn(obj, std::to_string(index));
  return obj;
}

util::StatusOr<std::vector<json>> AllocateRoundRobin(const std::vector<json>& claims, const std::vector<json>& slices) {
  std::vector<json> out;
  if (claims.empty()) return out;
  if (slices.empty()) return util::InvalidArgument("allocResourceClaims: no ResourceSlice to allocate from");
  out.reserve(claims.size());
  for (size_t i = 0; i < claims.size(); ++i) {
    const json& slice = slices[i % slices.size()];
    const size_t d = i / slices.size();
    const json& spec = slice.value("spec", json::object());
    const json devices = spec.value("devices", json::array());
    if (d >= devices.size()) {
      return util::InvalidArgument(fmt::format("allocResourceClaims: {} claims do not fit {} slices of {} devices",
                                               claims.size(), slices.size(), devices.size()));
    }
    const std::string node = spec.value("nodeName", std::string());
    if (node.empty()) return util::InvalidArgument("allocResourceClaims: slice " + NameOf(slice) + " has no node");
    json claim = claims[i];
    const json requests = claim.value("spec", json::object()).value("devices", json::object()).value("requests", json::array());
    if (requests.empty()) return util::InvalidArgument("allocResourceClaims: claim " + NameOf(claim) + " has no request");
    claim["status"]["allocation"] = {
        {"devices",
         {{"results", json::array({{{"request", requests[0].value("name", std::string())},
                                    {"driver", spec.value("driver", std::string())},
                                    {"pool", spec.value("pool", json::object()).value("name", std::string())},
                                    {"device", devices[d].value("name", std::string())}}})}}},
        {"nodeSelector",
         {{"nodeSelectorTerms",
           json::array({{{"matchFields", json::array({{{"key", "metadata.name"},
                                                         {"operator", "In"},
                                                         {"values", json::array({node})}}})}}})}}}};
    out.push_back(std::move(claim));
  }
  return out;
}

util::StatusOr<std::vector<json>> ClaimsFromTemplates(json& pod, const std::map<std::string, json>& templates) {
  std::vector<json> claims;
  json& spec = pod["spec"];
  if (!spec.contains("resourceClaims")) return claims;
  const std::string pod_name = pod["metadata"].value("name", std::string());
  const std::string ns = pod["metadata"].value("namespace", std::string());
  for (json& entry : spec["resourceClaims"]) {
    if (!entry.contains("resourceClaimTemplateName")) continue;
    const std::string tmpl_name = entry["resourceClaimTemplateName"].get<std::string>();
    auto t = templates.find(ns + "/" + tmpl_name);
    if (t == templates.end()) {
      return util::NotFound(fmt::format("pod {}/{}: ResourceClaimTemplate {} not found", ns, pod_name, tmpl_name));
    }
    const json& tspec = t->second.value("spec", json::object());
    json meta = {{"name", pod_name + "-" + entry.value("name", std::string())}, {"namespace", ns}};
    const json tmeta = tspec.value("metadata", json::object());
    for (const char* k : {"labels", "annotations"}) {
      if (tmeta.contains(k)) meta[k] = tmeta[k];
    }
    claims.push_back({{"apiVersion", "resource.k8s.io/v1"},
                      {"kind", "ResourceClaim"},
                      {"metadata", meta},
                      {"spec", tspec.value("spec", json::object())}});
    entry.erase("resourceClaimTemplateName");
    entry["resourceClaimName"] = meta["name"];
  }
  return claims;
}

}  // namespace ksched::bench
