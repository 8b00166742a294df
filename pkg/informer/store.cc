#include "pkg/informer/store.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "pkg/api/types.h"
#include "pkg/informer/resource_type.h"

namespace ksched::informer {

const char* DeltaTypeName(DeltaType type) {
  switch (type) {
    case DeltaType::kAdded: return "Added";
    case DeltaType::kUpdated: return "Updated";
    case DeltaType::kDeleted: return "Deleted";
  }
  return "Unknown";
}

template <class T>
util::Status Store<T>::AddIndexer(const std::string& name, IndexFunc fn) {
  std::unique_lock lock(mu_);
  if (indexes_.count(name) != 0) {
    return util::Status(util::StatusCode::kAlreadyExists, "indexer \"" + name + "\" already exists");
  }
  Index& index = indexes_[name];
  index.fn = std::move(fn);
  for (const auto& [key, object] : items_) {
    for (std::string& value : index.fn(*object)) index.keys_by_value[std::move(value)].insert(&key);
  }
  return util::Status::Ok();
}

template <class T>
void Store<T>::IndexLocked(const std::string& key, const T* old_object, const T* new_object) {
  for (auto& [name, index] : indexes_) {
    std::vector<std::string> old_values;
    std::vector<std::string> new_values;
    if (old_object != nullptr) old_values = index.fn(*old_object);
    if (new_object != nullptr) new_values = index.fn(*new_object);
    // Most updates leave the indexed fields alone; skip the map work then.
    if (old_values == new_values) continue;
    for (const std::string& value : old_values) {
      auto it = index.keys_by_value.find(value);
      if (it == index.keys_by_value.end()) continue;
      it->second.erase(&key);
      if (it->second.empty()) index.keys_by_value.erase(it);
    }
    for (std::string& value : new_values) index.keys_by_value[std::move(value)].insert(&key);
  }
}

template <class T>
void Store<T>::UpsertLocked(ObjectPtr object, std::vector<Delta<T>>& deltas) {
  std::string key = api::KeyOf(object->metadata);
  changes_.Record(key);
  auto [it, inserted] = items_.try_emplace(std::move(key), object);
  if (inserted) {
    IndexLocked(it->first, nullptr, object.get());
    deltas.push_back(Delta<T>{DeltaType::kAdded, std::move(object), nullptr, false});
    return;
  }
  ObjectPtr old = std::move(it->second);
  it->second = object;
  IndexLocked(it->first, old.get(), object.get());
  const std::string& old_uid = old->metadata.uid;
  const std::string& new_uid = object->metadata.uid;
  if (!old_uid.empty() && !new_uid.empty() && old_uid != new_uid) {
    deltas.push_back(Delta<T>{DeltaType::kDeleted, std::move(old), nullptr, true});
    deltas.push_back(Delta<T>{DeltaType::kAdded, std::move(object), nullptr, false});
    return;
  }
  deltas.push_back(Delta<T>{DeltaType::kUpdated, std::move(object), std::move(old), false});
}

template <class T>
std::vector<Delta<T>> Store<T>::Add(ObjectPtr object) {
  std::vector<Delta<T>> deltas;
  std::unique_lock lock(mu_);
  UpsertLocked(std::move(object), deltas);
  return deltas;
}

template <class T>
std::vector<Delta<T>> Store<T>::Update(ObjectPtr object) {
  return Add(std::move(object));
}

template <class T>
std::optional<Delta<T>> Store<T>::Delete(const std::string& key, ObjectPtr final_state) {
  std::unique_lock lock(mu_);
  auto it = items_.find(key);
  if (it == items_.end()) return std::nullopt;
  changes_.Record(key);
  Delta<T> delta;
  delta.type = DeltaType::kDeleted;
  IndexLocked(it->first, it->second.get(), nullptr);
  if (final_state != nullptr) {
    delta.object = std::move(final_state);
  } else {
    delta.object = it->second;
    delta.final_state_unknown = true;
  }
  items_.erase(it);
  return delta;
}

template <class T>
std::vector<Delta<T>> Store<T>::Replace(std::vector<ObjectPtr> objects, const std::string& resource_version) {
  std::unique_lock lock(mu_);
  std::vector<Delta<T>> deltas;
  deltas.reserve(objects.size());
  std::unordered_set<std::string> listed;
  listed.reserve(objects.size());
  for (ObjectPtr& object : objects) {
    listed.insert(api::KeyOf(object->metadata));
    UpsertLocked(std::move(object), deltas);
  }
  // Sorted so that tombstones come out in a reproducible order.
  std::vector<std::string> vanished;
  for (const auto& [key, object] : items_) {
    if (listed.count(key) == 0) vanished.push_back(key);
  }
  std::sort(vanished.begin(), vanished.end());
  for (const std::string& key : vanished) {
    auto it = items_.find(key);
    IndexLocked(it->first, it->second.get(), nullptr);
    Delta<T> delta;
    delta.type = DeltaType::kDeleted;
    delta.object = std::move(it->second);
    delta.final_state_unknown = true;
    deltas.push_back(std::move(delta));
    items_.erase(it);
  }
  list_resource_version_ = resource_version;
  changes_.Reset();
  return deltas;
}

template <class T>
bool Store<T>::ChangedSince(uint64_t since, std::vector<std::string>* keys, uint64_t* revision) const {
  {
    std::shared_lock lock(mu_);
    if (changes_.capacity() != 0) return changes_.ChangedSince(since, keys, revision);
  }
  std::unique_lock lock(mu_);
  changes_.KeepForReaders();
  return changes_.ChangedSince(since, keys, revision);
}

template <class T>
typename Store<T>::ObjectPtr Store<T>::Get(const std::string& key) const {
  std::shared_lock lock(mu_);
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

template <class T>
std::vector<typename Store<T>::ObjectPtr> Store<T>::List() const {
  std::shared_lock lock(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& [key, object] : items_) out.push_back(object);
  return out;
}

template <class T>
std::vector<std::string> Store<T>::ListKeys() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const auto& [key, object] : items_) out.push_back(key);
  return out;
}

