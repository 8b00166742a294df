// The machinery shared by the codec_*.cc files (internal to pkg/api).
//
// Each struct of types.h describes its JSON fields once, in a
// `VisitFields(S& s, V& v)` template that calls `v("jsonName", s.member,
// flags)` for every member. The same description drives decoding (V =
// DecodeFieldVisitor, S non-const) and encoding (V = EncodeFieldVisitor,
// S const), so the two directions cannot drift apart and FromJson(ToJson(x))
// == x holds by construction for plain fields.
//
// Every type has four overloads
//   util::Status Decode(const Decoder& d, T* out);   // absent leaves *out as is
//   void Encode(const T& in, nlohmann::json* out);   // overwrites *out
//   bool ReadFast(JsonReader& r, T* out);            // the fast path, see below
//   void Write(JsonWriter& w, const T& in);          // Encode's value as text
// found by argument-dependent lookup, so containers of any codec type
// (vector, map, optional, shared_ptr) work through the templates below.
//
// Encoding follows Go's encoding/json with the API's tags: fields are
// omitted when empty (omitempty) unless flagged kKeepEmpty; unset optionals
// and null pointers are always omitted; nested structs are always written,
// as Go writes non-pointer structs even under omitempty.
//
// Thread-safety: stateless functions.
#pragma once

#include <nlohmann/json.hpp>

#include <concepts>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/json_decoder.h"
#include "pkg/api/json_reader.h"
#include "pkg/api/json_writer.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/resource_types.h"
#include "pkg/api/shared_box.h"
#include "pkg/api/shared_list.h"
#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::api {

// Per-field flags passed as the third argument of a visitor call.
enum FieldFlags : unsigned {
  kOmitEmpty = 0,           // default: skip "", 0, false, [], {} when encoding
  kKeepEmpty = 1u << 0,     // the API field has no omitempty: always written
  kMicroTime = 1u << 1,     // an optional<Time> that is a metav1.MicroTime
};

// True when S is T or const T: constrains each VisitFields overload.
template <class S, class T>
concept StructOf = std::same_as<std::remove_const_t<S>, T>;

// A JSON object's members by name: std::map<std::string, T> and
// ResourceList, which decode, encode and write alike.
template <class M>
concept StringKeyedMap = std::same_as<typename M::key_type, std::string> && requires { typename M::mapped_type; };

// ---------------------------------------------------------------- scalars
// Defined in codec_scalars.cc.

util::Status Decode(const Decoder& d, std::string* out);
util::Status Decode(const Decoder& d, bool* out);
util::Status Decode(const Decoder& d, int32_t* out);
util::Status Decode(const Decoder& d, int64_t* out);
// A string ("100m") or a number (2, 0.5), as Kubernetes accepts both.
util::Status Decode(const Decoder& d, Quantity* out);
// RFC 3339 string (metav1.Time and metav1.MicroTime alike).
util::Status Decode(const Decoder& d, Time* out);
// A number (int32) or a string.
util::Status Decode(const Decoder& d, IntOrString* out);

// The fast path (FromJsonText): reads the value at `r` straight into *out.
// Returns true only when the result is exactly what Decode would produce
// from the parsed value; false means "decode this document the slow way"
// (invalid, unusual or erroneous input), with *out in an unspecified state.
bool ReadFast(JsonReader& r, std::string* out);
bool ReadFast(JsonReader& r, bool* out);
bool ReadFast(JsonReader& r, int32_t* out);
bool ReadFast(JsonReader& r, int64_t* out);
bool ReadFast(JsonReader& r, Quantity* out);
bool ReadFast(JsonReader& r, Time* out);
bool ReadFast(JsonReader& r, IntOrString* out);

void Encode(const std::string& in, nlohmann::json* out);
void Encode(bool in, nlohmann::json* out);
void Encode(int32_t in, nlohmann::json* out);
void Encode(int64_t in, nlohmann::json* out);
void Encode(const Quantity& in, nlohmann::json* out);
void Encode(const Time& in, nlohmann::json* out);  // metav1.Time, seconds
void Encode(const IntOrString& in, nlohmann::json* out);

