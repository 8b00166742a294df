// The pod writes a scheduler makes: bind (POST pods/NAME/binding), patch
// status (PodScheduled condition, nominatedNodeName) and delete (preemption).
//
// Retries follow retry_policy.h: a binding is a POST, so it is retried only
// when it never reached the server or was refused with 429; a 409 Conflict
// means the pod is already bound (kConflict). A status patch is a PATCH and is
// not retried on 5xx either; the caller's work queue retries it. A delete is
// idempotent and retried; a retried delete whose first attempt succeeded
// answers kNotFound, which callers treat as done.
//
// Thread-safety: as RestClient.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "pkg/api/types.h"
#include "pkg/client/rest_client.h"
#include "pkg/util/status.h"

namespace ksched::client {

// POST /api/v1/namespaces/{binding.metadata.namespace}/pods/{binding.metadata.name}/binding.
// When the POST fails in a way that leaves open whether the server bound
// the pod (the answer lost, a 5xx), the pod is read back: bound
// to the target node (the same uid, when the binding names one) is
// success; otherwise, or when the read fails, the POST's error is returned.
util::Status BindPod(RestClient& client, const api::Binding& binding);

// PATCH /api/v1/namespaces/{ns}/pods/{name}/status. With the default
// strategic merge patch, status.conditions entries merge by "type", so
// {"status":{"conditions":[{"type":"PodScheduled",...}]}} touches only that
// condition. Returns the updated pod.
util::StatusOr<api::Pod> PatchPodStatus(RestClient& client, const std::string& ns, const std::string& name,
                                        const nlohmann::json& patch, PatchType type = PatchType::kStrategicMerge);

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;  // nullopt: the pod's own
  std::string precondition_uid;                 // delete only this incarnation
  std::string precondition_resource_version;
};

// The meta/v1 DeleteOptions body for `options` (null when all unset).
nlohmann::json DeleteOptionsJson(const DeleteOptions& options);

// DELETE /api/v1/namespaces/{ns}/pods/{name}. A failed precondition answers
// kConflict.
util::Status DeletePod(RestClient& client, const std::string& ns, const std::string& name,
                       const DeleteOptions& options = {});

}  // namespace ksched::client
