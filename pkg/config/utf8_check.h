// UTF-8 validity of a decoded YAML document.
//
// kube-scheduler's YAML reader (go-yaml) takes UTF-8 only and refuses
// escapes of UTF-16 surrogates ("\uD800"); yaml-cpp passes bytes that are
// not UTF-8, and such escapes, through into scalars. Text that is not UTF-8
// would then reach JSON encoding (nlohmann refuses it: /configz, error
// messages that quote a value), so the decoder rejects it first.
//
// Thread-safety: pure functions.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string_view>

namespace ksched::config {

// Well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points
// above U+10FFFF).
bool IsValidUtf8(std::string_view s);

// The first key or scalar of `root` (document order) that is not valid
// UTF-8, with the node's position; nullopt when all are. Nodes shared
// through aliases are visited once, so the walk is linear in the document.
std::optional<YAML::Mark> FindInvalidUtf8(const YAML::Node& root);

}  // namespace ksched::config
