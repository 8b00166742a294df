// FromJson / ToJson for top-level objects and lists, and ParseJson.

#include "pkg/api/codec.h"

#include <exception>
#include <string>

#include "pkg/api/codec_fields.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/resource_codec.h"

namespace ksched::api {

namespace {

// apiVersion and kind of a top-level object or list.
template <class T>
struct TopLevel {
  static std::string ApiVersion() { return TypeInfo<T>::kApiVersion; }
  static std::string Kind() { return TypeInfo<T>::kKind; }
};

template <class T>
struct TopLevel<List<T>> {
  static std::string ApiVersion() { return TypeInfo<T>::kApiVersion; }
  static std::string Kind() { return std::string(TypeInfo<T>::kKind) + "List"; }
};

}  // namespace

// Items of a list carry no apiVersion/kind of their own (the server omits
// them), so they are decoded and encoded as plain objects.
template <class T>
util::Status Decode(const Decoder& d, List<T>* out) {
  KSCHED_API_RETURN_IF_ERROR(d.RequireObject());
  KSCHED_API_RETURN_IF_ERROR(Decode(d.Field("metadata"), &out->metadata));
  return Decode(d.Field("items"), &out->items);
}

template <class T>
void Encode(const List<T>& in, nlohmann::json* out) {
  nlohmann::json::object_t object;
  Encode(in.metadata, &object["metadata"]);
  Encode(in.items, &object["items"]);
  *out = std::move(object);
}

template <class T>
util::StatusOr<T> FromJson(const nlohmann::json& j) {
  // Decoders check types before every access, so nothing below should
  // throw; the catch keeps that promise even if a check is ever missed.
  try {
    Decoder root(j);
    if (!j.is_object()) return root.TypeError("object");
    T out;
    KSCHED_API_RETURN_IF_ERROR(Decode(root, &out));
    return out;
  } catch (const nlohmann::json::exception& e) {
    return util::InvalidArgument(std::string("malformed object: ") + e.what());
  } catch (const std::exception& e) {
    return util::Internal(std::string("decoding failed: ") + e.what());
  }
}

template <class T>
nlohmann::json ToJson(const T& obj) {
  nlohmann::json j;
  Encode(obj, &j);
  j["apiVersion"] = TopLevel<T>::ApiVersion();
  j["kind"] = TopLevel<T>::Kind();
  return j;
}

template <class T>
util::StatusOr<T> FromJsonText(std::string_view text) {
  {
    JsonReader reader(text);
    T out;
    bool fast = false;
    try {
      fast = reader.Peek() == '{' && ReadFast(reader, &out) && reader.AtEnd();
    } catch (const std::exception&) {
      fast = false;  // allocation failure and the like: the slow path reports it
    }
    if (fast) return out;
  }
  util::StatusOr<nlohmann::json> j = ParseJson(text);
  if (!j.ok()) return j.status();
  return FromJson<T>(*j);
}

template <class T>
std::string ToJsonText(const T& obj) {
  // The type's apiVersion and kind members, written once.
  static const std::string head = [] {
    std::string h;
    JsonWriter::AppendQuoted("apiVersion", &h);
    h.push_back(':');
    JsonWriter::AppendQuoted(TopLevel<T>::ApiVersion(), &h);
    h.push_back(',');
    JsonWriter::AppendQuoted("kind", &h);
    h.push_back(':');
    JsonWriter::AppendQuoted(TopLevel<T>::Kind(), &h);
    return h;
  }();
  std::string out;
  JsonWriter w(&out, head);
  Write(w, obj);
  return out;
}

util::StatusOr<nlohmann::json> ParseJson(std::string_view text) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    return util::InvalidArgument("invalid JSON at byte " + std::to_string(e.byte) + ": " +
                                 e.what());
  } catch (const nlohmann::json::exception& e) {
    return util::InvalidArgument(std::string("invalid JSON: ") + e.what());
  }
}

#define KSCHED_API_INSTANTIATE(T)                                       \
  template util::StatusOr<T> FromJson<T>(const nlohmann::json& j);      \
  template nlohmann::json ToJson<T>(const T& obj);

#define KSCHED_API_INSTANTIATE_TEXT(T)                                  \
  template util::StatusOr<T> FromJsonText<T>(std::string_view text);  \
  template std::string ToJsonText<T>(const T& obj);
