// Small helpers over the metadata of raw JSON objects: keys, timestamps,
// UIDs, generated names and resourceVersion parsing.
//
// Free functions; thread-safe (random sources are per thread).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/util/clock.h"

namespace ksched::apiserver {

// "namespace/name" for namespaced objects, "name" otherwise: the order in
// which lists are returned (like etcd's key order).
std::string ObjectKey(std::string_view ns, std::string_view name);

// metadata.name / metadata.namespace, "" when absent or not strings.
std::string ObjectName(const nlohmann::json& obj);
std::string ObjectNamespace(const nlohmann::json& obj);

// metav1.Time: "2006-01-02T15:04:05Z".
std::string FormatTime(util::WallTime t);
// metav1.MicroTime: "2006-01-02T15:04:05.000000Z".
std::string FormatMicroTime(util::WallTime t);

// A random RFC 4122 version 4 UUID, lowercase.
std::string NewUid();
// generateName + 5 random characters from the real server's alphabet.
std::string GenerateName(std::string_view prefix);

// A resourceVersion as sent by clients: "" -> 0, decimal digits -> value,
// anything else -> nullopt.
std::optional<uint64_t> ParseResourceVersion(std::string_view rv);

// Whether `name` is a DNS-1123 subdomain (lowercase alphanumerics, '-' and
// '.', at most 253 characters): the rule for most object names.
bool IsDnsSubdomain(std::string_view name);
// Whether `name` is a DNS-1123 label (at most 63 characters, no dots): the
// rule for namespace names.
bool IsDnsLabel(std::string_view name);

}  // namespace ksched::apiserver
