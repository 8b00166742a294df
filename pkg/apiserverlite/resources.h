// The resource table: every REST resource kube-apiserver-lite serves, with
// what routing, defaulting, field selectors and discovery need to know.
//
// The table is built once (ResourceTable::Default()) and never changes, so
// any thread may read it without locking; pointers into it stay valid for the
// life of the process.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ksched::apiserver {

// A field usable in a fieldSelector, e.g. "spec.nodeName".
struct FieldLabel {
  std::string name;           // as written in the selector
  std::string path;           // JSON pointer into the object, e.g. "/spec/nodeName"
  std::string default_value;  // value of an absent field ("false" for booleans)
};

struct ResourceInfo {
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string kind;     // "Pod"
  std::string plural;   // "pods"
  std::string singular;
  bool namespaced = false;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  // Writable subresources besides the object itself: "status", "binding".
  std::vector<std::string> subresources;
  // Field selectors accepted besides metadata.name and metadata.namespace.
  std::vector<FieldLabel> field_labels;
  // Non-empty when this resource is a view of another resource's storage
  // (events.k8s.io/v1 events live in the core v1 events store).
  std::string storage_plural;
  std::string storage_group;

  bool HasSubresource(std::string_view name) const;
  // True when writes to the object itself keep the stored status (the
  // resource has a status subresource).
  bool HasStatus() const { return HasSubresource("status"); }
  // "v1" or "policy/v1".
  std::string ApiVersion() const;
  // "pods" or "leases.coordination.k8s.io": the name error messages use.
  std::string QualifiedResource() const;
  // Key of the ObjectStore holding this resource's objects ("events",
  // "coordination.k8s.io/leases").
  std::string StorageKey() const;
  // The supported field label with that name, or nullptr.
  const FieldLabel* FindFieldLabel(std::string_view name) const;
};

class ResourceTable {
 public:
  // Every resource served: namespaces, pods, nodes, persistentvolumes,
  // persistentvolumeclaims, events (core and events.k8s.io), storageclasses,
  // csinodes, csidrivers, csistoragecapacities, volumeattachments,
  // poddisruptionbudgets, priorityclasses, leases, services,
  // replicationcontrollers, replicasets, statefulsets, and resource.k8s.io's
  // deviceclasses, resourceclaims (with status), resourceclaimtemplates,
  // resourceslices.
  static const ResourceTable& Default();

  explicit ResourceTable(std::vector<ResourceInfo> resources);

  const std::vector<ResourceInfo>& resources() const { return resources_; }
  const ResourceInfo* Find(std::string_view group, std::string_view version,
                           std::string_view plural) const;

  // Discovery documents (legacy, non-aggregated form).
  // /api: APIVersions. `server_address` is "host:port".
  nlohmann::json CoreApiVersions(const std::string& server_address) const;
  // /apis: APIGroupList.
  nlohmann::json ApiGroupList() const;
  // /apis/GROUP: APIGroup, or null when the group is unknown.
  nlohmann::json ApiGroup(std::string_view group) const;
  // /api/v1 and /apis/GROUP/VERSION: APIResourceList, or null when unknown.
  nlohmann::json ApiResourceList(std::string_view group, std::string_view version) const;

 private:
  std::vector<ResourceInfo> resources_;
};

}  // namespace ksched::apiserver
