// Writing events.k8s.io/v1 Events (the scheduler's Scheduled and
// FailedScheduling events).
//
// Create is a POST: retried only when it never reached the server or was
// refused with 429. Patch updates an existing Event's series (count,
// lastObservedTime) with a strategic merge patch by default, as client-go's
// event recorder does.
//
// Thread-safety: as RestClient.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "pkg/api/types.h"
#include "pkg/client/rest_client.h"
#include "pkg/util/status.h"

namespace ksched::client {

// POST /apis/events.k8s.io/v1/namespaces/{event.metadata.namespace}/events.
// The server's copy in the answer is not decoded: a create keeps the name
// the event carries, and nothing else of it is needed.
util::Status CreateEvent(RestClient& client, const api::Event& event);

// PATCH /apis/events.k8s.io/v1/namespaces/{ns}/events/{name}.
util::StatusOr<api::Event> PatchEvent(RestClient& client, const std::string& ns, const std::string& name,
                                      const nlohmann::json& patch, PatchType type = PatchType::kStrategicMerge);

}  // namespace ksched::client
