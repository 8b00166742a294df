// ApiWriterClient: the API calls the ApiWriter makes, as an interface so the
// writer can be tested with a fake and the REST client plugs in later.
//
// Error contract (util::StatusCode), as the REST client maps HTTP status:
//   kNotFound       404: the object (or its namespace) does not exist
//   kAlreadyExists  409 on create
//   kConflict       409 otherwise (optimistic concurrency)
//   kUnavailable    connection errors, 5xx, 429: transient
//   kDeadlineExceeded  the request timed out: transient
//   kInvalidArgument   400/422: the server rejected the content
// The writer retries kConflict, kUnavailable, kDeadlineExceeded and
// kInternal; other errors are final for that write.
//
// Thread-safety: implementations must be thread-safe; the writer calls them
// from several worker threads at once (never for the same pod or Event
// concurrently). Calls may block (network I/O); they should time out on
// their own, since ApiWriter::Stop waits for calls in flight.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::apiwriter {

class ApiWriterClient {
 public:
  virtual ~ApiWriterClient() = default;

  // PATCH /api/v1/namespaces/{ns}/pods/{name}/status with a strategic merge
  // patch (Content-Type application/strategic-merge-patch+json): entries of
  // status.conditions merge by their "type", a null value deletes a field.
  virtual util::Status PatchPodStatus(const std::string& ns, const std::string& name,
                                      const nlohmann::json& patch) = 0;

  // DELETE /api/v1/namespaces/{ns}/pods/{name} with a uid precondition
  // (kConflict when the pod under that name is another incarnation).
  virtual util::Status DeletePod(const std::string& ns, const std::string& name, const std::string& uid) = 0;

  // POST /apis/events.k8s.io/v1/namespaces/{event.metadata.namespace}/events
  // (the Event keeps its name on the server).
  virtual util::Status CreateEvent(const api::Event& event) = 0;

  // PATCH /apis/events.k8s.io/v1/namespaces/{ns}/events/{name} with a
  // strategic merge patch, used to update an Event's series.
  virtual util::Status PatchEvent(const std::string& ns, const std::string& name,
                                  const nlohmann::json& patch) = 0;
};

}  // namespace ksched::scheduler::apiwriter