// Write(w, x) writes the value Encode(x) makes, as text, with no tree in
// between (ToJsonText). Members come in VisitFields order rather than the
// tree's sorted order; JSON does not care.
void Write(JsonWriter& w, const std::string& in);
void Write(JsonWriter& w, bool in);
void Write(JsonWriter& w, int32_t in);
void Write(JsonWriter& w, int64_t in);
void Write(JsonWriter& w, const Quantity& in);
void Write(JsonWriter& w, const Time& in);
void Write(JsonWriter& w, const IntOrString& in);

// ---------------------------------------------------------------- structs

#define KSCHED_API_DECLARE_CODEC(T)                      \
  util::Status Decode(const Decoder& d, T* out);       \
  void Encode(const T& in, nlohmann::json* out);       \
  bool ReadFast(JsonReader& r, T* out);                \
  void Write(JsonWriter& w, const T& in);

// codec_meta.cc
KSCHED_API_DECLARE_CODEC(OwnerReference)
KSCHED_API_DECLARE_CODEC(ObjectMeta)
KSCHED_API_DECLARE_CODEC(ListMeta)
KSCHED_API_DECLARE_CODEC(ObjectReference)
KSCHED_API_DECLARE_CODEC(LabelSelectorRequirement)
KSCHED_API_DECLARE_CODEC(LabelSelector)
KSCHED_API_DECLARE_CODEC(NodeSelectorRequirement)
KSCHED_API_DECLARE_CODEC(NodeSelectorTerm)
KSCHED_API_DECLARE_CODEC(NodeSelector)
KSCHED_API_DECLARE_CODEC(TopologySelectorLabelRequirement)
KSCHED_API_DECLARE_CODEC(TopologySelectorTerm)
KSCHED_API_DECLARE_CODEC(Condition)
// codec_pod.cc
KSCHED_API_DECLARE_CODEC(PreferredSchedulingTerm)
KSCHED_API_DECLARE_CODEC(NodeAffinity)
KSCHED_API_DECLARE_CODEC(PodAffinityTerm)
KSCHED_API_DECLARE_CODEC(WeightedPodAffinityTerm)
KSCHED_API_DECLARE_CODEC(PodAffinity)
KSCHED_API_DECLARE_CODEC(Affinity)
KSCHED_API_DECLARE_CODEC(Taint)
KSCHED_API_DECLARE_CODEC(Toleration)
KSCHED_API_DECLARE_CODEC(TopologySpreadConstraint)
KSCHED_API_DECLARE_CODEC(ContainerPort)
KSCHED_API_DECLARE_CODEC(ResourceRequirements)
KSCHED_API_DECLARE_CODEC(ContainerRestartRule)
KSCHED_API_DECLARE_CODEC(VolumeMount)
KSCHED_API_DECLARE_CODEC(Container)
KSCHED_API_DECLARE_CODEC(ContainerStatus)
KSCHED_API_DECLARE_CODEC(PodSchedulingGate)
KSCHED_API_DECLARE_CODEC(PodResourceClaim)
KSCHED_API_DECLARE_CODEC(PodResourceClaimStatus)
KSCHED_API_DECLARE_CODEC(ContainerExtendedResourceRequest)
KSCHED_API_DECLARE_CODEC(PodExtendedResourceClaimStatus)
KSCHED_API_DECLARE_CODEC(PodSpec)
KSCHED_API_DECLARE_CODEC(PodCondition)
KSCHED_API_DECLARE_CODEC(PodStatus)
// A pod's conditions decode without those the kubelet owns (Ready,
// Initialized, ContainersReady, PodReadyToStartContainers): no scheduler code
// reads them, and a running pod would carry four more conditions.
util::Status Decode(const Decoder& d, std::vector<PodCondition>* out);
bool ReadFast(JsonReader& r, std::vector<PodCondition>* out);
// A container's volume mounts decode without those that have no bind mount
// options, the only part the scheduler reads.
util::Status Decode(const Decoder& d, std::vector<VolumeMount>* out);
bool ReadFast(JsonReader& r, std::vector<VolumeMount>* out);
KSCHED_API_DECLARE_CODEC(Pod)
// codec_volume.cc
KSCHED_API_DECLARE_CODEC(PersistentVolumeClaimVolumeSource)
KSCHED_API_DECLARE_CODEC(PersistentVolumeClaimTemplate)
KSCHED_API_DECLARE_CODEC(EphemeralVolumeSource)
KSCHED_API_DECLARE_CODEC(GCEPersistentDiskVolumeSource)
KSCHED_API_DECLARE_CODEC(AWSElasticBlockStoreVolumeSource)
KSCHED_API_DECLARE_CODEC(AzureDiskVolumeSource)
KSCHED_API_DECLARE_CODEC(CinderVolumeSource)
KSCHED_API_DECLARE_CODEC(PortworxVolumeSource)
KSCHED_API_DECLARE_CODEC(ISCSIVolumeSource)
KSCHED_API_DECLARE_CODEC(RBDVolumeSource)
KSCHED_API_DECLARE_CODEC(CSIVolumeSource)
KSCHED_API_DECLARE_CODEC(ImageVolumeSource)
KSCHED_API_DECLARE_CODEC(Volume)
// codec_node.cc
KSCHED_API_DECLARE_CODEC(NodeSpec)
KSCHED_API_DECLARE_CODEC(NodeCondition)
KSCHED_API_DECLARE_CODEC(ContainerImage)
KSCHED_API_DECLARE_CODEC(NodeAddress)
KSCHED_API_DECLARE_CODEC(NodeStatus)
KSCHED_API_DECLARE_CODEC(Node)
// codec_storage.cc
KSCHED_API_DECLARE_CODEC(VolumeNodeAffinity)
KSCHED_API_DECLARE_CODEC(CSIPersistentVolumeSource)
KSCHED_API_DECLARE_CODEC(PersistentVolumeSpec)
KSCHED_API_DECLARE_CODEC(PersistentVolumeStatus)
KSCHED_API_DECLARE_CODEC(PersistentVolume)
KSCHED_API_DECLARE_CODEC(VolumeResourceRequirements)
KSCHED_API_DECLARE_CODEC(PersistentVolumeClaimSpec)
KSCHED_API_DECLARE_CODEC(PersistentVolumeClaimStatus)
KSCHED_API_DECLARE_CODEC(PersistentVolumeClaim)
KSCHED_API_DECLARE_CODEC(StorageClass)
KSCHED_API_DECLARE_CODEC(VolumeNodeResources)
KSCHED_API_DECLARE_CODEC(CSINodeDriver)
KSCHED_API_DECLARE_CODEC(CSINodeSpec)
KSCHED_API_DECLARE_CODEC(CSINode)
KSCHED_API_DECLARE_CODEC(CSIDriverSpec)
KSCHED_API_DECLARE_CODEC(CSIDriver)
KSCHED_API_DECLARE_CODEC(CSIStorageCapacity)
KSCHED_API_DECLARE_CODEC(VolumeAttachmentSource)
KSCHED_API_DECLARE_CODEC(VolumeAttachmentSpec)
KSCHED_API_DECLARE_CODEC(VolumeAttachmentStatus)
KSCHED_API_DECLARE_CODEC(VolumeAttachment)
// codec_other.cc
KSCHED_API_DECLARE_CODEC(NamespaceStatus)
KSCHED_API_DECLARE_CODEC(Namespace)
KSCHED_API_DECLARE_CODEC(PodDisruptionBudgetSpec)
KSCHED_API_DECLARE_CODEC(PodDisruptionBudgetStatus)
KSCHED_API_DECLARE_CODEC(PodDisruptionBudget)
KSCHED_API_DECLARE_CODEC(Binding)
KSCHED_API_DECLARE_CODEC(EventSeries)
KSCHED_API_DECLARE_CODEC(Event)
KSCHED_API_DECLARE_CODEC(LeaseSpec)
KSCHED_API_DECLARE_CODEC(Lease)
// codec_podgroup.cc
KSCHED_API_DECLARE_CODEC(PodGroupSpec)
KSCHED_API_DECLARE_CODEC(PodGroupStatus)
KSCHED_API_DECLARE_CODEC(PodGroup)
// codec_workloads.cc
KSCHED_API_DECLARE_CODEC(ServiceSpec)
KSCHED_API_DECLARE_CODEC(Service)
KSCHED_API_DECLARE_CODEC(ReplicationControllerSpec)
KSCHED_API_DECLARE_CODEC(ReplicationController)
KSCHED_API_DECLARE_CODEC(WorkloadSelectorSpec)
KSCHED_API_DECLARE_CODEC(ReplicaSet)
KSCHED_API_DECLARE_CODEC(StatefulSet)
// codec_resource.cc
KSCHED_API_DECLARE_CODEC(RawJson)
KSCHED_API_DECLARE_CODEC(DeviceTaint)
KSCHED_API_DECLARE_CODEC(DeviceToleration)
KSCHED_API_DECLARE_CODEC(CELDeviceSelector)
KSCHED_API_DECLARE_CODEC(DeviceSelector)
KSCHED_API_DECLARE_CODEC(OpaqueDeviceConfiguration)
KSCHED_API_DECLARE_CODEC(DeviceClassConfiguration)
KSCHED_API_DECLARE_CODEC(DeviceClaimConfiguration)
KSCHED_API_DECLARE_CODEC(DeviceAllocationConfiguration)
KSCHED_API_DECLARE_CODEC(DeviceClassSpec)
KSCHED_API_DECLARE_CODEC(DeviceClass)
KSCHED_API_DECLARE_CODEC(CapacityRequirements)
KSCHED_API_DECLARE_CODEC(ExactDeviceRequest)
KSCHED_API_DECLARE_CODEC(DeviceSubRequest)
KSCHED_API_DECLARE_CODEC(DeviceRequest)
KSCHED_API_DECLARE_CODEC(DeviceConstraint)
KSCHED_API_DECLARE_CODEC(DeviceClaim)
KSCHED_API_DECLARE_CODEC(ResourceClaimSpec)
KSCHED_API_DECLARE_CODEC(DeviceRequestAllocationResult)
KSCHED_API_DECLARE_CODEC(DeviceAllocationResult)
KSCHED_API_DECLARE_CODEC(AllocationResult)
KSCHED_API_DECLARE_CODEC(ResourceClaimConsumerReference)
KSCHED_API_DECLARE_CODEC(AllocatedDeviceStatus)
KSCHED_API_DECLARE_CODEC(ResourceClaimStatus)
KSCHED_API_DECLARE_CODEC(ResourceClaim)
KSCHED_API_DECLARE_CODEC(ResourceClaimTemplateSpec)
KSCHED_API_DECLARE_CODEC(ResourceClaimTemplate)
KSCHED_API_DECLARE_CODEC(ResourcePool)
KSCHED_API_DECLARE_CODEC(DeviceAttributeValue)
KSCHED_API_DECLARE_CODEC(CapacityRequestPolicyRange)
KSCHED_API_DECLARE_CODEC(CapacityRequestPolicy)
KSCHED_API_DECLARE_CODEC(DeviceCapacity)
KSCHED_API_DECLARE_CODEC(Counter)
KSCHED_API_DECLARE_CODEC(CounterSet)
KSCHED_API_DECLARE_CODEC(DeviceCounterConsumption)
KSCHED_API_DECLARE_CODEC(Device)
KSCHED_API_DECLARE_CODEC(ResourceSliceSpec)
KSCHED_API_DECLARE_CODEC(ResourceSlice)
KSCHED_API_DECLARE_CODEC(DeviceTaintSelector)
KSCHED_API_DECLARE_CODEC(DeviceTaintRuleSpec)
KSCHED_API_DECLARE_CODEC(DeviceTaintRule)

