#include "pkg/apiserverlite/resources.h"

#include <algorithm>
#include <mutex>
#include <set>

namespace ksched::apiserver {

bool ResourceInfo::HasSubresource(std::string_view name) const {
  return std::find(subresources.begin(), subresources.end(), name) != subresources.end();
}

std::string ResourceInfo::ApiVersion() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceInfo::QualifiedResource() const {
  return group.empty() ? plural : plural + "." + group;
}

std::string ResourceInfo::StorageKey() const {
  if (!storage_plural.empty()) {
    return storage_group.empty() ? storage_plural : storage_group + "/" + storage_plural;
  }
  return group.empty() ? plural : group + "/" + plural;
}

const FieldLabel* ResourceInfo::FindFieldLabel(std::string_view name) const {
  for (const auto& f : field_labels) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const ResourceTable& ResourceTable::Default() {
  static const ResourceTable* table = [] {
    std::vector<ResourceInfo> r;
    r.push_back({"", "v1", "Namespace", "namespaces", "namespace", false, {"ns"}, {},
                 {"status"}, {{"status.phase", "/status/phase", ""}}, "", ""});
    r.push_back({"", "v1", "Pod", "pods", "pod", true, {"po"}, {"all"}, {"status", "binding"},
                 {{"spec.nodeName", "/spec/nodeName", ""},
                  {"spec.schedulerName", "/spec/schedulerName", ""},
                  {"spec.restartPolicy", "/spec/restartPolicy", ""},
                  {"spec.serviceAccountName", "/spec/serviceAccountName", ""},
                  {"spec.hostNetwork", "/spec/hostNetwork", "false"},
                  {"status.phase", "/status/phase", ""},
                  {"status.podIP", "/status/podIP", ""},
                  {"status.nominatedNodeName", "/status/nominatedNodeName", ""}},
                 "", ""});
    r.push_back({"", "v1", "Node", "nodes", "node", false, {"no"}, {}, {"status"},
                 {{"spec.unschedulable", "/spec/unschedulable", "false"}}, "", ""});
    r.push_back({"", "v1", "PersistentVolume", "persistentvolumes", "persistentvolume", false,
                 {"pv"}, {}, {"status"}, {}, "", ""});
    r.push_back({"", "v1", "PersistentVolumeClaim", "persistentvolumeclaims",
                 "persistentvolumeclaim", true, {"pvc"}, {}, {"status"}, {}, "", ""});
    r.push_back({"", "v1", "Event", "events", "event", true, {"ev"}, {}, {},
                 {{"involvedObject.kind", "/involvedObject/kind", ""},
                  {"involvedObject.namespace", "/involvedObject/namespace", ""},
                  {"involvedObject.name", "/involvedObject/name", ""},
                  {"involvedObject.uid", "/involvedObject/uid", ""},
                  {"involvedObject.apiVersion", "/involvedObject/apiVersion", ""},
                  {"involvedObject.resourceVersion", "/involvedObject/resourceVersion", ""},
                  {"involvedObject.fieldPath", "/involvedObject/fieldPath", ""},
                  {"reason", "/reason", ""},
                  {"reportingComponent", "/reportingComponent", ""},
                  {"source", "/source/component", ""},
                  {"type", "/type", ""}},
                 "", ""});
    r.push_back({"events.k8s.io", "v1", "Event", "events", "event", true, {"ev"}, {}, {},
                 {{"regarding.kind", "/regarding/kind", ""},
                  {"regarding.namespace", "/regarding/namespace", ""},
                  {"regarding.name", "/regarding/name", ""},
                  {"regarding.uid", "/regarding/uid", ""},
                  {"reason", "/reason", ""},
                  {"reportingController", "/reportingController", ""},
                  {"type", "/type", ""}},
                 "events", ""});
    r.push_back({"storage.k8s.io", "v1", "StorageClass", "storageclasses", "storageclass", false,
                 {"sc"}, {}, {}, {}, "", ""});
    r.push_back({"storage.k8s.io", "v1", "CSINode", "csinodes", "csinode", false, {}, {}, {}, {},
                 "", ""});
    r.push_back({"storage.k8s.io", "v1", "CSIDriver", "csidrivers", "csidriver", false, {}, {},
                 {}, {}, "", ""});
    r.push_back({"storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities",
                 "csistoragecapacity", true, {}, {}, {}, {}, "", ""});
    r.push_back({"storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", "volumeattachment",
                 false, {}, {}, {"status"}, {}, "", ""});
    r.push_back({"policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets",
                 "poddisruptionbudget", true, {"pdb"}, {}, {"status"}, {}, "", ""});
    r.push_back({"scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", "priorityclass",
                 false, {"pc"}, {}, {}, {}, "", ""});
    r.push_back({"coordination.k8s.io", "v1", "Lease", "leases", "lease", true, {}, {}, {}, {},
                 "", ""});
    // What selects pods for PodTopologySpread's default constraints.
    r.push_back({"", "v1", "Service", "services", "service", true, {"svc"}, {"all"}, {"status"},
                 {}, "", ""});
    r.push_back({"", "v1", "ReplicationController", "replicationcontrollers",
                 "replicationcontroller", true, {"rc"}, {"all"}, {"status"}, {}, "", ""});
    r.push_back({"apps", "v1", "ReplicaSet", "replicasets", "replicaset", true, {"rs"}, {"all"},
                 {"status"}, {}, "", ""});
    r.push_back({"apps", "v1", "StatefulSet", "statefulsets", "statefulset", true, {"sts"},
                 {"all"}, {"status"}, {}, "", ""});
    // Registering one serves its custom resources (crd.h).
    r.push_back({"apiextensions.k8s.io", "v1", "CustomResourceDefinition",
                 "customresourcedefinitions", "customresourcedefinition", false, {"crd", "crds"},
                 {"api-extensions"}, {"status"}, {}, "", ""});
    // Dynamic Resource Allocation.
    r.push_back({"resource.k8s.io", "v1", "DeviceClass", "deviceclasses", "deviceclass", false, {}, {},
                 {}, {}, "", ""});
    r.push_back({"resource.k8s.io", "v1", "ResourceClaim", "resourceclaims", "resourceclaim", true, {},
                 {}, {"status"}, {}, "", ""});
    r.push_back({"resource.k8s.io", "v1", "ResourceClaimTemplate", "resourceclaimtemplates",
                 "resourceclaimtemplate", true, {}, {}, {}, {}, "", ""});
    r.push_back({"resource.k8s.io", "v1", "ResourceSlice", "resourceslices", "resourceslice", false,
                 {}, {}, {},
                 {{"spec.driver", "/spec/driver", ""}, {"spec.nodeName", "/spec/nodeName", ""}}, "",
                 ""});
    r.push_back({"resource.k8s.io", "v1", "DeviceTaintRule", "devicetaintrules", "devicetaintrule", false,
                 {}, {}, {"status"}, {}, "", ""});
    return new ResourceTable(std::move(r));
  }();
  return *table;
}

ResourceTable::ResourceTable(std::vector<ResourceInfo> resources)
    : entries_(std::make_move_iterator(resources.begin()),
               std::make_move_iterator(resources.end())) {
  for (const auto& e : entries_) served_.push_back(&e);
}

ResourceTable::ResourceTable(const ResourceTable& other) {
  std::shared_lock l(other.mu_);
  for (const ResourceInfo* r : other.served_) entries_.push_back(*r);
  for (const auto& e : entries_) served_.push_back(&e);
}

std::vector<const ResourceInfo*> ResourceTable::resources() const {
  std::shared_lock l(mu_);
  return served_;
}

const ResourceInfo* ResourceTable::Find(std::string_view group, std::string_view version,
                                        std::string_view plural) const {
  std::shared_lock l(mu_);
  for (const ResourceInfo* r : served_) {
    if (r->group == group && r->version == version && r->plural == plural) return r;
  }
  return nullptr;
}

bool ResourceTable::CanRegisterCustomLocked(const std::vector<ResourceInfo>& resources) const {
  if (resources.empty()) return false;
  for (const ResourceInfo* r : served_) {
    if (std::find(custom_.begin(), custom_.end(), r) != custom_.end()) continue;
    for (const auto& n : resources) {
      if (r->group != n.group) continue;
      if (r->plural == n.plural || (r->version == n.version && r->kind == n.kind)) return false;
    }
  }
  return true;
}

bool ResourceTable::CanRegisterCustom(const std::vector<ResourceInfo>& resources) const {
  std::shared_lock l(mu_);
  return CanRegisterCustomLocked(resources);
}

bool ResourceTable::RegisterCustom(std::vector<ResourceInfo> resources) {
  std::unique_lock l(mu_);
  if (!CanRegisterCustomLocked(resources)) return false;
  const std::string group = resources.front().group;
  const std::string plural = resources.front().plural;
  auto gone = [&](const ResourceInfo* r) {
    return r->group == group && r->plural == plural &&
           std::find(custom_.begin(), custom_.end(), r) != custom_.end();
  };
  std::erase_if(served_, gone);
  std::erase_if(custom_, gone);
  for (auto& n : resources) {
    entries_.push_back(std::move(n));
    served_.push_back(&entries_.back());
    custom_.push_back(&entries_.back());
  }
  return true;
}

void ResourceTable::UnregisterCustom(std::string_view group, std::string_view plural) {
  std::unique_lock l(mu_);
  auto gone = [&](const ResourceInfo* r) {
    return r->group == group && r->plural == plural &&
           std::find(custom_.begin(), custom_.end(), r) != custom_.end();
  };
  std::erase_if(served_, gone);
  std::erase_if(custom_, gone);
}

bool ResourceTable::IsCustom(const ResourceInfo& info) const {
  std::shared_lock l(mu_);
  return std::find(custom_.begin(), custom_.end(), &info) != custom_.end();
}

nlohmann::json ResourceTable::CoreApiVersions(const std::string& server_address) const {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs",
           {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

nlohmann::json ResourceTable::ApiGroupList() const {
  std::shared_lock l(mu_);
  nlohmann::json groups = nlohmann::json::array();
  std::set<std::string> seen;
  for (const ResourceInfo* r : served_) {
    if (r->group.empty() || !seen.insert(r->group).second) continue;
    groups.push_back(ApiGroupLocked(r->group));
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

// The group's versions in registration order; the first (for a custom
// resource: its storage version) is the preferred one.
nlohmann::json ResourceTable::ApiGroupLocked(std::string_view group) const {
  nlohmann::json versions = nlohmann::json::array();
  std::set<std::string> seen;
  for (const ResourceInfo* r : served_) {
    if (r->group != group || !seen.insert(r->version).second) continue;
    versions.push_back({{"groupVersion", r->group + "/" + r->version}, {"version", r->version}});
  }
  if (versions.empty()) return nullptr;
  return {{"name", std::string(group)}, {"versions", versions}, {"preferredVersion", versions[0]}};
}

nlohmann::json ResourceTable::ApiGroup(std::string_view group) const {
  if (group.empty()) return nullptr;
  std::shared_lock l(mu_);
  nlohmann::json g = ApiGroupLocked(group);
  if (g.is_null()) return g;
  g["kind"] = "APIGroup";
  g["apiVersion"] = "v1";
  return g;
}

nlohmann::json ResourceTable::ApiResourceList(std::string_view group,
                                              std::string_view version) const {
  std::shared_lock l(mu_);
  nlohmann::json list = nlohmann::json::array();
  bool found = false;
  for (const ResourceInfo* p : served_) {
    const ResourceInfo& r = *p;
    if (r.group != group || r.version != version) continue;
    found = true;
    nlohmann::json e = {{"name", r.plural},
                        {"singularName", r.singular},
                        {"namespaced", r.namespaced},
                        {"kind", r.kind},
                        {"verbs",
                         {"create", "delete", "deletecollection", "get", "list", "patch",
                          "update", "watch"}}};
    if (!r.short_names.empty()) e["shortNames"] = r.short_names;
    if (!r.categories.empty()) e["categories"] = r.categories;
    list.push_back(e);
    for (const auto& sub : r.subresources) {
      nlohmann::json s = {{"name", r.plural + "/" + sub},
                          {"singularName", ""},
                          {"namespaced", r.namespaced}};
      if (sub == "binding") {
        s["kind"] = "Binding";
        s["verbs"] = {"create"};
      } else {
        s["kind"] = r.kind;
        s["verbs"] = {"get", "patch", "update"};
      }
      list.push_back(s);
    }
  }
  if (group.empty() && version == "v1") {
    found = true;
    list.push_back({{"name", "bindings"},
                    {"singularName", "binding"},
                    {"namespaced", true},
                    {"kind", "Binding"},
                    {"verbs", {"create"}}});
  }
  if (!found) return nullptr;
  std::string gv = group.empty() ? std::string(version) : std::string(group) + "/" +
                                                              std::string(version);
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", gv},
          {"resources", list}};
}

}  // namespace ksched::apiserver
