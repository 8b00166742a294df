// ReflectorMetrics: what a Reflector reports, in the spirit of client-go's
// reflector metrics (reflector_lists_total, reflector_list_duration_seconds,
// reflector_items_per_list, reflector_watches_total,
// reflector_short_watches_total, reflector_watch_duration_seconds,
// reflector_items_per_watch, reflector_last_resource_version) plus the
// counters ksched adds: relists, watch restarts, decode errors, relists
// forced by a decode or handler error, events by type, and backoff waits. Every call names the resource ("pods", ...), the
// label the exported families carry.
//
// The informers depend on no metrics library: PrometheusReflectorMetrics
// (prometheus_reflector_metrics.h, its own library) adapts this interface to
// prometheus-cpp. NoopReflectorMetrics discards
// everything; CountingReflectorMetrics keeps totals in memory (tests,
// /debug pages).
//
// Thread-safety: implementations are called concurrently by the reflectors
// of every resource and must be thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/clock.h"

namespace ksched::informer {

inline constexpr std::string_view kRelistDecodeError = "decode_error";
inline constexpr std::string_view kRelistHandlerError = "handler_error";

class ReflectorMetrics {
 public:
  virtual ~ReflectorMetrics() = default;

  // A complete list (all pages) succeeded with `items` decoded objects.
  // `relist` is false for the reflector's first list.
  virtual void ObserveList(std::string_view resource, size_t items, util::Duration duration, bool relist) = 0;
  // A list failed (after the client's own retries).
  virtual void IncListErrors(std::string_view resource) = 0;
  // A watch request starts; `restart` is false for the first watch after a
  // list.
  virtual void IncWatches(std::string_view resource, bool restart) = 0;
  // A watch ended; a short watch closed within a second with no event.
  virtual void ObserveWatch(std::string_view resource, size_t items, util::Duration duration, bool short_watch) = 0;
  // One watch event applied or skipped, by type (ADDED, MODIFIED, DELETED,
  // BOOKMARK, ERROR).
  virtual void IncEvents(std::string_view resource, std::string_view type) = 0;
  // An object or stream line that did not decode (skipped).
  virtual void IncDecodeErrors(std::string_view resource) = 0;
  // The reflector ends its watch and relists (after a backoff) because the
  // store may have gone stale: `reason` is kRelistDecodeError (a changed
  // object or a stream line did not decode) or kRelistHandlerError (an
  // event handler threw, see shared_informer.h).
  virtual void IncForcedRelists(std::string_view resource, std::string_view reason) = 0;
  // The reflector waits `delay` before retrying.
  virtual void ObserveBackoff(std::string_view resource, util::Duration delay) = 0;
  // The resourceVersion the reflector will watch from next (when numeric).
  virtual void SetLastResourceVersion(std::string_view resource, uint64_t resource_version) = 0;
};

class NoopReflectorMetrics final : public ReflectorMetrics {
 public:
  static NoopReflectorMetrics& Get();

  void ObserveList(std::string_view, size_t, util::Duration, bool) override {}
  void IncListErrors(std::string_view) override {}
  void IncWatches(std::string_view, bool) override {}
  void ObserveWatch(std::string_view, size_t, util::Duration, bool) override {}
  void IncEvents(std::string_view, std::string_view) override {}
  void IncDecodeErrors(std::string_view) override {}
  void IncForcedRelists(std::string_view, std::string_view) override {}
  void ObserveBackoff(std::string_view, util::Duration) override {}
  void SetLastResourceVersion(std::string_view, uint64_t) override {}
};

// In-memory totals per resource.
class CountingReflectorMetrics final : public ReflectorMetrics {
 public:
  struct Totals {
    int64_t lists = 0;
    int64_t relists = 0;
    int64_t list_errors = 0;
    int64_t listed_items = 0;
    int64_t watches = 0;
    int64_t watch_restarts = 0;
    int64_t short_watches = 0;
    int64_t watched_items = 0;
    int64_t decode_errors = 0;
    std::map<std::string, int64_t> forced_relists;  // by reason
    std::map<std::string, int64_t> events;  // by type
    std::vector<util::Duration> backoffs;   // in order
    uint64_t last_resource_version = 0;
  };

  void ObserveList(std::string_view resource, size_t items, util::Duration duration, bool relist) override;
  void IncListErrors(std::string_view resource) override;
  void IncWatches(std::string_view resource, bool restart) override;
  void ObserveWatch(std::string_view resource, size_t items, util::Duration duration, bool short_watch) override;
  void IncEvents(std::string_view resource, std::string_view type) override;
  void IncDecodeErrors(std::string_view resource) override;
  void IncForcedRelists(std::string_view resource, std::string_view reason) override;
  void ObserveBackoff(std::string_view resource, util::Duration delay) override;
  void SetLastResourceVersion(std::string_view resource, uint64_t resource_version) override;

  // A copy of the totals of `resource` (zeros when never reported).
  Totals Get(std::string_view resource) const;
  // Blocks until `resource` has reported at least `n` backoffs or
  // `timeout` (real time) passed; returns the backoffs seen.
  std::vector<util::Duration> WaitForBackoffs(std::string_view resource, size_t n,
                                              std::chrono::milliseconds timeout) const;

 private:
  template <class F>
  void Update(std::string_view resource, F&& f);

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, Totals, std::less<>> totals_;
};

}  // namespace ksched::informer
