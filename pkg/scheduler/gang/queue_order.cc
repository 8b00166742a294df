#include "pkg/scheduler/gang/queue_order.h"

#include <chrono>

namespace ksched::scheduler::gang {

namespace {

// "ns/name" < "ns/name" as strings, without building them.
bool KeyLess(const api::ObjectMeta& a, const api::ObjectMeta& b) {
  auto at = [](const api::ObjectMeta& m, size_t i) -> int {
    const size_t n = m.namespace_.size();
    if (i < n) return static_cast<unsigned char>(m.namespace_[i]);
    if (i == n) return '/';
    i -= n + 1;
    return i < m.name.size() ? static_cast<unsigned char>(m.name[i]) : -1;
  };
  for (size_t i = 0;; ++i) {
    const int ca = at(a, i), cb = at(b, i);
    if (ca != cb) return ca < cb;
    if (ca < 0) return false;
  }
}

}  // namespace

api::Time OrderTime(const framework::QueuedPodInfo& info, const GangSource& source,
                    const util::Clock& clock) {
  if (auto key = source.KeyOf(info.pod())) {
    if (auto policy = source.Policy(*key); policy && policy->creation_time) {
      return *policy->creation_time;
    }
  }
  // Queue times are on the monotonic clock; gangs' creation times are wall
  // times from the API, so map the former onto the wall clock.
  const util::TimePoint t = info.initial_attempt_timestamp.value_or(info.timestamp);
  return std::chrono::time_point_cast<api::Time::duration>(clock.WallNow() + (t - clock.Now()));
}

bool GangLess(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b,
              const GangSource& source, const util::Clock& clock) {
  const int32_t pa = a.pod_info.priority();
  const int32_t pb = b.pod_info.priority();
  if (pa != pb) return pa > pb;
  const api::Time ta = OrderTime(a, source, clock);
  const api::Time tb = OrderTime(b, source, clock);
  if (ta != tb) return ta < tb;
  return KeyLess(a.pod().metadata, b.pod().metadata);
}

}  // namespace ksched::scheduler::gang
