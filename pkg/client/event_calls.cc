#include "pkg/client/event_calls.h"

#include "pkg/client/resource_path.h"
#include "pkg/client/typed.h"

namespace ksched::client {

util::Status CreateEvent(RestClient& client, const api::Event& event) {
  if (event.metadata.namespace_.empty()) return util::InvalidArgument("event needs a namespace");
  Request r;
  r.verb = "POST";
  r.path = CollectionPath<api::Event>(event.metadata.namespace_);
  r.body = api::ToJsonText(event);
  return client.Do(r).status();
}

util::StatusOr<api::Event> PatchEvent(RestClient& client, const std::string& ns, const std::string& name,
                                      const nlohmann::json& patch, PatchType type) {
  if (ns.empty() || name.empty()) return util::InvalidArgument("event patch needs a namespace and a name");
  return DecodeResult<api::Event>(client.Patch(ObjectPath<api::Event>(ns, name), type, patch));
}

}  // namespace ksched::client
