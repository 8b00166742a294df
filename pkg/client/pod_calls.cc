#include "pkg/client/pod_calls.h"

#include "pkg/api/json_reader.h"
#include "pkg/client/resource_path.h"
#include "pkg/client/typed.h"

namespace ksched::client {

namespace {

util::Status PostBinding(RestClient& client, const api::Binding& binding) {
  // As client.Post(...).status(): the answer (a Status) must be JSON, but
  // nothing in it is used, so it is only syntax-checked, not parsed.
  Request r;
  r.verb = "POST";
  r.path = ObjectPath<api::Pod>(binding.metadata.namespace_, binding.metadata.name, "binding");
  r.body = api::ToJsonText(binding);
  // The binder's error becomes the pod's FailedScheduling message.
  r.server_message_errors = true;
  util::StatusOr<Response> resp = client.Do(r);
  if (!resp.ok()) return resp.status();
  api::JsonReader reader(resp->body);
  if (reader.AtEnd() || (reader.SkipValue() && reader.AtEnd())) return util::Status::Ok();
  return ParseJsonBody(r, *resp).status();
}

// Whether the server may have bound the pod although the POST failed: its
// answer was lost (the connection broke or timed out once the request was
// out) or a 5xx came (a proxy's, or the server's after it wrote). A
// conflict stays a binding error, as kube's: another binder was first (a
// POST is retried only when it never reached the server).
bool MayHaveBound(const util::Status& s) {
  return s.code() == util::StatusCode::kUnavailable || s.code() == util::StatusCode::kDeadlineExceeded;
}

}  // namespace

util::Status BindPod(RestClient& client, const api::Binding& binding) {
  if (binding.metadata.namespace_.empty() || binding.metadata.name.empty()) {
    return util::InvalidArgument("binding needs the pod's namespace and name in its metadata");
  }
  if (binding.target.name.empty()) return util::InvalidArgument("binding needs a target node name");
  util::Status posted = PostBinding(client, binding);
  if (posted.ok() || !MayHaveBound(posted)) return posted;
  // A scheduler that took such a binding as failed would free the pod's
  // room on the node while the pod is in fact there, and could fill it
  // twice before its informer shows the pod bound: the pod is read back.
  util::StatusOr<api::Pod> pod = GetObject<api::Pod>(client, binding.metadata.namespace_, binding.metadata.name);
  if (pod.ok() && pod->spec.node_name == binding.target.name &&
      (binding.metadata.uid.empty() || pod->metadata.uid == binding.metadata.uid)) {
    return util::Status::Ok();
  }
  return posted;
}

util::StatusOr<api::Pod> PatchPodStatus(RestClient& client, const std::string& ns, const std::string& name,
                                        const nlohmann::json& patch, PatchType type) {
  if (ns.empty() || name.empty()) return util::InvalidArgument("pod status patch needs a namespace and a name");
  return DecodeResult<api::Pod>(client.Patch(ObjectPath<api::Pod>(ns, name, "status"), type, patch));
}

nlohmann::json DeleteOptionsJson(const DeleteOptions& options) {
  nlohmann::json body = nullptr;
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (!options.precondition_uid.empty()) body["preconditions"]["uid"] = options.precondition_uid;
  if (!options.precondition_resource_version.empty()) {
    body["preconditions"]["resourceVersion"] = options.precondition_resource_version;
  }
  if (!body.is_null()) {
    body["kind"] = "DeleteOptions";
    body["apiVersion"] = "v1";
  }
  return body;
}

util::Status DeletePod(RestClient& client, const std::string& ns, const std::string& name,
                       const DeleteOptions& options) {
  if (ns.empty() || name.empty()) return util::InvalidArgument("pod delete needs a namespace and a name");
  return client.Delete(ObjectPath<api::Pod>(ns, name), DeleteOptionsJson(options)).status();
}

}  // namespace ksched::client
