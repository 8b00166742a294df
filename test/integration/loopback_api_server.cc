#include "test/integration/loopback_api_server.h"

namespace ksched::integration {

util::StatusOr<std::unique_ptr<LoopbackApiServer>> LoopbackApiServer::Start(
    const LoopbackApiServerOptions& options) {
  std::unique_ptr<LoopbackApiServer> s(new LoopbackApiServer());
  s->handler_ = std::make_unique<apiserver::ApiHandler>(options.server, util::RealClock::Get());
  if (options.simulation_delay) {
    util::Clock& clock = options.simulation_clock ? *options.simulation_clock : util::RealClock::Get();
    s->simulation_ = std::make_unique<apiserver::ClusterSimulation>(*s->handler_, clock, *options.simulation_delay);
  }
  apiserver::HttpServerOptions http;
  http.port = 0;
  s->http_ = std::make_unique<apiserver::HttpServer>(*s->handler_, http);
  util::Status started = s->http_->Start();
  if (!started.ok()) return started;
  s->rest_.host = s->http_->url();
  s->rest_.qps = 0;
  util::StatusOr<std::unique_ptr<client::RestClient>> c = s->NewClient();
  if (!c.ok()) return c.status();
  s->client_ = std::move(c).value();
  return s;
}

LoopbackApiServer::~LoopbackApiServer() {
  simulation_.reset();
  if (handler_) handler_->Shutdown();
  if (http_) http_->Stop();
}

util::StatusOr<std::unique_ptr<client::RestClient>> LoopbackApiServer::NewClient(
    client::RestClientOptions options) const {
  return client::RestClient::Create(rest_, util::RealClock::Get(), std::move(options));
}

}  // namespace ksched::integration
