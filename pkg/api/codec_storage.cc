// JSON fields of PersistentVolume, PersistentVolumeClaim, StorageClass,
// CSINode, CSIDriver, CSIStorageCapacity and VolumeAttachment.

#include <string_view>

#include "pkg/api/codec_fields.h"

namespace ksched::api {

template <StructOf<VolumeNodeAffinity> S, class V>
void VisitFields(S& s, V& v) {
  v("required", s.required);
}
KSCHED_API_DEFINE_FIELDS_CODEC(VolumeNodeAffinity)

template <StructOf<CSIPersistentVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("driver", s.driver, kKeepEmpty);
  v("volumeHandle", s.volume_handle, kKeepEmpty);
  v("readOnly", s.read_only);
  v("fsType", s.fs_type);
  v("volumeAttributes", s.volume_attributes);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CSIPersistentVolumeSource)

// ---------------------------------------------------------------- PV

namespace {

// PersistentVolumeSource members the model does not type. Unlike a pod
// volume, a PV spec has non-source members too, so the sources are listed.
bool IsOtherPersistentVolumeSource(std::string_view key) {
  static constexpr std::string_view kSources[] = {
      "azureFile", "cephfs",   "fc",        "flexVolume",           "flocker",
      "glusterfs", "hostPath", "iscsi",    "local",     "nfs",                  "photonPersistentDisk",
      "quobyte", "rbd",  "scaleIO",   "storageos",            "vsphereVolume",
  };
  for (std::string_view source : kSources) {
    if (key == source) return true;
  }
  return false;
}

}  // namespace

template <StructOf<PersistentVolumeSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("capacity", s.capacity);
  v("gcePersistentDisk", s.gce_persistent_disk);
  v("awsElasticBlockStore", s.aws_elastic_block_store);
  v("azureDisk", s.azure_disk);
  v("cinder", s.cinder);
  v("portworxVolume", s.portworx_volume);
  v("csi", s.csi);
  v("accessModes", s.access_modes);
  v("claimRef", s.claim_ref);
  v("persistentVolumeReclaimPolicy", s.persistent_volume_reclaim_policy);
  v("storageClassName", s.storage_class_name);
  v("mountOptions", s.mount_options);
  v("volumeMode", s.volume_mode);
  v("nodeAffinity", s.node_affinity);
}

util::Status Decode(const Decoder& d, PersistentVolumeSpec* out) {
  KSCHED_API_RETURN_IF_ERROR(DecodeFields(d, out));
  return FindOtherSource(d, IsOtherPersistentVolumeSource, &out->other_source);
}

void Encode(const PersistentVolumeSpec& in, nlohmann::json* out) {
  EncodeFields(in, out);
  EncodeOtherSource(in.other_source, out);
}

template <StructOf<PersistentVolumeStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("phase", s.phase);
  v("message", s.message);
  v("reason", s.reason);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PersistentVolumeStatus)

template <StructOf<PersistentVolume> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
  v("status", s.status);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PersistentVolume)

// ---------------------------------------------------------------- PVC

template <StructOf<VolumeResourceRequirements> S, class V>
void VisitFields(S& s, V& v) {
  v("limits", s.limits);
  v("requests", s.requests);
}
KSCHED_API_DEFINE_FIELDS_CODEC(VolumeResourceRequirements)

template <StructOf<PersistentVolumeClaimSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("accessModes", s.access_modes);
  v("selector", s.selector);
  v("resources", s.resources);
  v("volumeName", s.volume_name);
  v("storageClassName", s.storage_class_name);
  v("volumeMode", s.volume_mode);
  v("volumeAttributesClassName", s.volume_attributes_class_name);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PersistentVolumeClaimSpec)

template <StructOf<PersistentVolumeClaimStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("phase", s.phase);
  v("accessModes", s.access_modes);
  v("capacity", s.capacity);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PersistentVolumeClaimStatus)

template <StructOf<PersistentVolumeClaim> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
  v("status", s.status);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PersistentVolumeClaim)

// ---------------------------------------------------------------- classes

template <StructOf<StorageClass> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("provisioner", s.provisioner, kKeepEmpty);
  v("parameters", s.parameters);
  v("reclaimPolicy", s.reclaim_policy);
  v("mountOptions", s.mount_options);
  v("allowVolumeExpansion", s.allow_volume_expansion);
  v("volumeBindingMode", s.volume_binding_mode);
  v("allowedTopologies", s.allowed_topologies);
}
KSCHED_API_DEFINE_FIELDS_CODEC(StorageClass)

// ---------------------------------------------------------------- CSI

template <StructOf<VolumeNodeResources> S, class V>
void VisitFields(S& s, V& v) {
  v("count", s.count);
}
KSCHED_API_DEFINE_FIELDS_CODEC(VolumeNodeResources)

template <StructOf<CSINodeDriver> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("nodeID", s.node_id, kKeepEmpty);
  v("topologyKeys", s.topology_keys, kKeepEmpty);
  v("allocatable", s.allocatable);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CSINodeDriver)

template <StructOf<CSINodeSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("drivers", s.drivers, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CSINodeSpec)

template <StructOf<CSINode> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CSINode)

template <StructOf<CSIDriverSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("attachRequired", s.attach_required);
  v("podInfoOnMount", s.pod_info_on_mount);
  v("volumeLifecycleModes", s.volume_lifecycle_modes);
  v("storageCapacity", s.storage_capacity);
  v("fsGroupPolicy", s.fs_group_policy);
  v("requiresRepublish", s.requires_republish);
  v("seLinuxMount", s.se_linux_mount);
  v("nodeAllocatableUpdatePeriodSeconds", s.node_allocatable_update_period_seconds);
  v("preventPodSchedulingIfMissing", s.prevent_pod_scheduling_if_missing);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CSIDriverSpec)

template <StructOf<CSIDriver> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CSIDriver)

// ---------------------------------------------------------------- capacity, attachments

template <StructOf<CSIStorageCapacity> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("nodeTopology", s.node_topology);
  v("storageClassName", s.storage_class_name, kKeepEmpty);
  v("capacity", s.capacity);
  v("maximumVolumeSize", s.maximum_volume_size);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CSIStorageCapacity)

template <StructOf<VolumeAttachmentSource> S, class V>
void VisitFields(S& s, V& v) {
  v("persistentVolumeName", s.persistent_volume_name);
}
KSCHED_API_DEFINE_FIELDS_CODEC(VolumeAttachmentSource)

template <StructOf<VolumeAttachmentSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("attacher", s.attacher, kKeepEmpty);
  v("source", s.source);
  v("nodeName", s.node_name, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(VolumeAttachmentSpec)

template <StructOf<VolumeAttachmentStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("attached", s.attached, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(VolumeAttachmentStatus)

template <StructOf<VolumeAttachment> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
  v("status", s.status);
}
KSCHED_API_DEFINE_FIELDS_CODEC(VolumeAttachment)

// Hand-written decoders: the fast path hands them the value (codec_fields.h).
bool ReadFast(JsonReader& r, PersistentVolumeSpec* out) { return ReadFastViaDecode(r, out); }
void Write(JsonWriter& w, const PersistentVolumeSpec& in) { WriteViaEncode(w, in); }

}  // namespace ksched::api
