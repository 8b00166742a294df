// PATCH bodies applied to raw JSON objects:
//  - RFC 7386 JSON merge patch (application/merge-patch+json);
//  - Kubernetes strategic merge patch (application/strategic-merge-patch+json)
//    for the lists the scheduler, kubectl and the kubelet touch: lists of
//    objects merged by their patch-merge key (containers, initContainers,
//    ephemeralContainers, volumes, env, imagePullSecrets, schedulingGates,
//    resourceClaims by name; ports by containerPort; volumeMounts by
//    mountPath; conditions by type; node addresses by type; ownerReferences
//    by uid; topologySpreadConstraints by topologyKey), primitive lists
//    merged as sets (finalizers, podCIDRs), every other list replaced; the
//    directives $patch (replace, merge, delete), $retainKeys,
//    $setElementOrder/<list> and $deleteFromPrimitiveList/<list>;
//  - RFC 6902 JSON patch (application/json-patch+json).
//
// Errors are ApiErrors: 400 BadRequest for a malformed patch document, 422
// Invalid for a patch that cannot apply (a failed "test", a missing path).
//
// Free functions without shared state.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "pkg/apiserverlite/api_error.h"

namespace ksched::apiserver {

enum class PatchType { kMerge, kStrategicMerge, kJson };

// Maps a Content-Type ("application/merge-patch+json; charset=utf-8") to a
// patch type; false when unsupported.
bool ParsePatchType(std::string_view content_type, PatchType* type);

ApiResult<nlohmann::json> ApplyMergePatch(const nlohmann::json& original,
                                          const nlohmann::json& patch);
// `kind` selects the merge keys ("Pod", "Node", ...): the same field name can
// be merged differently in different kinds.
ApiResult<nlohmann::json> ApplyStrategicMergePatch(const nlohmann::json& original,
                                                   const nlohmann::json& patch,
                                                   const std::string& kind);
ApiResult<nlohmann::json> ApplyJsonPatch(const nlohmann::json& original,
                                         const nlohmann::json& patch);

// Applies `body` (already parsed) of the given type.
ApiResult<nlohmann::json> ApplyPatch(PatchType type, const nlohmann::json& original,
                                     const nlohmann::json& patch, const std::string& kind);

}  // namespace ksched::apiserver