#undef KSCHED_API_DECLARE_CODEC

// Volume sources the model does not type (emptyDir, nfs, ...) are kept by
// JSON key. Sets *out to the first member of the object at `d`, in key
// order, for which is_source(key) holds and whose value is not null; that
// value must be an object, as every volume source is. Leaves *out untouched
// when there is none. Defined in codec_volume.cc.
util::Status FindOtherSource(const Decoder& d, bool (*is_source)(std::string_view key),
                             std::string* out);

// Records `source` as an empty object member of an encoded source-bearing
// object, unless that key is already written.
void EncodeOtherSource(const std::string& source, nlohmann::json* out);

// ---------------------------------------------------------------- containers

// std::optional, Boxed and SharedBox, coded alike: absent (or null) leaves
// the value unset.
template <class T>
inline constexpr bool kIsOptional = false;
template <class T>
inline constexpr bool kIsOptional<std::optional<T>> = true;
template <class T>
inline constexpr bool kIsOptional<Boxed<T>> = true;
template <class T>
inline constexpr bool kIsOptional<SharedBox<T>> = true;

template <class T>
util::Status Decode(const Decoder& d, std::vector<T>* out) {
  KSCHED_API_RETURN_IF_ERROR(d.RequireArray());
  if (d.IsAbsent()) return util::Status::Ok();
  const size_t n = d.json().size();
  out->clear();
  out->resize(n);
  for (size_t i = 0; i < n; ++i) {
    KSCHED_API_RETURN_IF_ERROR(Decode(d.Index(i), &(*out)[i]));
  }
  return util::Status::Ok();
}

