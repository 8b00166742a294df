#include "pkg/client/retry_policy.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ksched::client {

bool IsRetryable(bool idempotent, AttemptFailure failure, int http_code) {
  switch (failure) {
    case AttemptFailure::kNotSent: return true;
    case AttemptFailure::kConnectionLost: return idempotent;
    case AttemptFailure::kTimeout: return false;
    case AttemptFailure::kTlsHandshake: return false;
    case AttemptFailure::kInvalidRequest: return false;
    case AttemptFailure::kHttpStatus:
      if (http_code == 429) return true;
      return idempotent && (http_code == 500 || http_code == 502 || http_code == 503 || http_code == 504);
  }
  return false;
}

util::Duration RetryDelay(const RetryPolicy& policy, int retry, std::optional<util::Duration> retry_after,
                          double random01) {
  if (retry_after) return std::clamp(*retry_after, util::Duration::zero(), policy.max_retry_after);
  double base = std::chrono::duration<double>(policy.initial_backoff).count() *
                std::pow(policy.factor, std::max(0, retry - 1));
  double cap = std::chrono::duration<double>(policy.max_backoff).count();
  double seconds = std::min(base, cap) * (1.0 + policy.jitter * std::clamp(random01, 0.0, 1.0));
  return std::chrono::round<util::Duration>(std::chrono::duration<double>(seconds));
}

std::optional<util::Duration> ParseRetryAfter(std::string_view header) {
  size_t b = header.find_first_not_of(" \t");
  size_t e = header.find_last_not_of(" \t");
  if (b == std::string_view::npos) return std::nullopt;
  header = header.substr(b, e - b + 1);
  long long seconds = 0;
  auto [ptr, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
  if (ec != std::errc() || ptr != header.data() + header.size() || seconds < 0) return std::nullopt;
  return std::chrono::seconds(seconds);
}

}  // namespace ksched::client
