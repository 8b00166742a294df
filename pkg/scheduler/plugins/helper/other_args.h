// OtherArgs: an args type of no plugin, for tests that hand a plugin's
// factory args of the wrong type.
//
// Thread-safety: a plain value; the codec is immutable.
#pragma once

#include "pkg/config/plugin_args.h"

namespace ksched::scheduler::plugins::helper {

struct OtherArgs {
  static const config::ArgsCodec& Codec() {
    static const auto* const kCodec = new config::TypedArgsCodec<OtherArgs>(
        {"OtherArgs", [](config::YamlReader*, config::MapReader&, std::string_view, OtherArgs*) {}, nullptr, nullptr,
         [](const OtherArgs&, nlohmann::ordered_json*) {}});
    return *kCodec;
  }
};

}  // namespace ksched::scheduler::plugins::helper
