#include "pkg/client/token_source.h"

#include <spdlog/spdlog.h>

#include "pkg/client/file.h"

namespace ksched::client {

namespace {

std::string TrimSpace(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

BearerTokenSource::BearerTokenSource(std::string token, std::string token_file, util::Duration refresh_period,
                                     const util::Clock& clock)
    : static_token_(std::move(token)),
      token_file_(std::move(token_file)),
      refresh_period_(refresh_period),
      clock_(clock),
      cached_(static_token_) {}

std::string BearerTokenSource::Token() {
  if (token_file_.empty()) return static_token_;
  std::lock_guard<std::mutex> l(mu_);
  util::TimePoint now = clock_.Now();
  if (have_read_ && now - last_read_ < refresh_period_) return cached_;
  bool first = !have_read_;
  have_read_ = true;
  last_read_ = now;
  util::StatusOr<std::string> content = ReadFileToString(token_file_);
  std::string token = content.ok() ? TrimSpace(*content) : "";
  if (token.empty()) {
    // Keep serving the previous token: a rotation in progress can leave the
    // file briefly missing or empty, and the old token stays valid for a while.
    spdlog::warn("bearer token file {}: {}; keeping the {} token", token_file_,
                 content.ok() ? "empty" : content.status().message(), first ? "configured" : "previous");
    return cached_;
  }
  cached_ = std::move(token);
  return cached_;
}

}  // namespace ksched::client
