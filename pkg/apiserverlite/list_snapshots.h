// ListSnapshots: the consistent snapshots behind paginated lists
// (limit/continue), and the continue tokens that name them.
//
// The first page of a limited list stores the full filtered result (shared
// pointers to immutable objects, so a 10k-pod snapshot costs ~160 KB), and
// every later page reads the same snapshot: a paginated list is consistent
// with one resourceVersion, as the real server's etcd-backed lists are. The
// cache keeps the most recent `capacity` snapshots; a token whose snapshot
// was evicted or compacted away answers 410 Expired, and clients (client-go's
// pager, pkg/client) fall back to a full list.
//
// Thread-safety: all methods are thread-safe. Complexity O(log capacity).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pkg/apiserverlite/watch.h"

namespace ksched::apiserver {

struct ListSnapshot {
  std::vector<ObjectPtr> items;
  uint64_t resource_version = 0;
  std::string store;  // storage key the snapshot was taken from
};

struct ContinueToken {
  uint64_t snapshot_id = 0;
  size_t offset = 0;
  uint64_t resource_version = 0;
};

// Opaque, URL-safe token (base64url of a small JSON document).
std::string EncodeContinueToken(const ContinueToken& token);
std::optional<ContinueToken> DecodeContinueToken(const std::string& text);

class ListSnapshots {
 public:
  explicit ListSnapshots(size_t capacity);

  // Stores a snapshot and returns its id (never 0).
  uint64_t Put(std::shared_ptr<const ListSnapshot> snapshot);
  // The snapshot, or null when evicted or cleared.
  std::shared_ptr<const ListSnapshot> Get(uint64_t id) const;
  // Forgets every snapshot (history compaction).
  void Clear();
  size_t size() const;

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, std::shared_ptr<const ListSnapshot>> snapshots_;  // oldest first
};

}  // namespace ksched::apiserver
