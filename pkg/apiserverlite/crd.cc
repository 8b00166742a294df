#include "pkg/apiserverlite/crd.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "pkg/apiserverlite/meta.h"

namespace ksched::apiserver {

namespace {

using nlohmann::json;

constexpr const char* kKind = "CustomResourceDefinition";

std::string StringAt(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<std::string> StringList(const json& obj, const char* key) {
  std::vector<std::string> out;
  if (!obj.is_object()) return out;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

ApiResult<std::vector<ResourceInfo>> CustomResourcesOf(const json& crd) {
  const std::string name = ObjectName(crd);
  auto invalid = [&](const std::string& field, const char* reason, const std::string& detail) {
    return InvalidError(kKind, name, field, reason, detail);
  };
  const json spec = crd.is_object() ? crd.value("spec", json()) : json();
  if (!spec.is_object()) return invalid("spec", "FieldValueRequired", "");
  const std::string group = StringAt(spec, "group");
  if (group.empty()) return invalid("spec.group", "FieldValueRequired", "");
  if (!IsDnsSubdomain(group) || group.find('.') == std::string::npos) {
    return invalid("spec.group", "FieldValueInvalid",
                   fmt::format("\"{}\": should be a domain with at least one dot", group));
  }
  const json names = spec.value("names", json());
  const std::string plural = StringAt(names, "plural");
  const std::string kind = StringAt(names, "kind");
  if (plural.empty()) return invalid("spec.names.plural", "FieldValueRequired", "");
  if (!IsDnsLabel(plural) || plural != Lower(plural)) {
    return invalid("spec.names.plural", "FieldValueInvalid",
                   fmt::format("\"{}\": a lowercase RFC 1123 label is required", plural));
  }
  if (kind.empty()) return invalid("spec.names.kind", "FieldValueRequired", "");
  std::string singular = StringAt(names, "singular");
  if (singular.empty()) singular = Lower(kind);
  if (!IsDnsLabel(singular)) {
    return invalid("spec.names.singular", "FieldValueInvalid",
                   fmt::format("\"{}\": a lowercase RFC 1123 label is required", singular));
  }
  if (name != plural + "." + group) {
    return invalid("metadata.name", "FieldValueInvalid",
                   fmt::format("\"{}\": must be spec.names.plural+\".\"+spec.group", name));
  }
  const std::string scope = StringAt(spec, "scope");
  if (scope != "Namespaced" && scope != "Cluster") {
    return invalid("spec.scope", "FieldValueNotSupported",
                   fmt::format("\"{}\": supported values: \"Cluster\", \"Namespaced\"", scope));
  }
  auto versions = spec.find("versions");
  if (versions == spec.end() || !versions->is_array() || versions->empty()) {
    return invalid("spec.versions", "FieldValueRequired", "");
  }

  ResourceInfo base;
  base.group = group;
  base.kind = kind;
  base.plural = plural;
  base.singular = singular;
  base.namespaced = scope == "Namespaced";
  base.short_names = StringList(names, "shortNames");
  base.categories = StringList(names, "categories");

  std::vector<ResourceInfo> served;
  std::set<std::string> seen;
  int storage_versions = 0;
  std::string storage_version;
  for (size_t i = 0; i < versions->size(); ++i) {
    const json& v = (*versions)[i];
    const std::string field = fmt::format("spec.versions[{}]", i);
    const std::string version = StringAt(v, "name");
    if (version.empty() || !IsDnsLabel(version)) {
      return invalid(field + ".name", version.empty() ? "FieldValueRequired" : "FieldValueInvalid",
                     version.empty() ? "" : fmt::format("\"{}\": a DNS-1035 label is required",
                                                        version));
    }
    if (!seen.insert(version).second) {
      return invalid(field + ".name", "FieldValueInvalid",
                     fmt::format("\"{}\": must appear only once", version));
    }
    const bool storage = v.is_object() && v.value("storage", false) == true;
    const bool is_served = v.is_object() && v.value("served", false) == true;
    if (storage) {
      ++storage_versions;
      storage_version = version;
    }
    if (!is_served) continue;
    ResourceInfo info = base;
    info.version = version;
    const json subresources = v.value("subresources", json());
    if (subresources.is_object() && subresources.contains("status")) {
      info.subresources.push_back("status");
    }
    if (storage) {
      served.insert(served.begin(), std::move(info));
    } else {
      served.push_back(std::move(info));
    }
  }
  if (storage_versions != 1) {
    return invalid("spec.versions", "FieldValueInvalid", "must have exactly one version marked as storage version");
  }
  if (served.empty()) {
    return invalid("spec.versions", "FieldValueInvalid", "must have at least one served version");
  }
  for (auto& info : served) {
    if (info.version == storage_version) continue;
    info.storage_group = group;
    info.storage_plural = plural;
  }
  return served;
}

void SetEstablishedStatus(json& crd, util::WallTime now) {
  const json& spec = crd["spec"];
  json accepted = spec.value("names", json::object());
  if (StringAt(accepted, "singular").empty()) accepted["singular"] = Lower(StringAt(accepted, "kind"));
  if (StringAt(accepted, "listKind").empty()) accepted["listKind"] = StringAt(accepted, "kind") + "List";
  json stored = json::array();
  for (const auto& v : spec.value("versions", json::array())) {
    if (v.is_object() && v.value("storage", false) == true) stored.push_back(StringAt(v, "name"));
  }
  const std::string t = FormatTime(now);
  crd["status"] = {
      {"conditions",
       {{{"type", "NamesAccepted"},
         {"status", "True"},
         {"reason", "NoConflicts"},
         {"message", "no conflicts found"},
         {"lastTransitionTime", t}},
        {{"type", "Established"},
         {"status", "True"},
         {"reason", "InitialNamesAccepted"},
         {"message", "the initial names have been accepted"},
         {"lastTransitionTime", t}}}},
      {"acceptedNames", accepted},
      {"storedVersions", stored}};
}

}  // namespace ksched::apiserver
