// The resource table: every REST resource kube-apiserver-lite serves, with
// what routing, defaulting, field selectors and discovery need to know.
//
// ResourceTable::Default() holds the built-in resources and never changes. A
// server copies it and then registers custom resources into its copy (from
// CustomResourceDefinitions, crd.h) and unregisters them again.
//
// Thread-safety: every method may be called from any thread (a
// reader-writer lock). Entries are never freed while the table lives: a
// pointer returned by Find or resources() stays valid even after its
// resource is unregistered, so a request or watch that resolved a resource
// keeps working on the entry it resolved.
#pragma once

#include <nlohmann/json.hpp>

#include <deque>
#include <shared_mutex>
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
  // The built-in resources: namespaces, pods, nodes, persistentvolumes,
  // persistentvolumeclaims, events (core and events.k8s.io), storageclasses,
  // csinodes, csidrivers, csistoragecapacities, volumeattachments,
  // poddisruptionbudgets, priorityclasses, leases, services,
  // replicationcontrollers, replicasets, statefulsets,
  // customresourcedefinitions, and resource.k8s.io's deviceclasses,
  // resourceclaims (with status), resourceclaimtemplates, resourceslices.
  static const ResourceTable& Default();

  explicit ResourceTable(std::vector<ResourceInfo> resources);
  // Copies the resources served now (as built-ins of the copy).
  ResourceTable(const ResourceTable& other);
  ResourceTable& operator=(const ResourceTable&) = delete;

  // The resources served now, in registration order. O(n).
  std::vector<const ResourceInfo*> resources() const;
  // O(n) over the served resources.
  const ResourceInfo* Find(std::string_view group, std::string_view version,
                           std::string_view plural) const;

  // Serves `resources` (custom resources: all of one group and plural, the
  // versions of one CRD), replacing what was registered for that group and
  // plural before. Refused (false) when a built-in resource has the same
  // group and plural or the same group, version and kind.
  bool RegisterCustom(std::vector<ResourceInfo> resources);
  // Whether RegisterCustom would accept `resources`.
  bool CanRegisterCustom(const std::vector<ResourceInfo>& resources) const;
  // Stops serving the custom resources of `group` and `plural` (no-op when
  // none).
  void UnregisterCustom(std::string_view group, std::string_view plural);
  // Whether `info` is a custom resource of this table.
  bool IsCustom(const ResourceInfo& info) const;

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
  // Only the discovery functions call these, with mu_ held.
  nlohmann::json ApiGroupLocked(std::string_view group) const;
  bool CanRegisterCustomLocked(const std::vector<ResourceInfo>& resources) const;

  mutable std::shared_mutex mu_;
  std::deque<ResourceInfo> entries_;         // every entry ever added; never shrinks
  std::vector<const ResourceInfo*> served_;  // into entries_
  std::vector<const ResourceInfo*> custom_;  // the served custom ones
};

}  // namespace ksched::apiserver
