// RequestMetrics: where a RestClient reports what client-go's rest_client_*
// families measure (prometheus_metrics.h exports them). `host` is the
// server's host[:port] as its URL names it; `verb` the HTTP method.
//
// What is observed when, as client-go does:
//   - every client-side throttling wait, zero included, when qps limits the
//     client (watches too);
//   - every attempt, retries and watches included, with its status code
//     (0 when no response arrived) and the size of the body it sent;
//   - every Do() call once (not watches): its latency from the first
//     throttling wait to the last attempt's end, and the size of the body
//     it read, when a response arrived.
//
// Thread-safety: implementations must be thread-safe; RestClient calls them
// on the calling thread with no lock held.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "pkg/util/clock.h"

namespace ksched::client {

class RequestMetrics {
 public:
  virtual ~RequestMetrics() = default;

  virtual void ObserveRateLimiterLatency(std::string_view host, std::string_view verb, util::Duration wait) = 0;
  // `retry`: the attempt is not the call's first.
  virtual void ObserveAttempt(std::string_view host, std::string_view verb, int http_code, bool retry,
                              size_t request_bytes) = 0;
  virtual void ObserveRequest(std::string_view host, std::string_view verb, util::Duration latency,
                              std::optional<size_t> response_bytes) = 0;
};

}  // namespace ksched::client