// Absent clears the map. A decoded map is kept for its object's life, so a
// map that can give back spare capacity does.
template <StringKeyedMap M>
void ShrinkDecoded(M* out) {
  if constexpr (requires { out->shrink_to_fit(); }) out->shrink_to_fit();
}

template <StringKeyedMap M>
util::Status Decode(const Decoder& d, M* out) {
  out->clear();
  KSCHED_API_RETURN_IF_ERROR(d.ForEachMember([out](const std::string& key, const Decoder& value) {
    // Members arrive sorted, so every insertion lands at the end.
    auto it = out->emplace_hint(out->end(), key, typename M::mapped_type{});
    return Decode(value, &it->second);
  }));
  ShrinkDecoded(out);
  return util::Status::Ok();
}

template <class O>
  requires kIsOptional<O>
util::Status Decode(const Decoder& d, O* out) {
  if (d.IsAbsent()) return util::Status::Ok();
  return Decode(d, &out->emplace());
}

template <class T>
util::Status Decode(const Decoder& d, std::shared_ptr<const T>* out) {
  if (d.IsAbsent()) return util::Status::Ok();
  auto value = std::make_shared<T>();
  KSCHED_API_RETURN_IF_ERROR(Decode(d, value.get()));
  *out = std::move(value);
  return util::Status::Ok();
}

