// PrometheusRequestMetrics: client-go's rest_client_* families
// (k8s.io/component-base/metrics/prometheus/restclient), fed by RestClient
// (request_metrics.h), on a prometheus-cpp registry, so dashboards and
// alerts written for kube-scheduler's API traffic work unchanged:
//
//   rest_client_requests_total                 counter    {code, host, method}
//   rest_client_request_retries_total          counter    {code, host, verb}
//   rest_client_request_duration_seconds       histogram  {host, verb}
//   rest_client_rate_limiter_duration_seconds  histogram  {host, verb}
//   rest_client_request_size_bytes             histogram  {host, verb}
//   rest_client_response_size_bytes            histogram  {host, verb}
//
// `code` is the HTTP status, or "<error>" when no response arrived. Their
// help texts are kube 1.35-1.37's (all [ALPHA], unchanged in that range).
// client-go's transport-cache and exec-plugin families are not exported:
// ksched has neither (docs/conformance.md).
//
// One instance serves every client of the process, as client-go's global
// families do. Thread-safety: thread-safe. Lifetime: the registry must
// outlive this object, and this object every client using it.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>

#include "pkg/client/request_metrics.h"
#include "pkg/metrics/metric_vec.h"

namespace ksched::client {

class PrometheusRequestMetrics final : public RequestMetrics {
 public:
  explicit PrometheusRequestMetrics(prometheus::Registry& registry);

  void ObserveRateLimiterLatency(std::string_view host, std::string_view verb, util::Duration wait) override;
  void ObserveAttempt(std::string_view host, std::string_view verb, int http_code, bool retry,
                      size_t request_bytes) override;
  void ObserveRequest(std::string_view host, std::string_view verb, util::Duration latency,
                      std::optional<size_t> response_bytes) override;

 private:
  std::unique_ptr<metrics::MetricVec<prometheus::Counter, 3>> requests_;  // code, host, method
  std::unique_ptr<metrics::MetricVec<prometheus::Counter, 3>> retries_;   // code, host, verb
  std::unique_ptr<metrics::MetricVec<prometheus::Histogram, 2>> duration_;      // host, verb
  std::unique_ptr<metrics::MetricVec<prometheus::Histogram, 2>> rate_limiter_;  // host, verb
  std::unique_ptr<metrics::MetricVec<prometheus::Histogram, 2>> request_size_;  // host, verb
  std::unique_ptr<metrics::MetricVec<prometheus::Histogram, 2>> response_size_;  // host, verb
};

}  // namespace ksched::client
