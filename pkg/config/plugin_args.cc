#include "pkg/config/plugin_args.h"

#include "pkg/config/types.h"

namespace ksched::config {

std::string_view PluginArgs::kind() const { return codec_ == nullptr ? std::string_view() : codec_->Kind(); }

nlohmann::ordered_json ArgsTypeMeta(std::string_view kind) {
  return nlohmann::ordered_json{{"apiVersion", kApiVersionV1}, {"kind", std::string(kind)}};
}

nlohmann::ordered_json ArgsToJson(const PluginArgs& args) {
  if (const ArgsCodec* codec = args.codec()) return codec->Encode(args);
  if (const UntypedArgs* u = args.Get<UntypedArgs>()) return nlohmann::ordered_json::parse(u->raw.dump());
  return nullptr;
}

}  // namespace ksched::config
