// Reaching the ksched leader's /debug/explain with the user's own identity.
//
// ksched authorizes /debug/explain per caller (TokenReview or client
// certificate, then a SubjectAccessReview for GET /debug/explain), so the
// request must arrive carrying the user's credentials, end to end:
//   - --endpoint URL: straight to the secure port, with the kubeconfig
//     user's bearer token or client certificate (or --token);
//   - else: the Lease (--lease-namespace/--lease-name) names the leader
//     (holderIdentity "<pod>_<uuid>"); `kubectl port-forward pod/<pod>`
//     opens a tunnel through the API server (which authorizes the user's
//     pods/portforward), and the request goes through it over TLS to ksched
//     with the same credentials. The API server's pod proxy is not used: it
//     drops the user's Authorization header and connects as itself, so
//     ksched could not tell who asks.
// Through the tunnel the daemon's certificate is not verified (it is
// usually self-signed; the tunnel's far end is the pod the API server
// chose); --endpoint verifies it unless --insecure-skip-tls-verify.
//
// Thread-safety: one call at a time.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cmd/kubectl-ksched/options.h"
#include "pkg/client/rest_config.h"
#include "pkg/util/status.h"

namespace ksched::kubectl_ksched {

// The kubeconfig's RestConfig (--kubeconfig, else $KUBECONFIG's first
// existing file, else ~/.kube/config; --context). With --endpoint and no
// kubeconfig at all: an empty config (no credentials but --token).
util::StatusOr<client::RestConfig> LoadUserConfig(const Options& o, const client::Environment& env);

// The RestConfig that talks to ksched at `url` as the user of `user`.
client::RestConfig EndpointConfig(const client::RestConfig& user, const std::string& url, const Options& o,
                                  bool verify);

// The leader's pod name from a Lease's holderIdentity ("<pod>_<uuid>").
util::StatusOr<std::string> LeaderPod(const std::string& holder_identity);

// GET /debug/explain with `query` (empty: the queue summary), reaching the
// leader as described above. `log` gets progress lines (leader, tunnel).
util::StatusOr<nlohmann::json> FetchExplain(const Options& o, const std::vector<std::pair<std::string, std::string>>& query, std::ostream& log);

}  // namespace ksched::kubectl_ksched
