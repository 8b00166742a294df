// ExpiringSet: gang keys that stay members for a while — the gangs in group
// backoff (a member failed; PreFilter rejects the others until it ends) and
// the gangs whose capacity pre-check passed recently (not re-checked for
// every member). Expiry is measured on the injected clock.
//
// Thread-safety: all methods are thread-safe. Complexity: O(log n); expired
// entries are dropped when looked up or when Add runs.
#pragma once

#include <map>
#include <mutex>

#include "pkg/scheduler/gang/gang.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::gang {

class ExpiringSet {
 public:
  explicit ExpiringSet(const util::Clock& clock) : clock_(clock) {}

  // Adds `key` until now + ttl (a later deadline replaces an earlier one).
  // A ttl <= 0 adds nothing.
  void Add(const GangKey& key, util::Duration ttl);
  // Whether `key` is present and not expired.
  bool Contains(const GangKey& key) const;
  void Remove(const GangKey& key);

 private:
  const util::Clock& clock_;
  mutable std::mutex mu_;
  mutable std::map<GangKey, util::TimePoint> deadlines_;  // guarded by mu_
};

}  // namespace ksched::scheduler::gang
