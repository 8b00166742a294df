// Which kube-scheduler minor a run of ksched behaves as
// (framework::FeatureGates::ForMinor): --emulated-version when given, else
// the API server's own minor, so that ksched fits the cluster it runs in.
//
// Thread-safety: free functions; AskServerMinor blocks its caller.
#pragma once

#include <optional>
#include <stop_token>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/client/rest_client.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::app {

// The minor of a /version answer ({"major": "1", "minor": "37+", ...}): the
// leading digits of "minor" (managed distributions append "+"). An error
// for another major or a minor without digits.
util::StatusOr<int> ServerMinor(const nlohmann::json& version);

struct MinorChoice {
  int minor = 0;
  // For the start-up log: "--emulated-version" or "API server v1.37.2".
  std::string source;
  // Set when the server's minor was outside the supported range and was
  // clamped into it.
  std::optional<std::string> warning;
};

// --emulated-version wins; else `server_minor` clamped into
// [kOldestKubeMinor, kNewestKubeMinor].
MinorChoice ChooseMinor(std::optional<int> emulated_minor, int server_minor, const std::string& server_version);

// GET /version until the server answers with a Kubernetes version, `stop`
// fires (kCancelled) or the answer is not one (kInvalidArgument). Each
// failed attempt is logged, then waited out on `clock`: `first_backoff`,
// doubling up to 10 s (give `client` few retries of its own).
util::StatusOr<MinorChoice> AskServerMinor(client::RestClient& client, const util::Clock& clock,
                                           std::stop_token stop,
                                           util::Duration first_backoff = std::chrono::seconds(1));

}  // namespace ksched::app
