// Decoding of Kubernetes protobuf request bodies ("k8s\0" + runtime.Unknown
// wrapping the object's protobuf) into JSON, for the objects kubectl's
// generator commands send as application/vnd.kubernetes.protobuf:
// `kubectl create namespace`, `create priorityclass` and `create pdb`
// (Namespace, PriorityClass, PodDisruptionBudget). Responses are always
// JSON, which those clients also accept. Other kinds answer 415.
//
// Fields outside the schemas here (status, managedFields, ...) are skipped,
// as the server would overwrite them anyway.
//
// Free functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

#include "pkg/apiserverlite/api_error.h"

namespace ksched::apiserver {

bool IsProtobufContentType(std::string_view content_type);

// 415 for an unsupported kind, 400 for a malformed body.
ApiResult<nlohmann::json> DecodeProtobufObject(std::string_view body);

}  // namespace ksched::apiserver