// Fast-path containers, mirroring the Decode templates above: null is
// absent; a map member named twice (which the DOM collapses to its last
// value) goes the slow way.
template <class T>
bool ReadFast(JsonReader& r, std::vector<T>* out) {
  if (r.ConsumeNull()) return true;
  if (!r.BeginArray()) return false;
  out->clear();
  bool first = true;
  while (true) {
    const int e = r.NextElement(&first);
    if (e <= 0) {
      // The object keeps it for its life: give back what doubling reserved.
      if (e == 0 && out->capacity() != out->size()) out->shrink_to_fit();
      return e == 0;
    }
    out->emplace_back();
    if (!ReadFast(r, &out->back())) return false;
  }
}

template <StringKeyedMap M>
bool ReadFast(JsonReader& r, M* out) {
  out->clear();
  if (r.ConsumeNull()) return true;
  if (!r.BeginObject()) return false;
  bool first = true;
  std::string scratch;
  while (true) {
    std::string_view key;
    const int m = r.NextMember(&first, &key, &scratch);
    if (m < 0) return false;
    if (m == 0) break;
    auto [it, inserted] = out->try_emplace(std::string(key));
    if (!inserted || !ReadFast(r, &it->second)) return false;
  }
  ShrinkDecoded(out);
  return true;
}

template <class O>
  requires kIsOptional<O>
bool ReadFast(JsonReader& r, O* out) {
  if (r.ConsumeNull()) return true;
  return ReadFast(r, &out->emplace());
}

template <class T>
bool ReadFast(JsonReader& r, std::shared_ptr<const T>* out) {
  if (r.ConsumeNull()) return true;
  auto value = std::make_shared<T>();
  if (!ReadFast(r, value.get())) return false;
  *out = std::move(value);
  return true;
}

// SharedList, SharedMap and SharedBox decode as a vector, a map and an
// optional, then intern the value (interned.h) keyed by the hash of its
// encoded text: values that decode equal share one copy even when their
// texts differ in members the model skips.
template <class Holder, class V>
Holder InternDecoded(V value) {
  thread_local std::string text;
  text.clear();
  JsonWriter w(&text);
  Write(w, value);
  return Holder::Interned(std::hash<std::string_view>{}(text), std::move(value));
}

