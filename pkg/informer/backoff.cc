#include "pkg/informer/backoff.h"

#include <algorithm>

namespace ksched::informer {

Backoff::Backoff(const util::Clock& clock, BackoffOptions options, uint64_t seed)
    : clock_(clock), options_(options), rng_(seed != 0 ? seed : std::random_device{}()), base_(options.initial) {}

util::Duration Backoff::Next() {
  util::TimePoint now = clock_.Now();
  if (started_ && now - last_ >= options_.reset_after) base_ = options_.initial;
  started_ = true;
  last_ = now;
  util::Duration base = base_;
  auto next = std::chrono::duration_cast<util::Duration>(base * options_.factor);
  base_ = std::min(next, options_.max);
  double stretch = options_.jitter > 0 ? options_.jitter * std::uniform_real_distribution<double>(0, 1)(rng_) : 0;
  return base + std::chrono::duration_cast<util::Duration>(base * stretch);
}

void Backoff::Reset() {
  base_ = options_.initial;
  started_ = false;
}

}  // namespace ksched::informer
