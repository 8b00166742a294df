// Server-side printing: meta.k8s.io Table responses, which kubectl asks for
// (Accept: application/json;as=Table;v=v1;g=meta.k8s.io) so `kubectl get`
// shows the same columns as against a real cluster: pods NAME READY STATUS
// RESTARTS AGE (+ IP, NODE, NOMINATED NODE, READINESS GATES with -o wide),
// nodes NAME STATUS ROLES AGE VERSION (+ addresses), namespaces NAME STATUS
// AGE, everything else NAME AGE.
//
// Free functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "pkg/util/clock.h"

namespace ksched::apiserver {

struct TableOptions {
  std::string api_version = "meta.k8s.io/v1";  // or meta.k8s.io/v1beta1
  // includeObject: "None", "Metadata" (default) or "Object".
  std::string include_object = "Metadata";
};

// The Table request in an Accept header, when its first acceptable media
// type asks for one; nullopt otherwise (plain JSON is then served).
std::optional<TableOptions> ParseTableRequest(std::string_view accept,
                                              std::string_view include_object);

// columnDefinitions for objects of `kind`.
nlohmann::json TableColumns(const std::string& kind);
// One row (cells and, per include_object, the object or its metadata).
nlohmann::json TableRow(const std::string& kind, const nlohmann::json& obj,
                        const TableOptions& options, util::WallTime now);
// A Table; `columns` may be null (watch events after the first).
nlohmann::json MakeTable(const TableOptions& options, nlohmann::json columns,
                         nlohmann::json rows, nlohmann::json list_metadata);

// kubectl's age format: "45s", "3m20s", "17m", "5h3m", "3d4h", "400d", "3y20d".
std::string HumanDuration(util::Duration d);

}  // namespace ksched::apiserver
