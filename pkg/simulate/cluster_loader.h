// ClusterLoader: reads a cluster snapshot from the files `kubectl get ...
// -o yaml|json` writes — a `List` (or `<Kind>List`) with `items`,
// multi-document YAML, or single objects, in .yaml/.yml/.json files or in
// folders of them (read recursively, in name order).
//
// Kinds kept (what the scheduler's informers feed it): Node, Pod,
// Namespace, PersistentVolume, PersistentVolumeClaim, StorageClass,
// CSINode, CSIDriver, CSIStorageCapacity, VolumeAttachment,
// PodDisruptionBudget, Service, ReplicationController, ReplicaSet,
// StatefulSet (PodTopologySpread's default selector reads them),
// DRA's DeviceClass, ResourceClaim, ResourceClaimTemplate and ResourceSlice
// (resource.k8s.io/v1), scheduler-plugins' PodGroup
// (scheduling.x-k8s.io/v1alpha1, for Coscheduling; a PodGroup of another API
// group is skipped), and PriorityClass (its value fills spec.priority of pods
// that lack one, as the API server's admission would). Any other kind is
// skipped with a warning naming file:line (one
// per kind and file, with the count).
// Pods in phase Succeeded or Failed are dropped, as the daemon's pod
// informer filters them out.
//
// Errors: a file that does not parse, or an object whose field does not
// decode, is an error naming the file, the line of the offending field
// (found by walking the field path the decoder reports through the YAML
// tree) and the field path, e.g.
//   "snap.yaml:14: Pod default/web: spec.containers[0].resources.requests.cpu: quantities must match ..."
// The first error stops the load.
//
// Normalisation applied by Finish(): namespaced objects without a namespace
// get "default"; objects without a uid get "<kind>/<namespace>/<name>";
// pods without schedulerName get "default-scheduler"; a device request (or
// firstAvailable subrequest) of a claim or template without allocationMode
// gets ExactCount, and an ExactCount one without count gets 1, as the API
// server defaults them; an object seen twice
// (same kind, namespace and name) keeps the later copy, with a warning.
//
// Thread-safety: one thread at a time. Cost: linear in the input.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/podgroup.h"
#include "pkg/api/resource_types.h"
#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::simulate {

struct ClusterObjects {
  std::vector<std::shared_ptr<const api::Node>> nodes;
  std::vector<std::shared_ptr<const api::Pod>> pods;  // bound and pending
  std::vector<std::shared_ptr<const api::Namespace>> namespaces;
  std::vector<std::shared_ptr<const api::PersistentVolume>> persistent_volumes;
  std::vector<std::shared_ptr<const api::PersistentVolumeClaim>> persistent_volume_claims;
  std::vector<std::shared_ptr<const api::StorageClass>> storage_classes;
  std::vector<std::shared_ptr<const api::CSINode>> csi_nodes;
  std::vector<std::shared_ptr<const api::CSIDriver>> csi_drivers;
  std::vector<std::shared_ptr<const api::CSIStorageCapacity>> csi_storage_capacities;
  std::vector<std::shared_ptr<const api::VolumeAttachment>> volume_attachments;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pod_disruption_budgets;
  // PodTopologySpread's default selector.
  std::vector<std::shared_ptr<const api::Service>> services;
  std::vector<std::shared_ptr<const api::ReplicationController>> replication_controllers;
  std::vector<std::shared_ptr<const api::ReplicaSet>> replica_sets;
  std::vector<std::shared_ptr<const api::StatefulSet>> stateful_sets;
  // Dynamic Resource Allocation.
  std::vector<std::shared_ptr<const api::DeviceClass>> device_classes;
  std::vector<std::shared_ptr<const api::ResourceClaim>> resource_claims;
  std::vector<std::shared_ptr<const api::ResourceClaimTemplate>> resource_claim_templates;
  std::vector<std::shared_ptr<const api::ResourceSlice>> resource_slices;
  std::vector<std::shared_ptr<const api::DeviceTaintRule>> device_taint_rules;
  // Coscheduling's gangs.
  std::vector<std::shared_ptr<const api::PodGroup>> pod_groups;
};

class ClusterLoader {
 public:
  // Adds a file, or every .yaml/.yml/.json file under a folder.
  util::Status AddPath(const std::string& path);
  // Adds the content of one file; `source` names it in messages. JSON is
  // read as JSON when `source` ends in .json, as YAML otherwise.
  util::Status AddText(std::string_view text, const std::string& source);

  // Warnings so far ("file:line: ..."), in input order.
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The objects read, normalised (see the header comment), each kind in
  // input order.
  ClusterObjects Finish();

 private:
  struct PriorityClassInfo {
    int32_t value = 0;
    bool global_default = false;
  };
  template <class T>
  struct Kept {
    std::vector<std::shared_ptr<T>> objects;
    std::map<std::string, size_t> index;  // "ns/name" -> position
  };

  struct Skipped {
    size_t count = 0;
    int line = 0;
    std::string first;
  };

  util::Status AddFile(const std::string& path);
  // Turns the kinds skipped in `source` into warnings.
  util::Status FlushSkipped(const std::string& source);
  // One decoded top-level JSON document; `doc` is its index among the
  // file's non-empty documents.
  util::Status AddDocument(const nlohmann::json& j, std::string_view text, const std::string& source, size_t doc,
                           bool json);
  util::Status AddObject(const nlohmann::json& j, std::string_view text, const std::string& source, size_t doc,
                         const std::string& path_prefix, bool json, std::string_view list_kind);
  template <class T>
  util::Status Decode(const nlohmann::json& j, Kept<T>& kept, std::string_view kind, std::string_view text,
                      const std::string& source, size_t doc, const std::string& path_prefix, bool json);

  std::vector<std::string> warnings_;
  Kept<api::Node> nodes_;
  Kept<api::Pod> pods_;
  Kept<api::Namespace> namespaces_;
  Kept<api::PersistentVolume> pvs_;
  Kept<api::PersistentVolumeClaim> pvcs_;
  Kept<api::StorageClass> storage_classes_;
  Kept<api::CSINode> csi_nodes_;
  Kept<api::CSIDriver> csi_drivers_;
  Kept<api::CSIStorageCapacity> csi_storage_capacities_;
  Kept<api::VolumeAttachment> volume_attachments_;
  Kept<api::PodDisruptionBudget> pdbs_;
  Kept<api::Service> services_;
  Kept<api::ReplicationController> replication_controllers_;
  Kept<api::ReplicaSet> replica_sets_;
  Kept<api::StatefulSet> stateful_sets_;
  Kept<api::DeviceClass> device_classes_;
  Kept<api::ResourceClaim> resource_claims_;
  Kept<api::ResourceClaimTemplate> resource_claim_templates_;
  Kept<api::ResourceSlice> resource_slices_;
  Kept<api::DeviceTaintRule> device_taint_rules_;
  Kept<api::PodGroup> pod_groups_;
  std::map<std::string, PriorityClassInfo> priority_classes_;
  std::map<std::string, Skipped> skipped_;  // by kind, for the file being read
};

// The 1-based line of the value at `path` (e.g. "items[2].spec.containers[0].image")
// in document `doc` (index among non-empty documents) of `text`, or of the
// deepest ancestor found; 0 when the text does not parse. For error
// messages only: it parses the text again.
int LineOfPath(std::string_view text, size_t doc, std::string_view path);

}  // namespace ksched::simulate