template <class T>
util::Status Decode(const Decoder& d, SharedList<T>* out) {
  KSCHED_API_RETURN_IF_ERROR(d.RequireArray());
  if (d.IsAbsent()) return util::Status::Ok();
  std::vector<T> items;
  KSCHED_API_RETURN_IF_ERROR(Decode(d, &items));
  *out = InternDecoded<SharedList<T>>(std::move(items));
  return util::Status::Ok();
}

// The fast path of the three holders: a text decoded before (the same
// template's list in the previous pod) is looked up, not decoded; any other
// is decoded and interned as above.
template <class Holder>
bool ReadInterned(JsonReader& r, Holder* out) {
  using Value = typename Holder::Value;
  std::string_view text;
  if (!r.CaptureValue(&text)) return false;
  const size_t hash = TextInterned<Value>::Hash(text);
  if (auto node = TextInterned<Value>::Find(hash, text)) {
    *out = Holder::FromNode(std::move(node));
    return true;
  }
  JsonReader value_reader(text);
  Value value;
  if (!ReadFast(value_reader, &value)) return false;
  *out = InternDecoded<Holder>(std::move(value));
  TextInterned<Value>::RememberIfShared(hash, text, out->node());
  return true;
}

template <class T>
bool ReadFast(JsonReader& r, SharedList<T>* out) {
  if (r.ConsumeNull()) return true;
  return ReadInterned(r, out);
}

template <class K, class V>
util::Status Decode(const Decoder& d, SharedMap<K, V>* out) {
  typename SharedMap<K, V>::Map entries;
  KSCHED_API_RETURN_IF_ERROR(Decode(d, &entries));
  *out = InternDecoded<SharedMap<K, V>>(std::move(entries));
  return util::Status::Ok();
}

template <class K, class V>
bool ReadFast(JsonReader& r, SharedMap<K, V>* out) {
  return ReadInterned(r, out);
}

template <class T>
util::Status Decode(const Decoder& d, SharedBox<T>* out) {
  if (d.IsAbsent()) return util::Status::Ok();
  T value;
  KSCHED_API_RETURN_IF_ERROR(Decode(d, &value));
  *out = InternDecoded<SharedBox<T>>(std::move(value));
  return util::Status::Ok();
}

template <class T>
bool ReadFast(JsonReader& r, SharedBox<T>* out) {
  if (r.ConsumeNull()) return true;
  return ReadInterned(r, out);
}

// For the few types whose Decode is written by hand: the value's text is
// parsed on its own and given to Decode, so the result is Decode's by
// construction.
template <class T>
bool ReadFastViaDecode(JsonReader& r, T* out) {
  std::string_view text;
  if (!r.CaptureValue(&text)) return false;
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return false;
  try {
    return Decode(Decoder(j), out).ok();
  } catch (const std::exception&) {
    return false;
  }
}

template <class T>
void Encode(const std::vector<T>& in, nlohmann::json* out) {
  nlohmann::json::array_t array;
  array.reserve(in.size());
  for (const T& element : in) {
    array.emplace_back();
    Encode(element, &array.back());
  }
  *out = std::move(array);
}

template <class T>
void Encode(const SharedList<T>& in, nlohmann::json* out) {
  Encode(in.get(), out);
}

template <StringKeyedMap M>
void Encode(const M& in, nlohmann::json* out) {
  nlohmann::json::object_t object;
  for (const auto& [key, value] : in) {
    auto it = object.emplace_hint(object.end(), key, nullptr);
    Encode(value, &it->second);
  }
  *out = std::move(object);
}

template <class K, class V>
void Encode(const SharedMap<K, V>& in, nlohmann::json* out) {
  Encode(in.get(), out);
}

template <class O>
  requires kIsOptional<O>
void Encode(const O& in, nlohmann::json* out) {
  if (in.has_value()) {
    Encode(*in, out);
  } else {
    *out = nullptr;
  }
}

