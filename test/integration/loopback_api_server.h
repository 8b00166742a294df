// LoopbackApiServer: an in-process kube-apiserver-lite on an ephemeral
// loopback port, as the integration tests start it: the API handler, the
// simulated kubelets and controllers when asked for, the HTTP server, and
// one REST client for the test to drive it with.
//
// Ownership: owns all of the above. The destructor stops the simulation,
// shuts the handler down and stops the HTTP server, in that order; stop
// whatever watches the server (informers, a scheduler) first.
//
// Thread-safety: the accessors are safe from any thread once Start has
// returned (the objects they hand out are thread-safe); Start and the
// destructor run on the test's thread.
#pragma once

#include <memory>
#include <optional>

#include "pkg/apiserverlite/cluster_simulation.h"
#include "pkg/apiserverlite/handler.h"
#include "pkg/apiserverlite/server.h"
#include "pkg/client/rest_client.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::integration {

struct LoopbackApiServerOptions {
  apiserver::ServerOptions server;
  // With a value, the simulated kubelets, PV controller and resource-claim
  // controller (ClusterSimulation) act after this delay.
  std::optional<util::Duration> simulation_delay;
  // The simulation's clock; null: the real clock. Must outlive the server.
  util::Clock* simulation_clock = nullptr;
};

class LoopbackApiServer {
 public:
  // Starts the handler (on the real clock), the simulation if asked for and
  // the HTTP server, and connects the client; the error of whichever fails.
  static util::StatusOr<std::unique_ptr<LoopbackApiServer>> Start(const LoopbackApiServerOptions& options);
  ~LoopbackApiServer();
  LoopbackApiServer(const LoopbackApiServer&) = delete;
  LoopbackApiServer& operator=(const LoopbackApiServer&) = delete;

  // How to reach the server: its URL, no client-side rate limit.
  const client::RestConfig& rest() const { return rest_; }
  // The client Start connected (default options).
  client::RestClient& client() { return *client_; }
  // Another client of the server, with other options (retries, timeouts).
  util::StatusOr<std::unique_ptr<client::RestClient>> NewClient(client::RestClientOptions options = {}) const;

  apiserver::ApiHandler& handler() { return *handler_; }
  // Null unless Start was given a simulation delay.
  apiserver::ClusterSimulation* simulation() { return simulation_.get(); }

 private:
  LoopbackApiServer() = default;

  // Declared in construction order; the destructor stops them in reverse.
  std::unique_ptr<apiserver::ApiHandler> handler_;
  std::unique_ptr<apiserver::ClusterSimulation> simulation_;
  std::unique_ptr<apiserver::HttpServer> http_;
  client::RestConfig rest_;
  std::unique_ptr<client::RestClient> client_;
};

}  // namespace ksched::integration
