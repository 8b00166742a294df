#include "pkg/config/decode_pluginargs.h"

#include <string>

#include "pkg/config/types.h"

namespace ksched::config {
namespace {

// The optional TypeMeta inside args must name this plugin's args kind in the
// document's group.
void CheckTypeMeta(YamlReader* r, MapReader& m, std::string_view plugin_name, std::string_view kind,
                   std::string_view api_version) {
  std::string want_kind(kind);
  if (std::optional<Value> v = m.Get("apiVersion")) {
    std::optional<std::string> got = r->String(*v);
    if (got && *got != api_version) {
      r->Fail(ErrorType::kInvalid, v->path, v->pos,
              "Invalid value: " + Quote(*got) + ": args for plugin " + std::string(plugin_name) +
                  " must have apiVersion " + Quote(api_version));
    }
  }
  if (std::optional<Value> v = m.Get("kind")) {
    std::optional<std::string> got = r->String(*v);
    if (got && *got != want_kind) {
      r->Fail(ErrorType::kInvalid, v->path, v->pos,
              "Invalid value: " + Quote(*got) + ": args for plugin " + std::string(plugin_name) + " were not of type " +
                  std::string(kGroupName) + "/" + want_kind + ", got " + std::string(kGroupName) + "/" + *got);
    }
  }
}

}  // namespace

PluginArgs DecodePluginArgs(YamlReader* r, std::string_view plugin_name, std::string_view api_version,
                            const Value& args, const KnownPlugins& known) {
  if (const ArgsCodec* codec = known.Codec(plugin_name)) {
    MapReader m(r, args);
    CheckTypeMeta(r, m, plugin_name, codec->Kind(), api_version);
    PluginArgs out = codec->Decode(r, m, api_version);
    m.Finish();
    return out;
  }
  // No args type: nothing, `{}` and null are "no args"; anything else is kept
  // for validation to reject.
  if (args.node.IsNull()) return PluginArgs();
  if (!args.node.IsMap()) {
    r->TypeError(args, "a mapping");
    return PluginArgs();
  }
  if (args.node.size() == 0) return PluginArgs();
  return UntypedArgs{NodeToJson(args.node)};
}

}  // namespace ksched::config
