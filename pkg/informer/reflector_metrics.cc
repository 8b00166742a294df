#include "pkg/informer/reflector_metrics.h"

namespace ksched::informer {

NoopReflectorMetrics& NoopReflectorMetrics::Get() {
  static NoopReflectorMetrics metrics;
  return metrics;
}

template <class F>
void CountingReflectorMetrics::Update(std::string_view resource, F&& f) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = totals_.find(resource);
    if (it == totals_.end()) it = totals_.emplace(std::string(resource), Totals{}).first;
    f(it->second);
  }
  cv_.notify_all();
}

void CountingReflectorMetrics::ObserveList(std::string_view resource, size_t items, util::Duration, bool relist) {
  Update(resource, [&](Totals& t) {
    ++t.lists;
    if (relist) ++t.relists;
    t.listed_items += static_cast<int64_t>(items);
  });
}

void CountingReflectorMetrics::IncListErrors(std::string_view resource) {
  Update(resource, [](Totals& t) { ++t.list_errors; });
}

void CountingReflectorMetrics::IncWatches(std::string_view resource, bool restart) {
  Update(resource, [&](Totals& t) {
    ++t.watches;
    if (restart) ++t.watch_restarts;
  });
}

void CountingReflectorMetrics::ObserveWatch(std::string_view resource, size_t items, util::Duration,
                                            bool short_watch) {
  Update(resource, [&](Totals& t) {
    t.watched_items += static_cast<int64_t>(items);
    if (short_watch) ++t.short_watches;
  });
}

void CountingReflectorMetrics::IncEvents(std::string_view resource, std::string_view type) {
  Update(resource, [&](Totals& t) { ++t.events[std::string(type)]; });
}

void CountingReflectorMetrics::IncDecodeErrors(std::string_view resource) {
  Update(resource, [](Totals& t) { ++t.decode_errors; });
}

void CountingReflectorMetrics::IncForcedRelists(std::string_view resource, std::string_view reason) {
  Update(resource, [&](Totals& t) { ++t.forced_relists[std::string(reason)]; });
}

void CountingReflectorMetrics::ObserveBackoff(std::string_view resource, util::Duration delay) {
  Update(resource, [&](Totals& t) { t.backoffs.push_back(delay); });
}

void CountingReflectorMetrics::SetLastResourceVersion(std::string_view resource, uint64_t resource_version) {
  Update(resource, [&](Totals& t) { t.last_resource_version = resource_version; });
}

CountingReflectorMetrics::Totals CountingReflectorMetrics::Get(std::string_view resource) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = totals_.find(resource);
  return it == totals_.end() ? Totals{} : it->second;
}

std::vector<util::Duration> CountingReflectorMetrics::WaitForBackoffs(std::string_view resource, size_t n,
                                                                      std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  auto count = [&] {
    auto it = totals_.find(resource);
    return it == totals_.end() ? size_t{0} : it->second.backoffs.size();
  };
  cv_.wait_for(lock, timeout, [&] { return count() >= n; });
  auto it = totals_.find(resource);
  return it == totals_.end() ? std::vector<util::Duration>{} : it->second.backoffs;
}

}  // namespace ksched::informer
