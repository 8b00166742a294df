// What the real server does to an object between decoding a request body and
// storing it: shape checks, defaulting, admission defaults, server-managed
// metadata, status handling and the few validations clients rely on.
//
// On create: kind/apiVersion filled in (a mismatch is 400), metadata.name
// from generateName, namespace from the URL (a mismatch is 400), uid (random
// UUID v4), creationTimestamp, generation 1; status reset where the real
// PrepareForCreate resets it (Pod -> phase Pending + qosClass,
// PersistentVolume/PersistentVolumeClaim -> phase Pending,
// PodDisruptionBudget -> zero counters, Namespace -> phase Active,
// ResourceClaim -> none; Node keeps its status); per-kind defaults (pod schedulerName "default-scheduler",
// priority 0, restartPolicy, dnsPolicy, requests defaulted from limits, the
// DefaultTolerationSeconds not-ready/unreachable tolerations; node
// allocatable from capacity; storage class, CSI driver, PV/PVC modes; DRA
// claim requests' allocationMode ExactCount and, in that mode, count 1).
//
// On update of the object itself: identity and server-managed metadata kept
// from the stored object, status kept for resources with a status
// subresource, generation bumped when anything but metadata/status changed,
// optimistic concurrency (a stale metadata.resourceVersion is 409 Conflict;
// none means unconditional), pod spec immutability (only images,
// activeDeadlineSeconds, tolerations, schedulingGates and
// terminationGracePeriodSeconds may change).
//
// Free functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "pkg/apiserverlite/api_error.h"
#include "pkg/apiserverlite/resources.h"
#include "pkg/util/clock.h"

namespace ksched::apiserver {

// `url_namespace` is the namespace of the request path ("" for
// cluster-scoped resources).
ApiResult<nlohmann::json> PrepareForCreate(const ResourceInfo& info, nlohmann::json obj,
                                           const std::string& url_namespace, util::WallTime now);

// A PUT or PATCH of the object itself. `obj` is the new object (its name and
// namespace already checked against the URL), `current` the stored one.
ApiResult<nlohmann::json> PrepareForUpdate(const ResourceInfo& info, nlohmann::json obj,
                                           const nlohmann::json& current);

// A PUT or PATCH of the status subresource: `current` with the status of
// `obj` (and the same resourceVersion precondition as updates).
ApiResult<nlohmann::json> PrepareForStatusUpdate(const ResourceInfo& info,
                                                 const nlohmann::json& obj,
                                                 const nlohmann::json& current);

// Shape checks shared by every write: the body is an object whose metadata
// fields have the right JSON types (400 BadRequest otherwise).
std::optional<ApiError> CheckObjectShape(const nlohmann::json& obj);

// The pod QoS class ("Guaranteed", "Burstable", "BestEffort") of a pod
// whose requests are already defaulted from limits.
std::string PodQosClass(const nlohmann::json& pod);

}  // namespace ksched::apiserver
