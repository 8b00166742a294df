// JSON fields of pod volumes and their sources.

#include <string_view>

#include "pkg/api/codec_fields.h"

namespace ksched::api {

util::Status FindOtherSource(const Decoder& d, bool (*is_source)(std::string_view key),
                             std::string* out) {
  KSCHED_API_RETURN_IF_ERROR(d.RequireObject());
  if (d.IsAbsent()) return util::Status::Ok();
  for (const auto& [key, value] : d.json().get_ref<const nlohmann::json::object_t&>()) {
    if (value.is_null() || !is_source(key)) continue;
    if (!value.is_object()) return d.Field(key).TypeError("object");
    *out = key;
    return util::Status::Ok();
  }
  return util::Status::Ok();
}

void EncodeOtherSource(const std::string& source, nlohmann::json* out) {
  if (source.empty()) return;
  out->get_ref<nlohmann::json::object_t&>().emplace(source, nlohmann::json::object());
}

template <StructOf<PersistentVolumeClaimVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("claimName", s.claim_name, kKeepEmpty);
  v("readOnly", s.read_only);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PersistentVolumeClaimVolumeSource)

template <StructOf<PersistentVolumeClaimTemplate> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PersistentVolumeClaimTemplate)

template <StructOf<EphemeralVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("volumeClaimTemplate", s.volume_claim_template);
}
KSCHED_API_DEFINE_FIELDS_CODEC(EphemeralVolumeSource)

template <StructOf<GCEPersistentDiskVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("pdName", s.pd_name, kKeepEmpty);
  v("fsType", s.fs_type);
  v("partition", s.partition);
  v("readOnly", s.read_only);
}
KSCHED_API_DEFINE_FIELDS_CODEC(GCEPersistentDiskVolumeSource)

template <StructOf<AWSElasticBlockStoreVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("volumeID", s.volume_id, kKeepEmpty);
  v("fsType", s.fs_type);
  v("partition", s.partition);
  v("readOnly", s.read_only);
}
KSCHED_API_DEFINE_FIELDS_CODEC(AWSElasticBlockStoreVolumeSource)

template <StructOf<AzureDiskVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("diskName", s.disk_name, kKeepEmpty);
  v("diskURI", s.data_disk_uri, kKeepEmpty);
  v("readOnly", s.read_only);
  v("kind", s.kind);
}
KSCHED_API_DEFINE_FIELDS_CODEC(AzureDiskVolumeSource)

template <StructOf<CinderVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("volumeID", s.volume_id, kKeepEmpty);
  v("fsType", s.fs_type);
  v("readOnly", s.read_only);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CinderVolumeSource)

template <StructOf<PortworxVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("volumeID", s.volume_id, kKeepEmpty);
  v("fsType", s.fs_type);
  v("readOnly", s.read_only);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PortworxVolumeSource)

template <StructOf<ISCSIVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("targetPortal", s.target_portal, kKeepEmpty);
  v("iqn", s.iqn, kKeepEmpty);
  v("lun", s.lun, kKeepEmpty);
  v("portals", s.portals);
  v("readOnly", s.read_only);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ISCSIVolumeSource)

template <StructOf<RBDVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("monitors", s.monitors, kKeepEmpty);
  v("image", s.image, kKeepEmpty);
  v("pool", s.pool);
  v("readOnly", s.read_only);
}
KSCHED_API_DEFINE_FIELDS_CODEC(RBDVolumeSource)

template <StructOf<CSIVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("driver", s.driver, kKeepEmpty);
  v("readOnly", s.read_only);
  v("volumeAttributes", s.volume_attributes);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CSIVolumeSource)

template <StructOf<ImageVolumeSource> S, class V>
void VisitFields(S& s, V& v) {
  v("reference", s.reference);
  v("pullPolicy", s.pull_policy);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ImageVolumeSource)

// ---------------------------------------------------------------- Volume

namespace {

// Every member of a volume besides its name is a source (VolumeSource is
// inlined), so any key the model does not type is an "other" source.
bool IsOtherPodVolumeSource(std::string_view key) {
  return key != "name" && key != "persistentVolumeClaim" && key != "ephemeral" &&
 key != "gcePersistentDisk" && key != "awsElasticBlockStore" && key != "azureDisk" &&
         key != "cinder" && key != "portworxVolume" && key != "iscsi" && key != "rbd" && key != "csi" &&
         key != "image";
}

}  // namespace

template <StructOf<Volume> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("persistentVolumeClaim", s.persistent_volume_claim);
  v("ephemeral", s.ephemeral);
  v("gcePersistentDisk", s.gce_persistent_disk);
  v("awsElasticBlockStore", s.aws_elastic_block_store);
  v("azureDisk", s.azure_disk);
  v("cinder", s.cinder);
  v("portworxVolume", s.portworx_volume);
  v("iscsi", s.iscsi);
  v("rbd", s.rbd);
  v("csi", s.csi);
  v("image", s.image);
}

util::Status Decode(const Decoder& d, Volume* out) {
  KSCHED_API_RETURN_IF_ERROR(DecodeFields(d, out));
  return FindOtherSource(d, IsOtherPodVolumeSource, &out->other_source);
}

void Encode(const Volume& in, nlohmann::json* out) {
  EncodeFields(in, out);
  EncodeOtherSource(in.other_source, out);
}

void Write(JsonWriter& w, const Volume& in) { WriteViaEncode(w, in); }

// Every pod carries a volume of a source the model keeps by name only (the
// projected kube-api-access token), so the fast path reads volumes itself:
// the typed sources as fields, any other member as the source it names.
// Decode picks, of several other sources, the first by key and rejects one
// that is not an object: those rare cases go the slow way.
bool ReadFast(JsonReader& r, Volume* out) {
  return ReadFields(r, out, [&](std::string_view key) {
    const char next = r.Peek();
    if (next == 'n') return true;  // null names no source (SkipValue checks the literal)
    if (next != '{' || !out->other_source.empty()) return false;
    out->other_source = std::string(key);
    return true;
  });
}

}  // namespace ksched::api
