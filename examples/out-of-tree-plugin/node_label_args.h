// NodeLabelArgs: the arguments of the NodeLabel example plugin, and their
// codec (decode from YAML with positions, defaults, validation, encoding).
//
//   pluginConfig:
//   - name: NodeLabel
//     args:
//       labelKey: example.com/tier      # required: a qualified label name
//       weights:                        # label value -> score in [0, 100];
//         gold: 100                     # at least one entry
//         silver: 40
//
// Thread-safety: a plain value; the codec is immutable.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "pkg/pluginapi/plugin_api.h"

namespace nodelabel {

struct NodeLabelArgs {
  static const ksched::config::ArgsCodec& Codec();

  std::string label_key;
  std::map<std::string, int64_t> weights;  // label value -> score
};

// kube-style field errors below `path` ("labelKey: Required value", ...).
ksched::config::ErrorList ValidateNodeLabelArgs(const std::string& path, const NodeLabelArgs& a);

}  // namespace nodelabel
