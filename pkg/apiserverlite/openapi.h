// Minimal OpenAPI v3 discovery (/openapi/v3 and /openapi/v3/<group-version>).
//
// The documents list every served path and operation, each tagged with
// x-kubernetes-group-version-kind and x-kubernetes-action, and declare the
// query parameters the server accepts (fieldValidation, fieldManager, dryRun,
// ...). That is what kubectl looks up before create/apply/replace/patch to
// decide that validation happens on the server, so `kubectl create -f` works
// without --validate=false. Schemas are not published (components.schemas is
// empty): kubectl then computes apply patches from its compiled-in types, and
// `kubectl explain` has nothing to show.
//
// Free functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

#include "pkg/apiserverlite/resources.h"

namespace ksched::apiserver {

// {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}, ...}}
nlohmann::json OpenApiV3Index(const ResourceTable& table);
// The document of one group-version ("" group for the core API), or null.
nlohmann::json OpenApiV3Document(const ResourceTable& table, std::string_view group,
                                 std::string_view version);

}  // namespace ksched::apiserver
