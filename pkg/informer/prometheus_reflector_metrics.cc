#include "pkg/informer/prometheus_reflector_metrics.h"
#include "pkg/util/seconds.h"

#include <chrono>

namespace ksched::informer {

namespace {

using prometheus::Histogram;

prometheus::Family<prometheus::Counter>& Counter(prometheus::Registry& r, const char* name,
                                                 const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}

prometheus::Family<Histogram>& HistogramFamily(prometheus::Registry& r, const char* name,
                                               const char* help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r);
}

// Durations from 10 ms (a list of a few objects on loopback) to ~10 min (a
// full watch, whose timeout is 5-10 min).
Histogram::BucketBoundaries DurationBuckets() {
  return {0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600};
}

// Object counts from one to a 100k-pod cluster.
Histogram::BucketBoundaries ItemBuckets() {
  return {1, 10, 100, 1000, 10000, 100000};
}

}  // namespace

PrometheusReflectorMetrics::PrometheusReflectorMetrics(prometheus::Registry& registry)
    : lists_(Counter(registry, "reflector_lists_total", "Total number of API lists done by the reflectors")),
      list_duration_(HistogramFamily(registry, "reflector_list_duration_seconds",
                                     "How long an API list takes to return and decode for the reflectors")),
      items_per_list_(HistogramFamily(registry, "reflector_items_per_list",
                                      "How many items an API list returns to the reflectors")),
      watches_(Counter(registry, "reflector_watches_total", "Total number of API watches done by the reflectors")),
      short_watches_(Counter(registry, "reflector_short_watches_total",
                             "Total number of short API watches done by the reflectors")),
      watch_duration_(HistogramFamily(registry, "reflector_watch_duration_seconds",
                                      "How long an API watch takes to return and decode for the reflectors")),
      items_per_watch_(HistogramFamily(registry, "reflector_items_per_watch",
                                       "How many items an API watch returns to the reflectors")),
      last_resource_version_(prometheus::BuildGauge()
                                 .Name("reflector_last_resource_version")
                                 .Help("Last resource version seen for the reflectors")
                                 .Register(registry)),
      relists_(Counter(registry, "ksched_reflector_relists_total",
                       "Lists after a reflector's first, after an expired resourceVersion or a failed watch")),
      watch_restarts_(Counter(registry, "ksched_reflector_watch_restarts_total",
                              "Watches resumed from the last resourceVersion without a list")),
      list_errors_(Counter(registry, "ksched_reflector_list_errors_total", "Lists that failed")),
      decode_errors_(Counter(registry, "ksched_reflector_decode_errors_total",
                             "Objects or stream lines that did not decode and were skipped")),
      forced_relists_(Counter(registry, "ksched_reflector_forced_relists_total",
                              "Watches a reflector ended to relist because its store may be stale, by reason "
                              "(decode_error, handler_error)")),
      events_(Counter(registry, "ksched_reflector_events_total", "Watch events received, by type")),
      backoff_(HistogramFamily(registry, "ksched_reflector_backoff_seconds",
                               "Waits before a reflector retries a failed list or watch")) {}

PrometheusReflectorMetrics::Series& PrometheusReflectorMetrics::For(std::string_view resource) {
  auto it = series_.find(resource);
  if (it != series_.end()) return it->second;
  const prometheus::Labels labels{{"resource", std::string(resource)}};
  Series s{
      &lists_.Add(labels),
      &list_duration_.Add(labels, DurationBuckets()),
      &items_per_list_.Add(labels, ItemBuckets()),
      &watches_.Add(labels),
      &short_watches_.Add(labels),
      &watch_duration_.Add(labels, DurationBuckets()),
      &items_per_watch_.Add(labels, ItemBuckets()),
      &last_resource_version_.Add(labels),
      &relists_.Add(labels),
      &watch_restarts_.Add(labels),
      &list_errors_.Add(labels),
      &decode_errors_.Add(labels),
      &backoff_.Add(labels, DurationBuckets()),
  };
  return series_.emplace(std::string(resource), s).first->second;
}

void PrometheusReflectorMetrics::ObserveList(std::string_view resource, size_t items, util::Duration duration,
                                             bool relist) {
  std::lock_guard<std::mutex> l(mu_);
  Series& s = For(resource);
  s.lists->Increment();
  if (relist) s.relists->Increment();
  s.list_duration->Observe(util::Seconds(duration));
  s.items_per_list->Observe(static_cast<double>(items));
}

void PrometheusReflectorMetrics::IncListErrors(std::string_view resource) {
  std::lock_guard<std::mutex> l(mu_);
  For(resource).list_errors->Increment();
}

void PrometheusReflectorMetrics::IncWatches(std::string_view resource, bool restart) {
  std::lock_guard<std::mutex> l(mu_);
  Series& s = For(resource);
  s.watches->Increment();
  if (restart) s.watch_restarts->Increment();
}

void PrometheusReflectorMetrics::ObserveWatch(std::string_view resource, size_t items, util::Duration duration,
                                              bool short_watch) {
  std::lock_guard<std::mutex> l(mu_);
  Series& s = For(resource);
  if (short_watch) s.short_watches->Increment();
  s.watch_duration->Observe(util::Seconds(duration));
  s.items_per_watch->Observe(static_cast<double>(items));
}

void PrometheusReflectorMetrics::IncEvents(std::string_view resource, std::string_view type) {
  std::lock_guard<std::mutex> l(mu_);
  auto key = std::make_pair(std::string(resource), std::string(type));
  auto it = events_by_type_.find(key);
  if (it == events_by_type_.end()) {
    prometheus::Counter* c = &events_.Add({{"resource", key.first}, {"type", key.second}});
    it = events_by_type_.emplace(std::move(key), c).first;
  }
  it->second->Increment();
}

void PrometheusReflectorMetrics::IncDecodeErrors(std::string_view resource) {
  std::lock_guard<std::mutex> l(mu_);
  For(resource).decode_errors->Increment();
}

void PrometheusReflectorMetrics::IncForcedRelists(std::string_view resource, std::string_view reason) {
  std::lock_guard<std::mutex> l(mu_);
  auto key = std::make_pair(std::string(resource), std::string(reason));
  auto it = forced_relists_by_reason_.find(key);
  if (it == forced_relists_by_reason_.end()) {
    prometheus::Counter* c = &forced_relists_.Add({{"resource", key.first}, {"reason", key.second}});
    it = forced_relists_by_reason_.emplace(std::move(key), c).first;
  }
  it->second->Increment();
}

void PrometheusReflectorMetrics::ObserveBackoff(std::string_view resource, util::Duration delay) {
  std::lock_guard<std::mutex> l(mu_);
  For(resource).backoff->Observe(util::Seconds(delay));
}

void PrometheusReflectorMetrics::SetLastResourceVersion(std::string_view resource, uint64_t resource_version) {
  std::lock_guard<std::mutex> l(mu_);
  For(resource).last_resource_version->Set(static_cast<double>(resource_version));
}

}  // namespace ksched::informer
