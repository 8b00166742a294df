// UnschedulablePods: pods that were tried and rejected, plus gated pods
// (kube's unschedulablePods), indexed by the plugins that rejected them.
//
// kube-scheduler walks every unschedulable pod under its lock for every
// cluster event, which stalls event storms once there are 10k+ such pods
// (kubernetes issues 71486, 81214, 136221). Here each pod is filed in one
// bucket per (profile, rejector plugin), and an event visits only the
// buckets of plugins that registered a matching event in that profile, plus
// an "always" bucket holding the pods every event must see: pods without
// rejectors, and pods whose profile has no hint map (both are requeued by
// any interesting event). A pod rejected only by plugins that did not
// register the event cannot be moved by it (its hints would all be skipped),
// so visiting just the candidates gives exactly the outcome of the full
// walk. Wildcard events still visit every pod.
//
// The index is derived from a record's rejectors, gating plugin and
// profile. Whoever mutates those fields of a record that is stored here
// must call Refresh (the queue does).
//
// Complexity: AddOrUpdate/Delete/Refresh O(#rejectors); CollectCandidates
// O(#candidates + #interested plugins).
// Thread-safety: none; PriorityQueue calls it under its mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/queue/heap.h"
#include "pkg/scheduler/queue/metrics.h"
#include "pkg/scheduler/queue/queueing_hint_map.h"

namespace ksched::scheduler::queue {

// The hint functions one incoming event selects, per profile.
struct ProfileHints {
  std::string_view profile;
  MatchedHints hints;
};
using EventHints = std::vector<ProfileHints>;

class UnschedulablePods {
 public:
  class Entry;

  // `hint_maps` must outlive this object. `indexed` false keeps no index
  // (every event visits every pod), the reference behaviour for tests.
  UnschedulablePods(const QueueingHintMapPerProfile& hint_maps, QueueMetricsRecorder& metrics, bool indexed);
  ~UnschedulablePods();
  UnschedulablePods(const UnschedulablePods&) = delete;
  UnschedulablePods& operator=(const UnschedulablePods&) = delete;

  // Stores `info` under `key` (replacing any record there) and re-indexes.
  // A new key counts queue_incoming_pods{unschedulable,event} and the
  // pending gauge ("gated" or "unschedulable").
  void AddOrUpdate(std::string_view key, framework::QueuedPodInfoPtr info, std::string_view event);
  // Re-derives the index and gauges of the record under `key` after its
  // fields changed in place. No-op for an unknown key.
  void Refresh(std::string_view key);
  // Removes the record; returns it (nullptr if absent). With `taken_key`,
  // the stored key string is moved there (the record's key dies otherwise).
  framework::QueuedPodInfoPtr Delete(std::string_view key, std::string* taken_key = nullptr);
  const framework::QueuedPodInfoPtr* Get(std::string_view key) const;
  bool Has(std::string_view key) const { return entries_.find(key) != entries_.end(); }
  size_t size() const { return entries_.size(); }
  size_t gated_size() const { return gated_; }

  // Calls fn(key, info) for every record.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (const auto& [key, e] : entries_) fn(key, EntryInfo(e));
  }

  // A record selected for an event. Valid until that record is deleted.
  struct Candidate {
    const std::string* key;
    framework::QueuedPodInfoPtr info;
    // The pod's profile as keyed in the hint maps; nullptr when the profile
    // has no hint map. Saves looking the profile up per pod.
    const std::string* profile;
  };
  // Appends every record an event with these hints may move: the "always"
  // bucket and the buckets of the interested (profile, plugin) pairs, each
  // record once. Without an index, appends every record.
  void CollectCandidates(const EventHints& hints, std::vector<Candidate>* out);
  // Appends every record.
  void CollectAll(std::vector<Candidate>* out) const;

 private:
  struct Bucket {
    std::vector<Entry*> members;
  };
  using BucketMap = std::unordered_map<std::string, std::unique_ptr<Bucket>, StringHash, std::equal_to<>>;

  static const framework::QueuedPodInfoPtr& EntryInfo(const std::unique_ptr<Entry>& e);
  void Index(Entry* e);
  void Unindex(Entry* e);
  Bucket* BucketFor(std::string_view profile, std::string_view plugin);
  void SetGauge(Entry* e, bool gated);

  const QueueingHintMapPerProfile& hint_maps_;
  QueueMetricsRecorder& metrics_;
  bool indexed_;
  std::unordered_map<std::string, std::unique_ptr<Entry>, StringHash, std::equal_to<>> entries_;
  // profile -> plugin -> bucket.
  std::unordered_map<std::string, BucketMap, StringHash, std::equal_to<>> buckets_;
  std::unique_ptr<Bucket> always_;
  uint64_t epoch_ = 0;
  size_t gated_ = 0;
};

}  // namespace ksched::scheduler::queue
