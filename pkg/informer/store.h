// Store<T>: the informer's thread-safe cache of one collection, keyed
// "namespace/name" (or "name" for cluster-scoped objects), holding
// std::shared_ptr<const T> (architecture decision 1: an update replaces the
// pointer, never the object), with named secondary indexes (client-go's
// ThreadSafeStore + Indexer).
//
// Every mutation returns the Delta(s) it caused, so the SharedInformer can
// tell its handlers exactly what changed:
//   Add / Update   an upsert: kAdded when the key was absent, else kUpdated
//                  (old and new object), also when nothing changed; when
//                  both objects carry a UID and they differ, the key now
//                  names a new object (deleted and re-created while the
//                  watch was down): kDeleted of the old one (final state
//                  unknown), then kAdded of the new one, so nobody sees an
//                  "update" from one object to another;
//   Delete         kDeleted when the key was present, carrying the final
//                  state if known, else the last stored object flagged
//                  final_state_unknown; nothing when absent;
//   Replace        the complete state after a (re)list: one upsert delta per
//                  listed object, then a kDeleted with final_state_unknown
//                  (client-go's DeletedFinalStateUnknown tombstone) for each
//                  stored key the list no longer has, so no handler keeps a
//                  ghost of an object deleted while the watch was down.
//
// Indexes: an IndexFunc maps an object to zero or more index values (e.g.
// the node name of a pod); ByIndex returns the objects with a value.
//
// ChangedSince names the keys changed after a revision, for readers that
// keep something derived from the objects (util::ChangeLog).
//
// Thread-safety: all methods are thread-safe; readers share a
// std::shared_mutex and never block one another. Returned pointers stay
// valid after the store changes. No callback runs under the lock except the
// IndexFuncs, which must be pure.
// Complexity: Get O(1); Add/Update/Delete O(index values); List / ListKeys
// O(n); ByIndex O(matches); Replace O(n + listed). Iteration order is
// unspecified.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pkg/util/change_log.h"
#include "pkg/util/status.h"

namespace ksched::informer {

enum class DeltaType { kAdded, kUpdated, kDeleted };
const char* DeltaTypeName(DeltaType type);

template <class T>
struct Delta {
  DeltaType type = DeltaType::kAdded;
  // kAdded / kUpdated: the new object; kDeleted: the final state (the
  // server's, or the last one stored when final_state_unknown).
  std::shared_ptr<const T> object;
  // kUpdated only: the object it replaced.
  std::shared_ptr<const T> old_object;
  // kDeleted only: the deletion was inferred (relist, or a DELETED event
  // whose object could not be decoded), so `object` may be stale.
  bool final_state_unknown = false;
};

template <class T>
class Store {
 public:
  using ObjectPtr = std::shared_ptr<const T>;
  using IndexFunc = std::function<std::vector<std::string>(const T&)>;

  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Registers an index and builds it from the current contents.
  // kAlreadyExists when `name` is taken.
  util::Status AddIndexer(const std::string& name, IndexFunc fn);

  std::vector<Delta<T>> Add(ObjectPtr object);
  std::vector<Delta<T>> Update(ObjectPtr object);
  // `final_state` (may be null) is the object the server reported deleted.
  std::optional<Delta<T>> Delete(const std::string& key, ObjectPtr final_state = nullptr);
  std::vector<Delta<T>> Replace(std::vector<ObjectPtr> objects, const std::string& resource_version);

  ObjectPtr Get(const std::string& key) const;
  std::vector<ObjectPtr> List() const;
  std::vector<std::string> ListKeys() const;
  size_t Size() const;
  // Objects whose index `index_name` has `value`; kNotFound for an unknown
  // index.
  util::StatusOr<std::vector<ObjectPtr>> ByIndex(const std::string& index_name,
                                                 const std::string& value) const;
  // The values of index `index_name` that currently have objects.
  util::StatusOr<std::vector<std::string>> ListIndexValues(const std::string& index_name) const;
  // The resourceVersion of the last Replace ("" before the first).
  std::string LastListResourceVersion() const;
  // The keys of the objects added, updated or deleted after revision
  // `since` into *keys (a key once per change), and the revision now into
  // *revision. False when the store cannot tell: it keeps the keys of the
  // last changes only from the first call on (util::ChangeLog::
  // KeepForReaders), and a Replace may change anything.
  bool ChangedSince(uint64_t since, std::vector<std::string>* keys, uint64_t* revision) const;
  // The revision ChangedSince would report: it differs after any change.
  uint64_t Revision() const;

 private:
  struct Index {
    IndexFunc fn;
    // Value -> the keys of its objects, as pointers to items_' keys (an
    // unordered_map's nodes do not move): a namespaced store indexes every
    // object, and a copy of each key would double the keys' memory.
    std::unordered_map<std::string, std::unordered_set<const std::string*>> keys_by_value;
  };

  // Both require mu_ held exclusively. UpsertLocked appends its deltas.
  void UpsertLocked(ObjectPtr object, std::vector<Delta<T>>& deltas);
  // `key` is items_' own key of the object, which an index points at: the
  // object leaves the indexes before its key leaves items_.
  void IndexLocked(const std::string& key, const T* old_object, const T* new_object);

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, ObjectPtr> items_;
  std::map<std::string, Index> indexes_;
  std::string list_resource_version_;
  // Mutable: the first ChangedSince turns on keeping keys.
  mutable util::ChangeLog changes_;
};

}  // namespace ksched::informer
