#include "pkg/client/prometheus_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/client/test_server.h"

namespace ksched::client {
namespace {

using testing::RecordedRequest;
using testing::Reply;
using testing::TestServer;

// The sample of `family` whose labels include every pair of `labels`;
// nullopt (and a test failure) when there is none.
std::optional<prometheus::ClientMetric> Sample(prometheus::Registry& registry, const std::string& family,
                                               const std::map<std::string, std::string>& labels) {
  for (const prometheus::MetricFamily& f : registry.Collect()) {
    if (f.name != family) continue;
    for (const prometheus::ClientMetric& m : f.metric) {
      size_t matched = 0;
      for (const prometheus::ClientMetric::Label& l : m.label) {
        auto it = labels.find(l.name);
        if (it != labels.end() && it->second == l.value) ++matched;
      }
      if (matched == labels.size()) return m;
    }
  }
  ADD_FAILURE() << "no sample of " << family << " with the labels asked for";
  return std::nullopt;
}

struct MetricsHarness {
  explicit MetricsHarness(const std::string& url, int max_retries) : metrics(registry) {
    RestConfig config;
    config.host = url;
    config.qps = 1000;  // a limiter, so its waits (zero here) are observed
    config.burst = 10;
    RestClientOptions options;
    options.retry.jitter = 0;
    options.retry.max_retries = max_retries;
    options.jitter_seed = 1;
    options.metrics = &metrics;
    options.observer.on_retry = [this](const Request&, int, util::Duration wait, const util::Status&) {
      clock.Step(wait);
    };
    util::StatusOr<std::unique_ptr<RestClient>> c = RestClient::Create(config, clock, options);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (c.ok()) client = std::move(c).value();
    const size_t authority = url.find("://") + 3;
    host = url.substr(authority);
  }

  prometheus::Registry registry;
  PrometheusRequestMetrics metrics;
  util::FakeClock clock;
  std::unique_ptr<RestClient> client;
  std::string host;
};

// As client-go counts them: every attempt in requests_total, those after
// the first in request_retries_total, the call's latency and response size
// once per call, a throttling wait and a request size per attempt.
TEST(PrometheusRequestMetricsTest, CountsAttemptsRetriesAndCalls) {
  auto count = std::make_shared<std::atomic<int>>(0);
  TestServer server([count](const RecordedRequest&) {
    if (count->fetch_add(1) == 0) return Reply{500, R"({"kind":"Status","code":500})"};
    return Reply{200, R"({"ok":true})"};
  });
  MetricsHarness h(server.url(), /*max_retries=*/3);
  ASSERT_TRUE(h.client->Get("/api/v1/nodes").ok());
  const nlohmann::json binding = {{"kind", "Binding"}};
  ASSERT_TRUE(h.client->Post("/api/v1/namespaces/d/pods/p/binding", binding).ok());

  auto counter = [&](const std::string& family, const std::map<std::string, std::string>& labels) {
    std::optional<prometheus::ClientMetric> m = Sample(h.registry, family, labels);
    return m ? m->counter.value : -1;
  };
  // (count, sum) of a histogram's sample; (0, -1) when absent.
  auto histogram = [&](const std::string& family, const std::map<std::string, std::string>& labels) {
    std::optional<prometheus::ClientMetric> m = Sample(h.registry, family, labels);
    return m ? std::pair<uint64_t, double>(m->histogram.sample_count, m->histogram.sample_sum)
             : std::pair<uint64_t, double>(0, -1);
  };
  using Histogram = std::pair<uint64_t, double>;
  EXPECT_EQ(counter("rest_client_requests_total", {{"code", "500"}, {"method", "GET"}, {"host", h.host}}), 1);
  EXPECT_EQ(counter("rest_client_requests_total", {{"code", "200"}, {"method", "GET"}, {"host", h.host}}), 1);
  EXPECT_EQ(counter("rest_client_request_retries_total", {{"code", "200"}, {"verb", "GET"}}), 1);
  // One GET call: its latency is the 100 ms backoff on the fake clock.
  EXPECT_EQ(histogram("rest_client_request_duration_seconds", {{"verb", "GET"}, {"host", h.host}}),
            Histogram(1, 0.1));
  EXPECT_EQ(histogram("rest_client_response_size_bytes", {{"verb", "GET"}}),
            Histogram(1, std::string(R"({"ok":true})").size()));
  EXPECT_EQ(histogram("rest_client_rate_limiter_duration_seconds", {{"verb", "GET"}}), Histogram(2, 0));
  EXPECT_EQ(histogram("rest_client_request_size_bytes", {{"verb", "POST"}}), Histogram(1, binding.dump().size()));
}

// An attempt with no response is counted with code "<error>", and its
// call's latency is observed with no response size.
TEST(PrometheusRequestMetricsTest, NoResponseIsAnError) {
  std::string url;
  {
    TestServer gone([](const RecordedRequest&) { return Reply{200, "{}"}; });
    url = gone.url();
  }
  MetricsHarness h(url, /*max_retries=*/0);
  ASSERT_FALSE(h.client->Get("/api/v1/nodes").ok());
  std::optional<prometheus::ClientMetric> m =
      Sample(h.registry, "rest_client_requests_total", {{"code", "<error>"}, {"method", "GET"}});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->counter.value, 1);
  m = Sample(h.registry, "rest_client_request_duration_seconds", {{"verb", "GET"}});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->histogram.sample_count, 1u);
  for (const prometheus::MetricFamily& f : h.registry.Collect()) {
    if (f.name == "rest_client_response_size_bytes") {
      EXPECT_TRUE(f.metric.empty());
    }
  }
}

// kube-scheduler's help texts (component-base marks them [ALPHA]).
TEST(PrometheusRequestMetricsTest, HelpTextsAreComponentBases) {
  prometheus::Registry registry;
  PrometheusRequestMetrics metrics(registry);
  // A family is exported once it has a sample.
  metrics.ObserveRateLimiterLatency("h", "GET", util::Duration::zero());
  metrics.ObserveAttempt("h", "GET", 200, /*retry=*/true, 0);
  metrics.ObserveRequest("h", "GET", util::Duration::zero(), 2);
  std::map<std::string, std::string> help;
  for (const prometheus::MetricFamily& f : registry.Collect()) help[f.name] = f.help;
  EXPECT_EQ(help.size(), 6u);
  EXPECT_EQ(help["rest_client_requests_total"],
            "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.");
  EXPECT_EQ(help["rest_client_request_duration_seconds"],
            "[ALPHA] Request latency in seconds. Broken down by verb, and host.");
}

}  // namespace
}  // namespace ksched::client
