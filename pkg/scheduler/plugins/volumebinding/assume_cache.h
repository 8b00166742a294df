// AssumeCache<T>: informer objects overlaid with in-memory "assumed"
// versions (kube's volumebinding assume cache for PVs and PVCs).
//
// Reserve assumes the PV/PVC a pod's binding will write (a PV with its new
// claimRef, a PVC with the selected-node annotation) before the API calls
// happen, so the next scheduling cycle already sees the PV as taken. An
// assumed object is served until the informer delivers a strictly newer
// resourceVersion of it (the API write came back, or someone else changed
// it), or until Restore drops it (Unreserve, a failed write). An object the
// informer no longer has is gone, assumed or not. AssumeWritten assumes
// what the API server answered to a write instead (DRA's PreBind): the
// informer's copy of that same resourceVersion is the same object, so it
// ends the assumption already, and the overlay holds only writes the
// informer has not delivered yet.
//
// Keys are "name" (namespace "") for cluster-scoped objects and
// "namespace/name" otherwise.
//
// ChangedSince names the keys whose served object may have changed, for
// readers that keep a tally of the objects (the DRA claim tracker).
//
// Thread-safety: all methods are thread-safe (one mutex; the lister must be
// safe for concurrent reads). Get/List cost one lister call plus a map
// lookup per object; ChangedSince O(changes).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/plugins/volumebinding/volume_util.h"
#include "pkg/util/change_log.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::volumebinding {

template <class T>
class AssumeCache {
 public:
  using Ptr = std::shared_ptr<const T>;

  // `description` names the kind in errors ("v1.PersistentVolume").
  AssumeCache(const framework::ObjectLister<T>& lister, std::string description)
      : lister_(lister), description_(std::move(description)) {}

  // The assumed object if it still stands, else the informer's; NotFound
  // "could not find <description> \"<key>\"" when the informer has none.
  util::StatusOr<Ptr> Get(std::string_view namespace_, std::string_view name) const {
    Ptr api_obj = lister_.Get(namespace_, name);
    if (api_obj == nullptr) return NotFound(namespace_, name);
    return Latest(api_obj);
  }

  // The informer's object, ignoring assumptions.
  util::StatusOr<Ptr> GetAPIObj(std::string_view namespace_, std::string_view name) const {
    Ptr api_obj = lister_.Get(namespace_, name);
    if (api_obj == nullptr) return NotFound(namespace_, name);
    return api_obj;
  }

  // Every object (assumed versions where they stand). One lock, and no
  // per-object work while nothing is assumed: DynamicResources lists every
  // claim in each cycle.
  std::vector<Ptr> List() const {
    std::vector<Ptr> out = lister_.List();
    std::lock_guard<std::mutex> l(mu_);
    if (assumed_.empty()) return out;
    std::string key;
    for (Ptr& obj : out) {
      KeyInto(obj->metadata.namespace_, obj->metadata.name, key);
      obj = LatestLocked(obj, key);
    }
    return out;
  }

  // Serves `obj` in place of the informer's version until superseded. The
  // informer must have the object and `obj` must not be older than what is
  // currently served.
  util::Status Assume(Ptr obj) { return AssumeAs(std::move(obj), false); }
  // Assume for the object a write returned.
  util::Status AssumeWritten(Ptr obj) { return AssumeAs(std::move(obj), true); }

  // Drops the assumed version (no-op when none).
  void Restore(std::string_view namespace_, std::string_view name) {
    std::lock_guard<std::mutex> l(mu_);
    if (auto it = assumed_.find(Key(namespace_, name)); it != assumed_.end()) Drop(it);
  }

  // Where a reader of ChangedSince stands.
  struct Revision {
    uint64_t objects = 0;  // the lister's
    uint64_t assumed = 0;  // of the assumptions made and dropped
  };
  // The keys ("namespace/name", or "name") whose served object may have
  // changed after `since` (the informer's changes, assumptions made or
  // dropped) into *keys, and where things stand now into *now. False when
  // either cannot tell (*keys may then hold some keys): the reader lists
  // everything, having taken *now first.
  bool ChangedSince(const Revision& since, std::vector<std::string>* keys, Revision* now) const {
    const bool objects_known = lister_.ChangedSince(since.objects, keys, &now->objects);
    std::lock_guard<std::mutex> l(mu_);
    now->assumed = assumed_changes_.revision();
    return objects_known && assumed_changes_.ChangedSince(since.assumed, keys);
  }

