// KeyIndex: a flat hash index from string keys to small integer ids, for
// containers that store their keys (and the keys' hashes) themselves: Heap
// (ids are element handles) and UnschedulablePods (ids are record slots).
//
// Open addressing with linear probing over a power-of-two table at most half
// full; no allocation per key. An entry holds the low half of the key's hash
// (its tag) and the id. The tag gives the entry's home slot (tables stay
// below 2^32 slots), and entries of one probe run differ in their low bits
// or, sharing a home, in the tag's remaining bits, so most mismatches are
// rejected without reading a key. Erase finds the entry by id (no key
// comparison) and closes the gap by shifting later entries back, reading
// only tags: removing a key touches no other key.
//
// The container passes the key's hash to every call (it hashes each key
// once) and a predicate that tells whether an id's key is the one sought.
//
// Complexity: expected O(1) per operation; growth rehashes from the tags.
// Thread-safety: none; the owner serializes access.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pkg/scheduler/queue/array_allocator.h"
#include "pkg/scheduler/queue/prefetch.h"

namespace ksched::scheduler::queue {

class KeyIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The id whose key is the one sought (`is_key(id)` true), among the ids
  // indexed under `hash`; kNone if none.
  template <class IsKey>
  uint32_t Find(size_t hash, IsKey&& is_key) const {
    if (size_ == 0) return kNone;
    const uint32_t tag = Tag(hash);
    const size_t mask = table_.size() - 1;
    for (size_t i = tag & mask;; i = (i + 1) & mask) {
      const Entry& e = table_[i];
      if (e.id == kNone) return kNone;
      if (e.tag == tag && is_key(e.id)) return e.id;
    }
  }

  // Indexes `id` under `hash`. The key must not be indexed already.
  void Insert(size_t hash, uint32_t id) {
    assert(id != kNone);
    if ((size_ + 1) * 2 > table_.size()) Grow();
    Place(Entry{Tag(hash), id});
    ++size_;
  }

  // Fetches the home slot of `hash` into the cache (a hint; no effect on
  // contents), for callers that know upcoming keys ahead of time.
  void Prefetch(size_t hash) const {
    if (!table_.empty()) queue::Prefetch(&table_[Tag(hash) & (table_.size() - 1)]);
  }

  // Removes `id`, indexed under `hash`; it must be indexed.
  void Erase(size_t hash, uint32_t id) {
    const size_t mask = table_.size() - 1;
    size_t i = Tag(hash) & mask;
    while (table_[i].id != id) i = (i + 1) & mask;
    // Backward-shift deletion: move back every later entry of the run that
    // may sit at the hole (its home is not cyclically within (hole, j]).
    size_t j = i;
    for (;;) {
      j = (j + 1) & mask;
      if (table_[j].id == kNone) break;
      const size_t home = table_[j].tag & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        table_[i] = table_[j];
        i = j;
      }
    }
    table_[i].id = kNone;
    --size_;
  }

  // Forgets every key and frees the table.
  void Clear() {
    table_.clear();
    table_.shrink_to_fit();
    size_ = 0;
  }

 private:
  struct Entry {
    uint32_t tag;
    uint32_t id;  // kNone: empty
  };

  static uint32_t Tag(size_t hash) { return static_cast<uint32_t>(hash); }

  void Place(Entry e) {
    const size_t mask = table_.size() - 1;
    size_t i = e.tag & mask;
    while (table_[i].id != kNone) i = (i + 1) & mask;
    table_[i] = e;
  }

  void Grow() {
    std::vector<Entry, ArrayAllocator<Entry>> old = std::move(table_);
    table_.assign(old.empty() ? 16 : old.size() * 2, Entry{0, kNone});
    assert(table_.size() <= (size_t{1} << 32));
    for (const Entry& e : old) {
      if (e.id != kNone) Place(e);
    }
  }

  std::vector<Entry, ArrayAllocator<Entry>> table_;  // huge pages once large
  size_t size_ = 0;
};

}  // namespace ksched::scheduler::queue
