// BearerTokenSource: the bearer token to send, re-read from its file when the
// cached copy is older than the refresh period, because projected
// service-account tokens are rotated by the kubelet (client-go's cached file
// token source does the same every minute).
//
// A failed re-read keeps the last good token and is retried on the next
// call after another refresh period. Thread-safety: Token() is thread-safe;
// the file is read with the lock held, so concurrent callers read it once.
#pragma once

#include <mutex>
#include <string>

#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::client {

class BearerTokenSource {
 public:
  // `token` is used as is when `token_file` is empty; otherwise it is the
  // fallback until the file has been read once. The clock must outlive this.
  BearerTokenSource(std::string token, std::string token_file, util::Duration refresh_period,
                    const util::Clock& clock);

  // The current token; empty when no token is configured.
  std::string Token();

  bool configured() const { return !static_token_.empty() || !token_file_.empty(); }

 private:
  const std::string static_token_;
  const std::string token_file_;
  const util::Duration refresh_period_;
  const util::Clock& clock_;

  std::mutex mu_;
  std::string cached_;
  bool have_read_ = false;      // guarded by mu_
  util::TimePoint last_read_;   // guarded by mu_; time of the last read attempt
};

}  // namespace ksched::client
