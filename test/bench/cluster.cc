#include "test/bench/cluster.h"

namespace ksched::bench {

void ScheduledCounter::Add(const std::string& namespace_) {
  std::lock_guard<std::mutex> l(mu_);
  ++counts_[namespace_];
  ++total_;
  cv_.notify_all();
}

int64_t ScheduledCounter::Get(const std::string& namespace_) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = counts_.find(namespace_);
  return it == counts_.end() ? 0 : it->second;
}

int64_t ScheduledCounter::Total() const {
  std::lock_guard<std::mutex> l(mu_);
  return total_;
}

bool ScheduledCounter::WaitFor(const std::string& namespace_, int64_t n, util::Duration timeout) const {
  std::unique_lock<std::mutex> l(mu_);
  return cv_.wait_for(l, timeout, [&] {
    auto it = counts_.find(namespace_);
    return it != counts_.end() && it->second >= n;
  });
}

}  // namespace ksched::bench