template <class T>
void Encode(const std::shared_ptr<const T>& in, nlohmann::json* out) {
  if (in != nullptr) {
    Encode(*in, out);
  } else {
    *out = nullptr;
  }
}

template <class T>
void Write(JsonWriter& w, const std::vector<T>& in) {
  w.BeginArray();
  for (const T& element : in) Write(w, element);
  w.EndArray();
}

template <class T>
void Write(JsonWriter& w, const SharedList<T>& in) {
  Write(w, in.get());
}

template <StringKeyedMap M>
void Write(JsonWriter& w, const M& in) {
  w.BeginObject();
  for (const auto& [key, value] : in) {
    w.Key(key);
    Write(w, value);
  }
  w.EndObject();
}

template <class K, class V>
void Write(JsonWriter& w, const SharedMap<K, V>& in) {
  Write(w, in.get());
}

template <class O>
  requires kIsOptional<O>
void Write(JsonWriter& w, const O& in) {
  if (in.has_value()) {
    Write(w, *in);
  } else {
    w.Null();
  }
}

template <class T>
void Write(JsonWriter& w, const std::shared_ptr<const T>& in) {
  if (in != nullptr) {
    Write(w, *in);
  } else {
    w.Null();
  }
}

// For the few types whose Encode is written by hand and that no hot write
// carries: Encode's tree, dumped.
template <class T>
void WriteViaEncode(JsonWriter& w, const T& in) {
  nlohmann::json j;
  Encode(in, &j);
  w.Raw(j.dump());
}

// ---------------------------------------------------------------- visitors

template <class T>
inline constexpr bool kIsNullable = kIsOptional<T>;
template <class T>
inline constexpr bool kIsNullable<std::shared_ptr<T>> = true;

// Go's notion of an empty value for omitempty. Structs are never empty.
template <class T>
bool IsEmptyValue(const T& v) {
  if constexpr (kIsNullable<T>) {
    return !v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return !v;
  } else if constexpr (std::is_integral_v<T>) {
    return v == 0;
  } else if constexpr (requires { v.empty(); }) {
    return v.empty();
  } else {
    return false;
  }
}

class DecodeFieldVisitor {
 public:
  explicit DecodeFieldVisitor(const Decoder& d) : d_(d) {}

  template <class T>
  void operator()(std::string_view key, T& field, unsigned /*flags*/ = kOmitEmpty) {
    if (status_.ok()) status_ = Decode(d_.Field(key), &field);
  }

  const util::Status& status() const { return status_; }

 private:
  const Decoder& d_;
  util::Status status_;
};

class EncodeFieldVisitor {
 public:
  explicit EncodeFieldVisitor(nlohmann::json::object_t* out) : out_(out) {}

  template <class T>
  void operator()(std::string_view key, const T& field, unsigned flags = kOmitEmpty) {
    if constexpr (kIsNullable<T>) {
      if (!field) return;  // nil pointers have nothing to write
    }
    if (!(flags & kKeepEmpty) && IsEmptyValue(field)) return;
    nlohmann::json& slot = (*out_)[std::string(key)];
    if constexpr (std::is_same_v<T, std::optional<Time>>) {
      if (flags & kMicroTime) {
        slot = FormatMicroTime(*field);
        return;
      }
    }
    Encode(field, &slot);
  }

 private:
  nlohmann::json::object_t* out_;
};

// EncodeFieldVisitor's members, written as text.
class WriteFieldVisitor {
 public:
  explicit WriteFieldVisitor(JsonWriter& w) : w_(w) {}

  template <class T>
  void operator()(std::string_view key, const T& field, unsigned flags = kOmitEmpty) {
    if constexpr (kIsNullable<T>) {
      if (!field) return;
    }
    if (!(flags & kKeepEmpty) && IsEmptyValue(field)) return;
    w_.Key(key);
    if constexpr (std::is_same_v<T, std::optional<Time>>) {
      if (flags & kMicroTime) {
        w_.String(FormatMicroTime(*field));
        return;
      }
    }
    Write(w_, field);
  }

 private:
  JsonWriter& w_;
};

// Reads the value of one member, found by its key, on the fast path.
class ReadFieldVisitor {
 public:
  ReadFieldVisitor(JsonReader& r, std::string_view key) : r_(r), key_(key) {}

