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
// Buckets keep their members in insertion order, with holes where records
// left (see Bucket).
//
// Memory: a record, its key (with the key's hash, computed once) and its
// bucket positions (inline for up to two rejectors) live in one slot of a
// chunked slab (stable addresses; freed slots are reused, last freed first),
// and a flat KeyIndex maps keys to slots. Removing a record hashes nothing,
// allocates nothing and frees nothing but what the record owned. The slab
// keeps its peak size until the store empties, when it is released.
//
// Complexity: AddOrUpdate/Delete/Refresh O(#rejectors); CollectCandidates
// O(#candidates + #interested plugins); ForEach/CollectAll O(slab size).
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
#include "pkg/scheduler/queue/key_index.h"
#include "pkg/scheduler/queue/prefetch.h"
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
 private:
  struct Bucket;
  // Where a record sits in one bucket.
  struct Slot {
    Bucket* bucket;
    size_t pos;
  };

 public:
  // The stored form of a record. Only UnschedulablePods reads its fields.
  struct Entry {
    framework::QueuedPodInfoPtr info;  // nullptr: a free slot
    HashedKey key;
    uint32_t slot = 0;  // its number in the slab
    bool gated = false;
    const std::string* profile = nullptr;  // key in hint_maps_, if the profile has one
    uint64_t mark = 0;                     // epoch of the last CollectCandidates that picked it
    // The buckets holding this entry: the first two inline, the rest (pods
    // with three or more rejectors) in `more_slots`.
    Slot slots[2];
    uint32_t num_slots = 0;
    std::vector<Slot> more_slots;
    Slot& SlotAt(uint32_t i) { return i < 2 ? slots[i] : more_slots[i - 2]; }
  };

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
  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  size_t size() const { return index_.size(); }
  size_t gated_size() const { return gated_; }

  // Calls fn(key, info) for every record.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (uint32_t i = 0; i < num_slots_; ++i) {
      const Entry& e = At(i);
      if (e.info != nullptr) fn(e.key.str, e.info);
    }
  }

  // A record selected for an event. Valid until that record is deleted.
  // Holds the record by plain pointer: collecting and dropping 100k
  // candidates then touches no reference count (Take hands out the owning
  // pointer).
  struct Candidate {
    const std::string* key;
    framework::QueuedPodInfo* info;
    // The pod's profile as keyed in the hint maps; nullptr when the profile
    // has no hint map. Saves looking the profile up per pod.
    const std::string* profile;
    Entry* entry;  // for Take
  };
  // Appends every record an event with these hints may move: the "always"
  // bucket and the buckets of the interested (profile, plugin) pairs, each
  // record once. Without an index, appends every record.
  void CollectCandidates(const EventHints& hints, std::vector<Candidate>* out);
  // Appends every record.
  void CollectAll(std::vector<Candidate>* out);
  // Batch moves are bound by memory latency; they fetch ahead in two steps:
  // PrefetchRecord some candidates ahead (the record and its entry), then
  // PrefetchIndex fewer ahead (its index slot and rejector names, which need
  // the first fetch). Hints only: no effect on contents.
  static void PrefetchRecord(const Candidate& c) {
    queue::Prefetch(c.info);
    queue::Prefetch(c.entry);
  }
  void PrefetchIndex(const Candidate& c) const {
    index_.Prefetch(c.entry->key.hash);
    if (!c.info->unschedulable_plugins.empty()) queue::Prefetch(&*c.info->unschedulable_plugins.begin());
  }
  // The StringHash of a candidate's key (stored with it).
  static size_t KeyHash(const Candidate& c) { return c.entry->key.hash; }
  // Delete for a candidate still stored here (no key hashing); moves the
  // stored key (and, in the second form, its StringHash) into `taken_key`.
  framework::QueuedPodInfoPtr Take(const Candidate& c, std::string* taken_key);
  framework::QueuedPodInfoPtr Take(const Candidate& c, HashedKey* taken_key);

 private:
  // Removal leaves a hole (nullptr) instead of moving the last member into
  // the gap, which would touch an unrelated record per removal; moving many
  // pods out then writes nothing but the holes. A bucket whose members are
  // all holes is emptied at once; otherwise holes are squeezed out (in
  // order) when they reach half the bucket, at the next insertion into it or
  // the next event that visits it.
  struct Bucket {
    std::vector<Entry*> members;
    size_t holes = 0;
  };
  using BucketMap = std::unordered_map<std::string, std::unique_ptr<Bucket>, StringHash, std::equal_to<>>;
  static constexpr uint32_t kChunkBits = 8;
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;

  Entry& At(uint32_t slot) { return chunks_[slot >> kChunkBits][slot & (kChunkSize - 1)]; }
  const Entry& At(uint32_t slot) const { return chunks_[slot >> kChunkBits][slot & (kChunkSize - 1)]; }
  const Entry* Find(std::string_view key) const;
  Entry* Find(std::string_view key) { return const_cast<Entry*>(std::as_const(*this).Find(key)); }
  // A free slot holding `key`, indexed (info still null).
  Entry* NewEntry(std::string_view key, size_t hash);
  // Removes the record; `taken_key`, if given, receives its key.
  framework::QueuedPodInfoPtr Erase(Entry* e, HashedKey* taken_key);
  void Index(Entry* e);
  void Unindex(Entry* e);
  // Squeezes the holes out of `b` if they are at least half of it.
  static void MaybeCompact(Bucket* b);
  Bucket* BucketFor(std::string_view profile, std::string_view plugin);
  void SetGauge(Entry* e, bool gated);

  const QueueingHintMapPerProfile& hint_maps_;
  QueueMetricsRecorder& metrics_;
  bool indexed_;
  // The slab: slots [0, num_slots_) of chunks_ have been handed out; the
  // free ones (info null) are listed in free_slots_.
  std::vector<std::unique_ptr<Entry[]>> chunks_;
  uint32_t num_slots_ = 0;
  std::vector<uint32_t> free_slots_;
  KeyIndex index_;  // key -> slot
  // profile -> plugin -> bucket.
  std::unordered_map<std::string, BucketMap, StringHash, std::equal_to<>> buckets_;
  std::unique_ptr<Bucket> always_;
  uint64_t epoch_ = 0;
  size_t gated_ = 0;
};

}  // namespace ksched::scheduler::queue
