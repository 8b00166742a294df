#include "pkg/client/typed.h"

namespace ksched::client {

std::string RawObjectKey(const nlohmann::json& object) {
  std::string ns, name;
  if (object.is_object()) {
    auto meta = object.find("metadata");
    if (meta != object.end() && meta->is_object()) {
      auto n = meta->find("name");
      if (n != meta->end() && n->is_string()) name = n->get<std::string>();
      auto s = meta->find("namespace");
      if (s != meta->end() && s->is_string()) ns = s->get<std::string>();
    }
  }
  if (name.empty()) return "<unknown>";
  return ns.empty() ? name : ns + "/" + name;
}

util::Status DecodeFailure(std::string_view context, std::string_view resource, const nlohmann::json& object,
                           const util::Status& decode_status) {
  return util::InvalidArgument(std::string(context) + std::string(resource) + " " + RawObjectKey(object) + ": " +
                               decode_status.message());
}

}  // namespace ksched::client