  // Get by a key as ChangedSince names them.
  util::StatusOr<Ptr> GetByKey(std::string_view key) const {
    const size_t slash = key.find('/');
    if (slash == std::string_view::npos) return Get("", key);
    return Get(key.substr(0, slash), key.substr(slash + 1));
  }

  // Whether an assumed version is held (for tests).
  bool IsAssumed(std::string_view namespace_, std::string_view name) const {
    std::lock_guard<std::mutex> l(mu_);
    return assumed_.count(Key(namespace_, name)) > 0;
  }

 private:
  struct Assumed {
    Ptr obj;
    bool written;  // the API server's answer to a write (AssumeWritten)
  };

  util::Status AssumeAs(Ptr obj, bool written) {
    const std::string key = Key(obj->metadata.namespace_, obj->metadata.name);
    util::StatusOr<Ptr> current = Get(obj->metadata.namespace_, obj->metadata.name);
    if (!current.ok()) return current.status();
    util::StatusOr<uint64_t> new_version = ObjectVersion(obj->metadata);
    if (!new_version.ok()) return new_version.status();
    util::StatusOr<uint64_t> stored_version = ObjectVersion((*current)->metadata);
    if (!stored_version.ok()) return stored_version.status();
    if (*new_version < *stored_version) {
      return util::Status(util::StatusCode::kConflict,
                          description_ + " \"" + key + "\" is out of sync (stored: " +
                              std::to_string(*stored_version) + ", assume: " + std::to_string(*new_version) + ")");
    }
    std::lock_guard<std::mutex> l(mu_);
    assumed_[key] = Assumed{std::move(obj), written};
    assumed_changes_.Record(key);
    return util::Status();
  }

  static std::string Key(std::string_view namespace_, std::string_view name) {
    std::string key;
    KeyInto(namespace_, name, key);
    return key;
  }
  // Key() into `out`, reusing its buffer.
  static void KeyInto(std::string_view namespace_, std::string_view name, std::string& out) {
    out.clear();
    if (!namespace_.empty()) out.append(namespace_).push_back('/');
    out.append(name);
  }

  util::Status NotFound(std::string_view namespace_, std::string_view name) const {
    return util::NotFound("could not find " + description_ + " \"" + Key(namespace_, name) + "\"");
  }

  // The assumed version of `api_obj` unless the informer's is newer, or as
  // new for a written one (then the assumption is dropped: the write it
  // stood for has landed or lost).
  Ptr Latest(const Ptr& api_obj) const {
    const std::string key = Key(api_obj->metadata.namespace_, api_obj->metadata.name);
    std::lock_guard<std::mutex> l(mu_);
    return LatestLocked(api_obj, key);
  }
  Ptr LatestLocked(const Ptr& api_obj, const std::string& key) const {
    auto it = assumed_.find(key);
    if (it == assumed_.end()) return api_obj;
    util::StatusOr<uint64_t> api_version = ObjectVersion(api_obj->metadata);
    util::StatusOr<uint64_t> assumed_version = ObjectVersion(it->second.obj->metadata);
    if (api_version.ok() && assumed_version.ok() &&
        (*api_version < *assumed_version || (*api_version == *assumed_version && !it->second.written))) {
      return it->second.obj;
    }
    Drop(it);
    return api_obj;
  }
  void Drop(typename std::map<std::string, Assumed, std::less<>>::iterator it) const {
    assumed_changes_.Record(it->first);
    assumed_.erase(it);
  }

  const framework::ObjectLister<T>& lister_;
  const std::string description_;
  mutable std::mutex mu_;
  mutable std::map<std::string, Assumed, std::less<>> assumed_;  // guarded by mu_
  mutable util::ChangeLog assumed_changes_{kAssumedChangeLogCapacity};  // guarded by mu_
  static constexpr size_t kAssumedChangeLogCapacity = 1024;
};

using PVAssumeCache = AssumeCache<api::PersistentVolume>;
using PVCAssumeCache = AssumeCache<api::PersistentVolumeClaim>;

}  // namespace ksched::scheduler::plugins::volumebinding
