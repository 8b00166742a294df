// WaitingHeap<T>: the items a DelayingQueue holds back, ordered by the time
// they become ready, with at most one entry per item.
//
// Insert keeps, for an item already present, the EARLIER of its two ready
// times (client-go's delaying queue: a re-add may only move an item sooner).
// Items with equal ready times come out in insertion order, so behaviour is
// deterministic.
//
// Thread-safety: none; the DelayingQueue guards it with its own mutex.
// Complexity: Insert and Pop O(log n), Top and Contains O(1) expected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/util/clock.h"

namespace ksched::workqueue {

template <class T, class Hash = std::hash<T>>
class WaitingHeap {
 public:
  struct Entry {
    T item;
    util::TimePoint ready_at;
    uint64_t seq;  // insertion order, breaks ties
  };

  // Adds `item` ready at `ready_at`, or moves an existing entry earlier.
  // Returns true when the entry is new or moved.
  bool Insert(const T& item, util::TimePoint ready_at) {
    auto it = index_.find(item);
    if (it != index_.end()) {
      Entry& e = entries_[it->second];
      if (ready_at >= e.ready_at) return false;
      e.ready_at = ready_at;
      SiftUp(it->second);
      return true;
    }
    entries_.push_back(Entry{item, ready_at, next_seq_++});
    index_.emplace(item, entries_.size() - 1);
    SiftUp(entries_.size() - 1);
    return true;
  }

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  bool Contains(const T& item) const { return index_.count(item) != 0; }

  // The entry that becomes ready first. Requires !empty().
  const Entry& Top() const { return entries_.front(); }

  // Removes and returns the entry that becomes ready first. Requires !empty().
  Entry Pop() {
    Entry top = std::move(entries_.front());
    index_.erase(top.item);
    if (entries_.size() > 1) {
      entries_.front() = std::move(entries_.back());
      entries_.pop_back();
      index_[entries_.front().item] = 0;
      SiftDown(0);
    } else {
      entries_.pop_back();
    }
    return top;
  }

  void Clear() {
    entries_.clear();
    index_.clear();
  }

 private:
  bool Less(size_t a, size_t b) const {
    const Entry& x = entries_[a];
    const Entry& y = entries_[b];
    return x.ready_at != y.ready_at ? x.ready_at < y.ready_at : x.seq < y.seq;
  }

  void Swap(size_t a, size_t b) {
    std::swap(entries_[a], entries_[b]);
    index_[entries_[a].item] = a;
    index_[entries_[b].item] = b;
  }

  void SiftUp(size_t i) {
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!Less(i, parent)) break;
      Swap(i, parent);
      i = parent;
    }
  }

  void SiftDown(size_t i) {
    const size_t n = entries_.size();
    for (;;) {
      size_t smallest = i;
      size_t left = 2 * i + 1;
      size_t right = left + 1;
      if (left < n && Less(left, smallest)) smallest = left;
      if (right < n && Less(right, smallest)) smallest = right;
      if (smallest == i) break;
      Swap(i, smallest);
      i = smallest;
    }
  }

  std::vector<Entry> entries_;
  std::unordered_map<T, size_t, Hash> index_;  // item -> position in entries_
  uint64_t next_seq_ = 0;
};

}  // namespace ksched::workqueue
