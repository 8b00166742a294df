// PrometheusReflectorMetrics: ReflectorMetrics on a prometheus-cpp registry.
//
// client-go's reflector families (it stopped registering them, but their
// names are what dashboards for older components used), labelled by the
// resource the reflector watches:
//
//   reflector_lists_total                 counter    {resource}
//   reflector_list_duration_seconds       histogram  {resource}
//   reflector_items_per_list              histogram  {resource}
//   reflector_watches_total               counter    {resource}
//   reflector_short_watches_total         counter    {resource}
//   reflector_watch_duration_seconds      histogram  {resource}
//   reflector_items_per_watch             histogram  {resource}
//   reflector_last_resource_version       gauge      {resource}
//
// and ksched's own, for what client-go only logs:
//
//   ksched_reflector_relists_total        counter    {resource}  lists after the first
//   ksched_reflector_watch_restarts_total counter    {resource}  watches resumed without a list
//   ksched_reflector_list_errors_total    counter    {resource}
//   ksched_reflector_decode_errors_total  counter    {resource}  objects skipped as malformed
//   ksched_reflector_forced_relists_total counter    {resource, reason}  watches ended for a relist
//                                                    because the store may be stale: reason
//                                                    decode_error or handler_error
//   ksched_reflector_events_total         counter    {resource, type}
//   ksched_reflector_backoff_seconds      histogram  {resource}
//
// Series are created on first use and cached, so a report costs one map
// lookup under a mutex plus the prometheus-cpp update.
//
// Thread-safety: thread-safe. Lifetime: the registry must outlive this
// object, and this object every reflector reporting to it.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "pkg/informer/reflector_metrics.h"

namespace ksched::informer {

class PrometheusReflectorMetrics final : public ReflectorMetrics {
 public:
  // Registers the families on `registry` (merging with families of the same
  // name already there).
  explicit PrometheusReflectorMetrics(prometheus::Registry& registry);

  void ObserveList(std::string_view resource, size_t items, util::Duration duration, bool relist) override;
  void IncListErrors(std::string_view resource) override;
  void IncWatches(std::string_view resource, bool restart) override;
  void ObserveWatch(std::string_view resource, size_t items, util::Duration duration, bool short_watch) override;
  void IncEvents(std::string_view resource, std::string_view type) override;
  void IncDecodeErrors(std::string_view resource) override;
  void IncForcedRelists(std::string_view resource, std::string_view reason) override;
  void ObserveBackoff(std::string_view resource, util::Duration delay) override;
  void SetLastResourceVersion(std::string_view resource, uint64_t resource_version) override;

 private:
  // The series of one resource.
  struct Series {
    prometheus::Counter* lists;
    prometheus::Histogram* list_duration;
    prometheus::Histogram* items_per_list;
    prometheus::Counter* watches;
    prometheus::Counter* short_watches;
    prometheus::Histogram* watch_duration;
    prometheus::Histogram* items_per_watch;
    prometheus::Gauge* last_resource_version;
    prometheus::Counter* relists;
    prometheus::Counter* watch_restarts;
    prometheus::Counter* list_errors;
    prometheus::Counter* decode_errors;
    prometheus::Histogram* backoff;
  };
  // Requires mu_.
  Series& For(std::string_view resource);

  prometheus::Family<prometheus::Counter>& lists_;
  prometheus::Family<prometheus::Histogram>& list_duration_;
  prometheus::Family<prometheus::Histogram>& items_per_list_;
  prometheus::Family<prometheus::Counter>& watches_;
  prometheus::Family<prometheus::Counter>& short_watches_;
  prometheus::Family<prometheus::Histogram>& watch_duration_;
  prometheus::Family<prometheus::Histogram>& items_per_watch_;
  prometheus::Family<prometheus::Gauge>& last_resource_version_;
  prometheus::Family<prometheus::Counter>& relists_;
  prometheus::Family<prometheus::Counter>& watch_restarts_;
  prometheus::Family<prometheus::Counter>& list_errors_;
  prometheus::Family<prometheus::Counter>& decode_errors_;
  prometheus::Family<prometheus::Counter>& forced_relists_;
  prometheus::Family<prometheus::Counter>& events_;
  prometheus::Family<prometheus::Histogram>& backoff_;

  std::mutex mu_;
  std::map<std::string, Series, std::less<>> series_;
  std::map<std::pair<std::string, std::string>, prometheus::Counter*> events_by_type_;
  std::map<std::pair<std::string, std::string>, prometheus::Counter*> forced_relists_by_reason_;
};

}  // namespace ksched::informer
