// ChangeLog: which keys of a collection changed after a revision, for
// readers that keep something derived from the collection and would
// otherwise walk all of it to find what changed (the DRA claim tally walked
// every claim in every scheduling cycle).
//
// Each Record advances the revision by one. The log keeps the keys of the
// last `capacity` changes (none until KeepLast or KeepForReaders: a
// collection nobody reads this way pays only the count); a reader whose
// revision is older than that, or older than the last Reset (a change the
// log cannot name, such as a relist), is told to read everything again.
//
// Thread-safety: none; the owner of the collection locks around it.
// Complexity: Record O(1) amortized; ChangedSince O(changes returned).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::util {

class ChangeLog {
 public:
  explicit ChangeLog(size_t capacity = 0) : capacity_(capacity) {}

  size_t capacity() const { return capacity_; }
  // Keeps the keys of the last `capacity` changes from now on.
  void KeepLast(size_t capacity) { capacity_ = capacity; }
  // What an informer's collection keeps once somebody reads it this way:
  // the last kReaderCapacity changes (a no-op when it keeps some already).
  void KeepForReaders() {
    if (capacity_ == 0) capacity_ = kReaderCapacity;
  }
  static constexpr size_t kReaderCapacity = 4096;

  // `key` changed (added, updated or deleted).
  void Record(std::string_view key) {
    ++revision_;
    if (capacity_ == 0) return;
    keys_.emplace_back(key);
    if (keys_.size() > capacity_) keys_.pop_front();
  }

  // Anything may have changed: readers of earlier revisions start over.
  void Reset() {
    ++revision_;
    keys_.clear();
  }

  uint64_t revision() const { return revision_; }

  // Appends to *keys the keys changed after revision `since` (a key once
  // per change); false, appending nothing, when the log cannot tell. The
  // first form also sets *revision to the revision now.
  bool ChangedSince(uint64_t since, std::vector<std::string>* keys, uint64_t* revision) const {
    *revision = revision_;
    return ChangedSince(since, keys);
  }
  bool ChangedSince(uint64_t since, std::vector<std::string>* keys) const {
    if (since > revision_ || revision_ - since > keys_.size()) return false;
    keys->insert(keys->end(), keys_.end() - static_cast<std::ptrdiff_t>(revision_ - since), keys_.end());
    return true;
  }

 private:
  size_t capacity_;
  uint64_t revision_ = 0;
  std::deque<std::string> keys_;  // the changes up to revision_, the newest last
};

}  // namespace ksched::util