  template <class T>
  void operator()(std::string_view name, T& field, unsigned /*flags*/ = kOmitEmpty) {
    const int index = next_index_++;
    if (matched_ >= 0 || name != key_) return;
    matched_ = index;
    ok_ = ReadFast(r_, &field);
  }

  // The matched field's position in VisitFields, or -1 for an unknown key.
  int matched() const { return matched_; }
  bool ok() const { return ok_; }

 private:
  JsonReader& r_;
  std::string_view key_;
  int next_index_ = 0;
  int matched_ = -1;
  bool ok_ = true;
};

// The fast path of DecodeFields: members in document order, each member
// VisitFields does not name handed to `read_unknown(key)`, which consumes
// its value and returns false to send the whole value the slow way (for
// types whose Decode reads more than VisitFields names). A known member
// named twice goes the slow way too: the DOM keeps only the last, a merge
// here could differ.
template <class T, class ReadUnknown>
bool ReadFieldsOr(JsonReader& r, T* out, const ReadUnknown& read_unknown) {
  if (r.ConsumeNull()) return true;
  if (!r.BeginObject()) return false;
  constexpr int kMaxFields = 256;
  uint64_t seen[kMaxFields / 64] = {};
  bool first = true;
  std::string scratch;
  while (true) {
    std::string_view key;
    const int m = r.NextMember(&first, &key, &scratch);
    if (m <= 0) return m == 0;
    ReadFieldVisitor visitor(r, key);
    VisitFields(*out, visitor);
    const int i = visitor.matched();
    if (i < 0) {
      if (!read_unknown(key)) return false;
      continue;
    }
    if (!visitor.ok() || i >= kMaxFields) return false;
    const uint64_t bit = uint64_t{1} << (i % 64);
    if (seen[i / 64] & bit) return false;
    seen[i / 64] |= bit;
  }
}

// ReadFieldsOr where unknown members are skipped (syntax checked) unless
// `keep_unknown(key)` says false, which sends the value the slow way.
template <class T, class KeepUnknown>
bool ReadFields(JsonReader& r, T* out, const KeepUnknown& keep_unknown) {
  return ReadFieldsOr(r, out, [&](std::string_view key) { return keep_unknown(key) && r.SkipValue(); });
}

template <class T>
bool ReadFields(JsonReader& r, T* out) {
  return ReadFields(r, out, [](std::string_view) { return true; });
}

// Decodes the fields VisitFields(T&, V&) describes from a JSON object.
// Absent leaves *out untouched; a non-object is a type error.
template <class T>
util::Status DecodeFields(const Decoder& d, T* out) {
  KSCHED_API_RETURN_IF_ERROR(d.RequireObject());
  if (d.IsAbsent()) return util::Status::Ok();
  DecodeFieldVisitor visitor(d);
  VisitFields(*out, visitor);
  return visitor.status();
}

// Encodes the fields VisitFields(const T&, V&) describes as a JSON object.
template <class T>
void EncodeFields(const T& in, nlohmann::json* out) {
  nlohmann::json::object_t object;
  EncodeFieldVisitor visitor(&object);
  VisitFields(in, visitor);
  *out = std::move(object);
}

// The members VisitFields(const T&, V&) describes, written into the object
// the caller has begun (so hand-written encoders can add their own).
template <class T>
void WriteFieldsOf(JsonWriter& w, const T& in) {
  WriteFieldVisitor visitor(w);
  VisitFields(in, visitor);
}

// EncodeFields' object, as text.
template <class T>
void WriteFields(JsonWriter& w, const T& in) {
  w.BeginObject();
  WriteFieldsOf(w, in);
  w.EndObject();
}

// Defines Decode/Encode/ReadFast/Write of T from its VisitFields description.
#define KSCHED_API_DEFINE_FIELDS_CODEC(T)                                                 \
  util::Status Decode(const Decoder& d, T* out) { return DecodeFields(d, out); }         \
  void Encode(const T& in, nlohmann::json* out) { EncodeFields(in, out); }               \
  bool ReadFast(JsonReader& r, T* out) { return ReadFields(r, out); }                    \
  void Write(JsonWriter& w, const T& in) { WriteFields(w, in); }

}  // namespace ksched::api
