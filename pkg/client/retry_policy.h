// When RestClient retries a request and how long it waits in between.
//
// Retried (at most RetryPolicy::max_retries times after the first attempt):
//   - connection failures before the request reached the server (refused,
//     unreachable): every verb, since nothing was processed;
//   - 429 Too Many Requests: every verb, since the server rejected the
//     request without processing it (API priority and fairness);
//   - other connection failures (reset, closed mid-response) and
//     500/502/503/504: idempotent calls only (GET, PUT, DELETE), because a
//     POST or PATCH may already have taken effect.
// Client-side timeouts are not retried: a server that does not answer within
// the timeout would otherwise stall the caller for max_retries timeouts.
// Failed TLS handshakes are not retried either: they are almost always a
// certificate or trust problem that waiting does not fix.
//
// The wait is the server's Retry-After (whole seconds, capped) when present,
// else initial_backoff * factor^(retry-1) capped at max_backoff, stretched by
// up to `jitter` (a fraction) so that many clients do not retry in lockstep.
//
// Thread-safety: free functions without shared state; RetryPolicy is a value.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "pkg/util/clock.h"

namespace ksched::client {

struct RetryPolicy {
  int max_retries = 10;  // client-go's maxRetries for Retry-After responses
  util::Duration initial_backoff = std::chrono::milliseconds(100);
  double factor = 2.0;
  util::Duration max_backoff = std::chrono::seconds(10);
  double jitter = 0.5;
  util::Duration max_retry_after = std::chrono::seconds(60);
};

// What went wrong with one attempt.
enum class AttemptFailure {
  kNotSent,         // connection refused/unreachable: the server saw nothing
  kConnectionLost,  // reset or closed after the request may have been sent
  kTimeout,         // client-side timeout
  kTlsHandshake,    // TLS handshake failed (bad certificate, wrong CA or name)
  kHttpStatus,      // the server answered with a non-2xx code
  kInvalidRequest,  // the request could not be built (e.g. a malformed path)
};

bool IsRetryable(bool idempotent, AttemptFailure failure, int http_code);

// The wait before retry number `retry` (1 for the first retry). `random01`
// in [0, 1) picks the jitter; tests pass a fixed value.
util::Duration RetryDelay(const RetryPolicy& policy, int retry, std::optional<util::Duration> retry_after,
                          double random01);

// Parses a Retry-After header given in whole seconds ("3"); HTTP dates and
// garbage yield nullopt (client-go ignores them too).
std::optional<util::Duration> ParseRetryAfter(std::string_view header);

}  // namespace ksched::client
