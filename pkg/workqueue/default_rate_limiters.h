// The standard rate limiters of client-go's default_rate_limiters.go, and
// their combinations.
//
//  * ItemExponentialFailureRateLimiter: per item, base * 2^failures, capped
//    at max; the computation is done in floating point so a large failure
//    count saturates at max instead of overflowing.
//  * ItemFastSlowRateLimiter: per item, `fast` for the first
//    `max_fast_attempts` failures, `slow` afterwards.
//  * BucketRateLimiter: one token bucket for all items (util::TokenBucket),
//    bounding the overall retry rate; remembers nothing per item.
//  * MaxOfRateLimiter: asks every limiter (so each records the failure) and
//    returns the longest delay.
//  * WithMaxWaitRateLimiter: caps another limiter's delay.
//  * DefaultControllerRateLimiter(): MaxOf(exponential 5 ms .. 1000 s,
//    bucket 10 qps burst 100), what Kubernetes controllers and the scheduler's
//    API writer use.
//
// Thread-safety: every limiter is thread-safe (one mutex each, or none when
// stateless). Complexity: O(1) expected per call, O(k) for MaxOf of k.
#pragma once

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/util/clock.h"
#include "pkg/util/token_bucket.h"
#include "pkg/workqueue/rate_limiter.h"

namespace ksched::workqueue {

inline constexpr util::Duration kDefaultControllerBaseDelay = std::chrono::milliseconds(5);
inline constexpr util::Duration kDefaultControllerMaxDelay = std::chrono::seconds(1000);
inline constexpr double kDefaultBucketQps = 10;
inline constexpr int kDefaultBucketBurst = 100;

template <class T, class Hash = std::hash<T>>
class ItemExponentialFailureRateLimiter final : public RateLimiter<T> {
 public:
  ItemExponentialFailureRateLimiter(util::Duration base_delay, util::Duration max_delay)
      : base_delay_(base_delay), max_delay_(max_delay) {}

  util::Duration When(const T& item) override {
    int exp;
    {
      std::lock_guard<std::mutex> l(mu_);
      int& failures = failures_[item];
      exp = failures;
      if (failures < INT_MAX) ++failures;
    }
    // 2^exp in double is exact until it overflows to infinity, which the
    // comparison below turns into max_delay_.
    double backoff = static_cast<double>(base_delay_.count()) * std::pow(2.0, exp);
    if (!(backoff < static_cast<double>(max_delay_.count()))) return max_delay_;
    return util::Duration(static_cast<util::Duration::rep>(backoff));
  }

  void Forget(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    failures_.erase(item);
  }

  int NumRequeues(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    auto it = failures_.find(item);
    return it == failures_.end() ? 0 : it->second;
  }

 private:
  const util::Duration base_delay_;
  const util::Duration max_delay_;
  std::mutex mu_;
  std::unordered_map<T, int, Hash> failures_;
};

template <class T, class Hash = std::hash<T>>
class ItemFastSlowRateLimiter final : public RateLimiter<T> {
 public:
  ItemFastSlowRateLimiter(util::Duration fast_delay, util::Duration slow_delay,
                          int max_fast_attempts)
      : fast_delay_(fast_delay), slow_delay_(slow_delay), max_fast_attempts_(max_fast_attempts) {}

  util::Duration When(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    int& failures = failures_[item];
    if (failures < INT_MAX) ++failures;
    return failures <= max_fast_attempts_ ? fast_delay_ : slow_delay_;
  }

  void Forget(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    failures_.erase(item);
  }

  int NumRequeues(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    auto it = failures_.find(item);
    return it == failures_.end() ? 0 : it->second;
  }

 private:
  const util::Duration fast_delay_;
  const util::Duration slow_delay_;
  const int max_fast_attempts_;
  std::mutex mu_;
  std::unordered_map<T, int, Hash> failures_;
};

// Every When takes a token, possibly one in the future; the delay is the
// wait for it. Reservations queue up, so a burst of failures is spread out at
// `qps`.
template <class T>
class BucketRateLimiter final : public RateLimiter<T> {
 public:
  explicit BucketRateLimiter(const util::Clock& clock, double qps = kDefaultBucketQps,
                             int burst = kDefaultBucketBurst)
      : bucket_(qps, burst, clock) {}

  util::Duration When(const T&) override { return bucket_.Reserve(); }
  void Forget(const T&) override {}
  int NumRequeues(const T&) override { return 0; }

 private:
  util::TokenBucket bucket_;
};

template <class T>
class MaxOfRateLimiter final : public RateLimiter<T> {
 public:
  explicit MaxOfRateLimiter(std::vector<std::shared_ptr<RateLimiter<T>>> limiters)
      : limiters_(std::move(limiters)) {}

  util::Duration When(const T& item) override {
    util::Duration longest = util::Duration::zero();
    // Every limiter is asked: each records the failure, even when another
    // one's delay wins.
    for (const auto& limiter : limiters_) longest = std::max(longest, limiter->When(item));
    return longest;
  }

  void Forget(const T& item) override {
    for (const auto& limiter : limiters_) limiter->Forget(item);
  }

  int NumRequeues(const T& item) override {
    int most = 0;
    for (const auto& limiter : limiters_) most = std::max(most, limiter->NumRequeues(item));
    return most;
  }

 private:
  const std::vector<std::shared_ptr<RateLimiter<T>>> limiters_;
};

template <class T>
class WithMaxWaitRateLimiter final : public RateLimiter<T> {
 public:
  WithMaxWaitRateLimiter(std::shared_ptr<RateLimiter<T>> limiter, util::Duration max_wait)
      : limiter_(std::move(limiter)), max_wait_(max_wait) {}

  util::Duration When(const T& item) override { return std::min(limiter_->When(item), max_wait_); }
  void Forget(const T& item) override { limiter_->Forget(item); }
  int NumRequeues(const T& item) override { return limiter_->NumRequeues(item); }

 private:
  const std::shared_ptr<RateLimiter<T>> limiter_;
  const util::Duration max_wait_;
};

// MaxOf(exponential 5 ms .. 1000 s per item, bucket 10 qps burst 100 overall).
template <class T, class Hash = std::hash<T>>
std::shared_ptr<RateLimiter<T>> DefaultControllerRateLimiter(const util::Clock& clock) {
  std::vector<std::shared_ptr<RateLimiter<T>>> limiters;
  limiters.push_back(std::make_shared<ItemExponentialFailureRateLimiter<T, Hash>>(
      kDefaultControllerBaseDelay, kDefaultControllerMaxDelay));
  limiters.push_back(
      std::make_shared<BucketRateLimiter<T>>(clock, kDefaultBucketQps, kDefaultBucketBurst));
  return std::make_shared<MaxOfRateLimiter<T>>(std::move(limiters));
}

// Exponential per item, 1 ms .. 1000 s (client-go DefaultItemBasedRateLimiter).
template <class T, class Hash = std::hash<T>>
std::shared_ptr<RateLimiter<T>> DefaultItemBasedRateLimiter() {
  return std::make_shared<ItemExponentialFailureRateLimiter<T, Hash>>(std::chrono::milliseconds(1),
                                                                      kDefaultControllerMaxDelay);
}

}  // namespace ksched::workqueue
