// The object work of the DRA ops (workload.h: createAny,
// allocResourceClaims, createPods' claims_from_templates) as pure functions
// over the objects' JSON, so the runner only sequences them and the rules
// are tested on their own.
//
// Value functions; thread-compatible.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::bench {

// createAny's object `index`: `tmpl` with every "{{.Index}}" in its string
// values replaced by the number (kube's createAny templates use the same
// placeholder).
nlohmann::json InstantiateIndexed(const nlohmann::json& tmpl, int64_t index);

// allocResourceClaims: each of `claims` allocated one device of `slices`,
// round-robin: claim i gets the (i / slices.size())-th device of slice
// i % slices.size(), so the nodes fill evenly, as test/k8s/draperf
// allocates its init claims. Returns the claims with status.allocation set
// (the claim's first request, the device's driver and pool, a node selector
// on the slice's node by metadata.name) and nothing else changed.
// InvalidArgument when a claim has no request, a slice no node, or the
// slices run out of devices.
util::StatusOr<std::vector<nlohmann::json>> AllocateRoundRobin(const std::vector<nlohmann::json>& claims,
                                                                const std::vector<nlohmann::json>& slices);

// claims_from_templates for one pod (metadata.name and .namespace set):
// what kube's resourceclaim controller would make. Each spec.resourceClaims
// entry naming a resourceClaimTemplateName becomes a claim
// "<pod>-<entry name>" in the pod's namespace with the template's
// spec.spec, labels and annotations, and the entry names it by
// resourceClaimName instead. `templates` are keyed "namespace/name".
// Returns the claims to create (none for a pod without template entries);
// NotFound when a template is missing.
util::StatusOr<std::vector<nlohmann::json>> ClaimsFromTemplates(nlohmann::json& pod,
                                                                 const std::map<std::string, nlohmann::json>& templates);

}  // namespace ksched::bench
