#include "pkg/client/prometheus_metrics.h"
#include "pkg/util/seconds.h"

#include <prometheus/family.h>

#include <chrono>
#include <string>
#include <vector>

namespace ksched::client {

namespace {

// component-base's buckets: seconds for latencies, 64 B to 16 MiB for sizes.
const std::vector<double> kLatencyBuckets = {0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60};
const std::vector<double> kSizeBuckets = {64, 256, 512, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216};

template <std::size_t N>
std::unique_ptr<metrics::MetricVec<prometheus::Counter, N>> CounterVec(prometheus::Registry& registry,
                                                                       const std::string& name, const std::string& help,
                                                                       std::array<std::string, N> labels) {
  auto& family = prometheus::BuildCounter().Name(name).Help("[ALPHA] " + help).Register(registry);
  return std::make_unique<metrics::MetricVec<prometheus::Counter, N>>(family, std::move(labels));
}

std::unique_ptr<metrics::MetricVec<prometheus::Histogram, 2>> HistogramVec(prometheus::Registry& registry,
                                                                           const std::string& name,
                                                                           const std::string& help,
                                                                           const std::vector<double>& buckets) {
  auto& family = prometheus::BuildHistogram().Name(name).Help("[ALPHA] " + help).Register(registry);
  return std::make_unique<metrics::MetricVec<prometheus::Histogram, 2>>(
      family, std::array<std::string, 2>{"host", "verb"}, buckets);
}

}  // namespace

PrometheusRequestMetrics::PrometheusRequestMetrics(prometheus::Registry& registry)
    : requests_(CounterVec<3>(registry, "rest_client_requests_total",
                              "Number of HTTP requests, partitioned by status code, method, and host.",
                              {"code", "host", "method"})),
      retries_(CounterVec<3>(registry, "rest_client_request_retries_total",
                             "Number of request retries, partitioned by status code, verb, and host.",
                             {"code", "host", "verb"})),
      duration_(HistogramVec(registry, "rest_client_request_duration_seconds",
                             "Request latency in seconds. Broken down by verb, and host.", kLatencyBuckets)),
      rate_limiter_(HistogramVec(registry, "rest_client_rate_limiter_duration_seconds",
                                 "Client side rate limiter latency in seconds. Broken down by verb, and host.",
                                 kLatencyBuckets)),
      request_size_(HistogramVec(registry, "rest_client_request_size_bytes",
                                 "Request size in bytes. Broken down by verb and host.", kSizeBuckets)),
      response_size_(HistogramVec(registry, "rest_client_response_size_bytes",
                                  "Response size in bytes. Broken down by verb and host.", kSizeBuckets)) {}

void PrometheusRequestMetrics::ObserveRateLimiterLatency(std::string_view host, std::string_view verb,
                                                         util::Duration wait) {
  rate_limiter_->With({host, verb}).Observe(util::Seconds(wait));
}

void PrometheusRequestMetrics::ObserveAttempt(std::string_view host, std::string_view verb, int http_code, bool retry,
                                              size_t request_bytes) {
  const std::string code = http_code == 0 ? "<error>" : std::to_string(http_code);
  requests_->With({code, host, verb}).Increment();
  if (retry) retries_->With({code, host, verb}).Increment();
  request_size_->With({host, verb}).Observe(static_cast<double>(request_bytes));
}

void PrometheusRequestMetrics::ObserveRequest(std::string_view host, std::string_view verb, util::Duration latency,
                                              std::optional<size_t> response_bytes) {
  duration_->With({host, verb}).Observe(util::Seconds(latency));
  if (response_bytes) response_size_->With({host, verb}).Observe(static_cast<double>(*response_bytes));
}

}  // namespace ksched::client
