// Backoff: the delay before a Reflector retries a failed list or watch,
// following client-go's reflector backoff manager: exponential from 800 ms,
// doubling, capped at 30 s, each delay stretched by a random jitter of up to
// 100% (so delays settle in [30 s, 60 s)), and back to the initial delay
// once no backoff was needed for 2 minutes (the server is healthy again).
//
// Time comes from the injected util::Clock; randomness from a seeded
// generator, so tests get reproducible delays.
//
// Thread-safety: not thread-safe; one Reflector thread owns it.
#pragma once

#include <cstdint>
#include <random>

#include "pkg/util/clock.h"

namespace ksched::informer {

struct BackoffOptions {
  util::Duration initial = std::chrono::milliseconds(800);
  util::Duration max = std::chrono::seconds(30);
  // Next() after this long without a Next() starts again from `initial`.
  util::Duration reset_after = std::chrono::minutes(2);
  double factor = 2.0;
  // Each delay is base * (1 + jitter * U[0, 1)).
  double jitter = 1.0;
};

class Backoff {
 public:
  // `clock` must outlive the Backoff. seed 0 picks a random seed.
  Backoff(const util::Clock& clock, BackoffOptions options, uint64_t seed);

  // The delay to wait now; advances the exponential step.
  util::Duration Next();
  // Starts again from `initial` (after a success).
  void Reset();

 private:
  const util::Clock& clock_;
  const BackoffOptions options_;
  std::mt19937_64 rng_;
  util::Duration base_;
  bool started_ = false;
  util::TimePoint last_;
};

}  // namespace ksched::informer
