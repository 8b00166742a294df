// JSON conversion for the types in types.h (nlohmann-json).
//
// Decoding is tolerant of unknown fields (the API grows every release) and
// strict about types: a field of the wrong JSON type, or a value that does
// not parse (a bad quantity, a bad timestamp), is an error whose message
// begins with the field path, e.g.
//   "spec.containers[1].resources.requests.cpu: quantities must match the regular expression ..."
// JSON null is treated as absent, as Go's encoding/json does.
//
// Encoding writes apiVersion and kind for top-level objects, omits empty
// optional fields (omitempty), and round-trips: FromJson(ToJson(x)) == x for
// every field this model keeps.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::api {

// Decodes a T. Explicitly instantiated for every top-level type and List<T>
// in types.h.
template <class T>
util::StatusOr<T> FromJson(const nlohmann::json& j);

// Decodes a T from JSON text: FromJson(ParseJson(text)) in result and in
// every error, but a well-formed object is read straight into the T
// without building a JSON tree (several times cheaper for a pod; the
// informers' watch path). Unusual input (non-ASCII or \u escapes in strings,
// a repeated field, a number where a quantity string is usual) and every
// erroneous input are decoded through the tree, so errors read exactly as
// FromJson's. Instantiated for the top-level types (not List<T>).
template <class T>
util::StatusOr<T> FromJsonText(std::string_view text);

// Encodes a T, including apiVersion and kind for top-level types.
template <class T>
nlohmann::json ToJson(const T& obj);

// ToJson(obj).dump() in meaning (the same members and values; apiVersion
// and kind first, the rest in field order), written straight to text: the
// request bodies of the scheduler's writes. Instantiated for the
// top-level types.
template <class T>
std::string ToJsonText(const T& obj);

// Parses text as JSON; errors carry the byte offset.
util::StatusOr<nlohmann::json> ParseJson(std::string_view text);

// API group/version, kind and REST resource name of each top-level type,
// e.g. TypeInfo<Pod>{"v1", "Pod", "pods", namespaced=true}.
template <class T>
struct TypeInfo;

#define KSCHED_API_TYPE_INFO(T, API_VERSION, KIND, RESOURCE, NAMESPACED) \
  template <>                                                          \
  struct TypeInfo<T> {                                                 \
    static constexpr const char* kApiVersion = API_VERSION;            \
    static constexpr const char* kKind = KIND;                         \
    static constexpr const char* kResource = RESOURCE;                 \
    static constexpr bool kNamespaced = NAMESPACED;                    \
  };
KSCHED_API_TYPE_INFO(Pod, "v1", "Pod", "pods", true)
KSCHED_API_TYPE_INFO(Node, "v1", "Node", "nodes", false)
KSCHED_API_TYPE_INFO(PersistentVolume, "v1", "PersistentVolume", "persistentvolumes", false)
KSCHED_API_TYPE_INFO(PersistentVolumeClaim, "v1", "PersistentVolumeClaim", "persistentvolumeclaims", true)
KSCHED_API_TYPE_INFO(Namespace, "v1", "Namespace", "namespaces", false)
KSCHED_API_TYPE_INFO(Binding, "v1", "Binding", "bindings", true)
KSCHED_API_TYPE_INFO(StorageClass, "storage.k8s.io/v1", "StorageClass", "storageclasses", false)
KSCHED_API_TYPE_INFO(CSINode, "storage.k8s.io/v1", "CSINode", "csinodes", false)
KSCHED_API_TYPE_INFO(CSIDriver, "storage.k8s.io/v1", "CSIDriver", "csidrivers", false)
KSCHED_API_TYPE_INFO(CSIStorageCapacity, "storage.k8s.io/v1", "CSIStorageCapacity", "csistoragecapacities", true)
KSCHED_API_TYPE_INFO(VolumeAttachment, "storage.k8s.io/v1", "VolumeAttachment", "volumeattachments", false)
KSCHED_API_TYPE_INFO(PodDisruptionBudget, "policy/v1", "PodDisruptionBudget", "poddisruptionbudgets", true)
KSCHED_API_TYPE_INFO(Event, "events.k8s.io/v1", "Event", "events", true)
KSCHED_API_TYPE_INFO(Lease, "coordination.k8s.io/v1", "Lease", "leases", true)
KSCHED_API_TYPE_INFO(Service, "v1", "Service", "services", true)
KSCHED_API_TYPE_INFO(ReplicationController, "v1", "ReplicationController", "replicationcontrollers", true)
KSCHED_API_TYPE_INFO(ReplicaSet, "apps/v1", "ReplicaSet", "replicasets", true)
KSCHED_API_TYPE_INFO(StatefulSet, "apps/v1", "StatefulSet", "statefulsets", true)
#undef KSCHED_API_TYPE_INFO

// metav1.Time: "2006-01-02T15:04:05Z" (UTC, seconds). Parsing accepts any
// RFC 3339 offset and fractional seconds.
std::string FormatTime(Time t);
// metav1.MicroTime: "2006-01-02T15:04:05.000000Z".
std::string FormatMicroTime(Time t);
util::StatusOr<Time> ParseTime(std::string_view s);

}  // namespace ksched::api
