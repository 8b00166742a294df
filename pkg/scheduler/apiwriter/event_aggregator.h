// EventAggregator: the Event cache behind the API writer, after client-go's
// tools/events broadcaster (events.k8s.io/v1 series semantics).
//
// Occurrences of the same event (same type, reason, action, reporting
// controller and instance, regarding and related object, and note) share one
// entry and one Event object on the server:
//   1st occurrence  -> a new Event, written at once (Create).
//   2nd occurrence  -> series {count 2, lastObservedTime}, written at once.
//   later ones      -> count++ and lastObservedTime in the cache only; the
//                      count reaches the server when the series is refreshed
//                      (RefreshSeries, every 30 min in client-go) or finished
//                      (FinishSeries: quiet for `finish_after`, 6 min), or
//                      at shutdown (Unwritten).
// So a pod failing 1000 times in a burst costs one Create and a few series
// patches, not 1000 Events.
//
// Differences from client-go, on purpose:
//  * the note is part of the identity, so a changed failure message shows
//    up as a new Event rather than being hidden under an old note;
//  * resourceVersion of the regarding/related references is not, since the
//    scheduler's own status patches bump it between attempts;
//  * a finished series is written only if its count changed since the last
//    write.
//
// The writer owns the worker side: NextWrite says what an entry needs
// (create, or patch the series), Written records what the server accepted,
// Drop abandons an entry the server refused for good.
//
// Thread-safety: none; the ApiWriter calls it under its mutex.
// Memory: one entry per distinct event seen in the last `finish_after`
// (plus active series), found by a 128-bit fingerprint of its aggregation
// key. A write rebuilds its Event from the key (the identity) and what the
// entry keeps beside it (the Event's name, namespace and eventTime, the
// references' resourceVersions, the series); the key and the
// resourceVersions are kept only while a write may need them: until the
// server has the Event, and for a series, which is patched and may have to
// be created again. A scheduler records an Event per pod it binds, almost
// all of them single, so at 50,000 pods in six minutes a key per entry
// would be 10 MB; a single written Event's entry takes about 200 bytes
// with both maps' nodes. Two keys with one fingerprint
// would share an entry; at 2^-128 per pair that is left to chance.
// Complexity: Record O(1) expected; NextWrite O(key length); FinishSeries,
// RefreshSeries and Unwritten O(entries).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::apiwriter {

class EventAggregator {
 public:
  // client-go's finishTime.
  static constexpr util::Duration kDefaultFinishAfter = std::chrono::minutes(6);

  explicit EventAggregator(util::Duration finish_after = kDefaultFinishAfter)
      : finish_after_(finish_after) {}

  struct Recorded {
    uint64_t id;     // the entry the occurrence went to
    bool write_now;  // the entry needs a write now (first or second occurrence)
  };

  // Adds one occurrence of `event` (complete: name, namespace and eventTime
  // set; used only when it starts a new entry) observed at monotonic `now`.
  Recorded Record(const api::Event& event, util::TimePoint now);

  struct Write {
    api::Event event;  // the Event to create, or whose series to patch
    bool create;       // the server does not have the Event yet
    int32_t count;     // occurrences this write reports (1 = no series)
  };

  // What entry `id` needs written, or nullopt (unknown entry, or the server
  // is up to date).
  std::optional<Write> NextWrite(uint64_t id) const;

  // The server accepted `write` for entry `id`.
  void Written(uint64_t id, const Write& write);

  // Forgets entry `id`: the server refused it for good (or retries ran out).
  // A later occurrence starts a new Event.
  void Drop(uint64_t id);

  // Entries of series quiet for longer than finish_after at `now`: those
  // with unwritten occurrences are returned (to be written once more and
  // then forgotten), the others are forgotten at once. Single events older
  // than finish_after are forgotten.
  std::vector<uint64_t> FinishSeries(util::TimePoint now);

  // Every series entry, marked to be written again (client-go refreshes
  // series so their Events do not expire while still occurring).
  std::vector<uint64_t> RefreshSeries();

  // Entries the server is not up to date with.
  std::vector<uint64_t> Unwritten() const;

  size_t size() const { return entries_.size(); }

  // The identity of `event` for aggregation (see the header comment).
  static std::string AggregationKey(const api::Event& event);

 private:
  struct Fingerprint {
    uint64_t a = 0;
    uint64_t b = 0;
    bool operator==(const Fingerprint&) const = default;
  };
  struct FingerprintHash {
    size_t operator()(const Fingerprint& f) const { return static_cast<size_t>(f.a); }
  };
  static Fingerprint FingerprintOf(std::string_view key);

  // What only a write needs, kept while one may: until the server has the
  // Event, and for a series (patched, and created again if the server lost
  // it). The references' resourceVersions are those of the occurrence the
  // key was taken from.
  struct WriteState {
    std::string key;  // AggregationKey
    std::string regarding_resource_version;
    std::string related_resource_version;
    std::optional<api::EventSeries> series;  // grows in place
  };
  // 64 bytes, and one allocation for the two names: most entries are single
  // Events the server has, kept only in case they recur.
  struct Entry {
    Fingerprint fingerprint;
    // The Event's name and namespace, each ended by a NUL (neither can hold
    // one).
    std::unique_ptr<char[]> names;
    std::optional<api::Time> event_time;
    util::TimePoint last_observed;  // monotonic, of the latest occurrence
    int32_t written_count = 0;      // occurrences the server knows of
    bool created = false;           // the server has the Event
    bool refresh = false;           // write even if the count is unchanged
    bool finishing = false;         // forget once written
    std::unique_ptr<WriteState> write;  // see WriteState; null otherwise
  };

  static bool IsSeries(const Entry& e) { return e.write && e.write->series; }
  static int32_t Count(const Entry& e) { return IsSeries(e) ? e.write->series->count : 1; }
  static bool Pending(const Entry& e) {
    return !e.created || e.refresh || Count(e) != e.written_count;
  }
  // The Event entry `e` stands for; `e.write` is set.
  static api::Event Rebuild(const Entry& e);
  static std::unique_ptr<WriteState> NewWriteState(std::string key, const api::Event& event);
  void Erase(std::unordered_map<uint64_t, Entry>::iterator it);

  const util::Duration finish_after_;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, Entry> entries_;
  std::unordered_map<Fingerprint, uint64_t, FingerprintHash> by_key_;
};

}  // namespace ksched::scheduler::apiwriter
