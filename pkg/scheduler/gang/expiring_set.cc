#include "pkg/scheduler/gang/expiring_set.h"

#include <algorithm>

namespace ksched::scheduler::gang {

void ExpiringSet::Add(const GangKey& key, util::Duration ttl) {
  if (ttl <= util::Duration::zero()) return;
  const util::TimePoint now = clock_.Now();
  std::lock_guard<std::mutex> l(mu_);
  std::erase_if(deadlines_, [now](const auto& e) { return e.second <= now; });
  util::TimePoint& deadline = deadlines_[key];
  deadline = std::max(deadline, now + ttl);
}

bool ExpiringSet::Contains(const GangKey& key) const {
  const util::TimePoint now = clock_.Now();
  std::lock_guard<std::mutex> l(mu_);
  auto it = deadlines_.find(key);
  if (it == deadlines_.end()) return false;
  if (it->second <= now) {
    deadlines_.erase(it);
    return false;
  }
  return true;
}

void ExpiringSet::Remove(const GangKey& key) {
  std::lock_guard<std::mutex> l(mu_);
  deadlines_.erase(key);
}

}  // namespace ksched::scheduler::gang