template <class T>
size_t Store<T>::Size() const {
  std::shared_lock lock(mu_);
  return items_.size();
}

template <class T>
util::StatusOr<std::vector<typename Store<T>::ObjectPtr>> Store<T>::ByIndex(const std::string& index_name,
                                                                            const std::string& value) const {
  std::shared_lock lock(mu_);
  auto index = indexes_.find(index_name);
  if (index == indexes_.end()) return util::NotFound("index \"" + index_name + "\" does not exist");
  std::vector<ObjectPtr> out;
  auto keys = index->second.keys_by_value.find(value);
  if (keys == index->second.keys_by_value.end()) return out;
  out.reserve(keys->second.size());
  for (const std::string* key : keys->second) out.push_back(items_.at(*key));
  return out;
}

template <class T>
util::StatusOr<std::vector<std::string>> Store<T>::ListIndexValues(const std::string& index_name) const {
  std::shared_lock lock(mu_);
  auto index = indexes_.find(index_name);
  if (index == indexes_.end()) return util::NotFound("index \"" + index_name + "\" does not exist");
  std::vector<std::string> out;
  out.reserve(index->second.keys_by_value.size());
  for (const auto& [value, keys] : index->second.keys_by_value) out.push_back(value);
  return out;
}

template <class T>
uint64_t Store<T>::Revision() const {
  std::shared_lock lock(mu_);
  return changes_.revision();
}

template <class T>
std::string Store<T>::LastListResourceVersion() const {
  std::shared_lock lock(mu_);
  return list_resource_version_;
}

#define KSCHED_INSTANTIATE_STORE(T) template class Store<T>;
KSCHED_INFORMER_FOR_EACH_TYPE(KSCHED_INSTANTIATE_STORE)
#undef KSCHED_INSTANTIATE_STORE

}  // namespace ksched::informer
