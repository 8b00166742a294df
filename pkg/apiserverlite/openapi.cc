#include "pkg/apiserverlite/openapi.h"

#include <fmt/format.h>

#include <functional>
#include <set>
#include <string>

namespace ksched::apiserver {

namespace {

using nlohmann::json;

json QueryParam(const char* name) {
  return {{"name", name}, {"in", "query"}, {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

json PathParam(const char* name) {
  return {{"name", name}, {"in", "path"}, {"required", true}, {"schema", {{"type", "string"}}}};
}

json Operation(const ResourceInfo& info, const char* action, const std::string& id,
               std::initializer_list<const char*> query) {
  json params = json::array();
  for (const char* q : query) params.push_back(QueryParam(q));
  return {{"operationId", id},
          {"parameters", params},
          {"responses", {{"200", {{"description", "OK"}}}}},
          {"x-kubernetes-action", action},
          {"x-kubernetes-group-version-kind",
           {{"group", info.group}, {"version", info.version}, {"kind", info.kind}}}};
}

std::string Prefix(std::string_view group, std::string_view version) {
  return group.empty() ? fmt::format("/api/{}", version)
                       : fmt::format("/apis/{}/{}", group, version);
}

}  // namespace

json OpenApiV3Document(const ResourceTable& table, std::string_view group,
                       std::string_view version) {
  json paths = json::object();
  bool found = false;
  for (const ResourceInfo* entry : table.resources()) {
    const ResourceInfo& info = *entry;
    if (info.group != group || info.version != version) continue;
    found = true;
    std::string base = Prefix(group, version);
    if (info.namespaced) base += "/namespaces/{namespace}";
    base += "/" + info.plural;
    std::string id = info.kind + (info.group.empty() ? "" : "." + info.group);
    json collection = {
        {"get", Operation(info, "list", "list" + id,
                          {"labelSelector", "fieldSelector", "limit", "continue",
                           "resourceVersion", "resourceVersionMatch", "watch",
                           "allowWatchBookmarks", "timeoutSeconds", "sendInitialEvents"})},
        {"post", Operation(info, "post", "create" + id,
                           {"dryRun", "fieldManager", "fieldValidation"})},
        {"delete", Operation(info, "deletecollection", "deleteCollection" + id,
                             {"labelSelector", "fieldSelector", "dryRun",
                              "gracePeriodSeconds", "propagationPolicy"})}};
    json item = {
        {"get", Operation(info, "get", "read" + id, {})},
        {"put", Operation(info, "put", "replace" + id,
                          {"dryRun", "fieldManager", "fieldValidation"})},
        {"patch", Operation(info, "patch", "patch" + id,
                            {"dryRun", "fieldManager", "fieldValidation", "force"})},
        {"delete", Operation(info, "delete", "delete" + id,
                             {"dryRun", "gracePeriodSeconds", "propagationPolicy"})}};
    json params = json::array({PathParam("name")});
    if (info.namespaced) {
      collection["parameters"] = json::array({PathParam("namespace")});
      params.push_back(PathParam("namespace"));
    }
    item["parameters"] = params;
    paths[base] = std::move(collection);
    paths[base + "/{name}"] = item;
    for (const auto& sub : info.subresources) {
      json ops = json::object();
      if (sub == "binding") {
        ops["post"] = Operation(info, "post", "create" + id + "Binding",
                                {"dryRun", "fieldManager", "fieldValidation"});
      } else {
        ops["get"] = Operation(info, "get", "read" + id + "Status", {});
        ops["put"] = Operation(info, "put", "replace" + id + "Status",
                               {"dryRun", "fieldManager", "fieldValidation"});
        ops["patch"] = Operation(info, "patch", "patch" + id + "Status",
                                 {"dryRun", "fieldManager", "fieldValidation", "force"});
      }
      ops["parameters"] = params;
      paths[base + "/{name}/" + sub] = std::move(ops);
    }
  }
  if (!found) return nullptr;
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes (kube-apiserver-lite)"}, {"version", "v1.34.0"}}},
          {"paths", paths},
          {"components", {{"schemas", json::object()}}}};
}

json OpenApiV3Index(const ResourceTable& table) {
  json paths = json::object();
  std::set<std::pair<std::string, std::string>> seen;
  for (const ResourceInfo* entry : table.resources()) {
    const ResourceInfo& info = *entry;
    if (!seen.insert({info.group, info.version}).second) continue;
    std::string key = Prefix(info.group, info.version).substr(1);
    std::string doc = OpenApiV3Document(table, info.group, info.version).dump();
    paths[key] = {{"serverRelativeURL",
                   fmt::format("/openapi/v3/{}?hash={:016X}", key, std::hash<std::string>{}(doc))}};
  }
  return {{"paths", paths}};
}

}  // namespace ksched::apiserver