KSCHED_API_INSTANTIATE_TEXT(Pod)
KSCHED_API_INSTANTIATE_TEXT(Node)
KSCHED_API_INSTANTIATE_TEXT(PersistentVolume)
KSCHED_API_INSTANTIATE_TEXT(PersistentVolumeClaim)
KSCHED_API_INSTANTIATE_TEXT(Namespace)
KSCHED_API_INSTANTIATE_TEXT(Binding)
KSCHED_API_INSTANTIATE_TEXT(StorageClass)
KSCHED_API_INSTANTIATE_TEXT(CSINode)
KSCHED_API_INSTANTIATE_TEXT(CSIDriver)
KSCHED_API_INSTANTIATE_TEXT(CSIStorageCapacity)
KSCHED_API_INSTANTIATE_TEXT(VolumeAttachment)
KSCHED_API_INSTANTIATE_TEXT(PodDisruptionBudget)
KSCHED_API_INSTANTIATE_TEXT(Event)
KSCHED_API_INSTANTIATE_TEXT(Lease)
KSCHED_API_INSTANTIATE_TEXT(Service)
KSCHED_API_INSTANTIATE_TEXT(ReplicationController)
KSCHED_API_INSTANTIATE_TEXT(ReplicaSet)
KSCHED_API_INSTANTIATE_TEXT(StatefulSet)
KSCHED_API_INSTANTIATE_TEXT(PodGroup)
KSCHED_API_INSTANTIATE_TEXT(DeviceClass)
KSCHED_API_INSTANTIATE_TEXT(ResourceClaim)
KSCHED_API_INSTANTIATE_TEXT(ResourceClaimTemplate)
KSCHED_API_INSTANTIATE_TEXT(ResourceSlice)
KSCHED_API_INSTANTIATE_TEXT(DeviceTaintRule)
#undef KSCHED_API_INSTANTIATE_TEXT

KSCHED_API_INSTANTIATE(Pod)
KSCHED_API_INSTANTIATE(Node)
KSCHED_API_INSTANTIATE(PersistentVolume)
KSCHED_API_INSTANTIATE(PersistentVolumeClaim)
KSCHED_API_INSTANTIATE(Namespace)
KSCHED_API_INSTANTIATE(Binding)
KSCHED_API_INSTANTIATE(StorageClass)
KSCHED_API_INSTANTIATE(CSINode)
KSCHED_API_INSTANTIATE(CSIDriver)
KSCHED_API_INSTANTIATE(CSIStorageCapacity)
KSCHED_API_INSTANTIATE(VolumeAttachment)
KSCHED_API_INSTANTIATE(PodDisruptionBudget)
KSCHED_API_INSTANTIATE(Event)
KSCHED_API_INSTANTIATE(Lease)
KSCHED_API_INSTANTIATE(Service)
KSCHED_API_INSTANTIATE(ReplicationController)
KSCHED_API_INSTANTIATE(ReplicaSet)
KSCHED_API_INSTANTIATE(StatefulSet)
KSCHED_API_INSTANTIATE(PodGroup)

KSCHED_API_INSTANTIATE(PodList)
KSCHED_API_INSTANTIATE(NodeList)
KSCHED_API_INSTANTIATE(PersistentVolumeList)
KSCHED_API_INSTANTIATE(PersistentVolumeClaimList)
KSCHED_API_INSTANTIATE(StorageClassList)
KSCHED_API_INSTANTIATE(CSINodeList)
KSCHED_API_INSTANTIATE(CSIDriverList)
KSCHED_API_INSTANTIATE(CSIStorageCapacityList)
KSCHED_API_INSTANTIATE(VolumeAttachmentList)
KSCHED_API_INSTANTIATE(NamespaceList)
KSCHED_API_INSTANTIATE(PodDisruptionBudgetList)
KSCHED_API_INSTANTIATE(EventList)
KSCHED_API_INSTANTIATE(LeaseList)
KSCHED_API_INSTANTIATE(ServiceList)
KSCHED_API_INSTANTIATE(ReplicationControllerList)
KSCHED_API_INSTANTIATE(ReplicaSetList)
KSCHED_API_INSTANTIATE(StatefulSetList)
KSCHED_API_INSTANTIATE(PodGroupList)
KSCHED_API_INSTANTIATE(DeviceClass)
KSCHED_API_INSTANTIATE(ResourceClaim)
KSCHED_API_INSTANTIATE(ResourceClaimTemplate)
KSCHED_API_INSTANTIATE(ResourceSlice)
KSCHED_API_INSTANTIATE(DeviceTaintRule)
KSCHED_API_INSTANTIATE(DeviceClassList)
KSCHED_API_INSTANTIATE(ResourceClaimList)
KSCHED_API_INSTANTIATE(ResourceClaimTemplateList)
KSCHED_API_INSTANTIATE(ResourceSliceList)
KSCHED_API_INSTANTIATE(DeviceTaintRuleList)

#undef KSCHED_API_INSTANTIATE

}  // namespace ksched::api
