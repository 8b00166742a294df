#include "pkg/apiserverlite/object_store.h"

#include <fmt/format.h>

#include <algorithm>

namespace ksched::apiserver {

namespace {

std::string NameFromKey(const std::string& key) {
  auto slash = key.rfind('/');
  return slash == std::string::npos ? key : key.substr(slash + 1);
}

bool HasFinalizers(const nlohmann::json& obj) {
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return false;
  auto f = m->find("finalizers");
  return f != m->end() && f->is_array() && !f->empty();
}

bool HasDeletionTimestamp(const nlohmann::json& obj) {
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return false;
  auto d = m->find("deletionTimestamp");
  return d != m->end() && !d->is_null();
}

// A pod terminating gracefully (its kubelet will delete it) keeps a
// positive deletionGracePeriodSeconds; only objects without one go when
// their last finalizer is removed.
bool InGracePeriod(const nlohmann::json& obj) {
  const nlohmann::json& grace = obj["metadata"].value("deletionGracePeriodSeconds", nlohmann::json());
  return grace.is_number_integer() && grace.get<int64_t>() > 0;
}

}  // namespace

ObjectStore::ObjectStore(std::string resource, ResourceVersionClock& clock, size_t history_limit)
    : resource_(std::move(resource)),
      clock_(clock),
      history_limit_(std::max<size_t>(1, history_limit)),
      history_floor_(clock.Current()) {}

ObjectStore::~ObjectStore() { CloseWatchers(); }

ObjectPtr ObjectStore::Get(const std::string& key) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

ObjectStore::ListResult ObjectStore::List(const std::string& key_prefix,
                                          const Predicate& predicate) const {
  ListResult result;
  std::lock_guard<std::mutex> l(mu_);
  result.resource_version = clock_.Current();
  auto it = key_prefix.empty() ? objects_.begin() : objects_.lower_bound(key_prefix);
  for (; it != objects_.end(); ++it) {
    if (!key_prefix.empty() && it->first.compare(0, key_prefix.size(), key_prefix) != 0) break;
    if (predicate && !predicate(it->second->object)) continue;
    result.items.push_back(it->second);
  }
  return result;
}

ApiResult<ObjectPtr> ObjectStore::Create(nlohmann::json object) {
  std::string name = object["metadata"].value("name", "");
  std::string ns = object["metadata"].value("namespace", "");
  std::string key = ns.empty() ? name : ns + "/" + name;
  PendingFlush flush;
  std::lock_guard<std::mutex> l(mu_);
  if (objects_.count(key) != 0) return AlreadyExistsError(resource_, name);
  return CommitLocked(EventType::kAdded, std::move(object), key, nullptr, &flush);
}

ApiResult<ObjectPtr> ObjectStore::Update(const std::string& key, const Mutation& mutate) {
  PendingFlush flush;
  std::lock_guard<std::mutex> l(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return NotFoundError(resource_, NameFromKey(key));
  ObjectPtr current = it->second;
  ApiResult<nlohmann::json> next = mutate(current->object);
  if (!next.ok()) return next.error();
  nlohmann::json& obj = next.value();
  obj["metadata"]["resourceVersion"] = std::to_string(current->resource_version);
  if (obj == current->object) return current;  // no-op: no new RV, no event
  if (HasDeletionTimestamp(obj) && !HasFinalizers(obj) && !InGracePeriod(obj)) {
    return CommitLocked(EventType::kDeleted, std::move(obj), key, current, &flush);
  }
  return CommitLocked(EventType::kModified, std::move(obj), key, current, &flush);
}

ApiResult<ObjectStore::DeleteResult> ObjectStore::Delete(const std::string& key,
                                                         const DeleteCheck& check,
                                                         const std::string& deletion_timestamp) {
  PendingFlush flush;
  std::lock_guard<std::mutex> l(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return NotFoundError(resource_, NameFromKey(key));
  ObjectPtr current = it->second;
  if (check) {
    if (auto err = check(current->object)) return *err;
  }
  if (HasFinalizers(current->object)) {
    if (HasDeletionTimestamp(current->object)) {
      if (!InGracePeriod(current->object)) return DeleteResult{current, false};
      // The end of a graceful deletion (the kubelet's final delete): the
      // grace period is over, so removing the last finalizer deletes it.
      nlohmann::json obj = current->object;
      obj["metadata"]["deletionGracePeriodSeconds"] = 0;
      return DeleteResult{CommitLocked(EventType::kModified, std::move(obj), key, current, &flush), false};
    }
    nlohmann::json obj = current->object;
    obj["metadata"]["deletionTimestamp"] = deletion_timestamp;
    obj["metadata"]["deletionGracePeriodSeconds"] = 0;
    return DeleteResult{CommitLocked(EventType::kModified, std::move(obj), key, current, &flush), false};
  }
  return DeleteResult{CommitLocked(EventType::kDeleted, current->object, key, current, &flush), true};
}

ObjectPtr ObjectStore::CommitLocked(EventType type, nlohmann::json object, const std::string& key,
                                    const ObjectPtr& previous, PendingFlush* flush) {
  uint64_t rv = clock_.Next();
  object["metadata"]["resourceVersion"] = std::to_string(rv);
  ObjectPtr stored = MakeStoredObject(std::move(object), key, rv);
  if (type == EventType::kDeleted) {
    objects_.erase(key);
  } else {
    objects_[key] = stored;
  }
  auto event = std::make_shared<const WatchEvent>(type, stored, previous);
  history_.push_back(event);
  while (history_.size() > history_limit_) {
    history_floor_ = history_.front()->resource_version();
    history_.pop_front();
  }
  PublishLocked(event, flush);
  return stored;
}

void ObjectStore::PublishLocked(const EventPtr& event, PendingFlush* flush) {
  for (const auto& [id, observer] : observers_) observer(event);
  std::vector<uint64_t> failed;
  for (const auto& [id, w] : watchers_) {
    if (!DeliverLocked(w, *event)) {
      failed.push_back(id);
    } else {
      flush->sinks.push_back(w.sink);
    }
  }
  for (uint64_t id : failed) {
    auto it = watchers_.find(id);
    it->second.sink->Close();
    watchers_.erase(it);
  }
}

bool ObjectStore::DeliverLocked(const Watcher& w, const WatchEvent& event) {
  const auto& pred = w.options.predicate;
  bool cur = !pred || pred(event.object()->object);
  bool old = event.type() == EventType::kModified && (!pred || pred(event.previous()->object));
  EventType as;
  switch (event.type()) {
    case EventType::kAdded:
    case EventType::kDeleted:
      if (!cur) return true;
      as = event.type();
      break;
    default:
      if (cur && old) {
        as = EventType::kModified;
      } else if (cur) {
        as = EventType::kAdded;
      } else if (old) {
        as = EventType::kDeleted;
      } else {
        return true;
      }
  }
  if (!w.options.view) return w.sink->Write(event.Line(as));
  // A converted view is serialized for this watcher alone.
  nlohmann::json obj = as == EventType::kDeleted && event.type() == EventType::kModified
                           ? w.options.view(event.DeletedView())
                           : w.options.view(event.object()->object);
  return w.sink->Write(
      WatchLine(as, obj.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

bool ObjectStore::WriteObjectLocked(const Watcher& w, EventType type, const StoredObject& obj) {
  if (w.options.predicate && !w.options.predicate(obj.object)) return true;
  if (!w.options.view) return w.sink->Write(WatchLine(type, obj.serialized));
  return w.sink->Write(WatchLine(type, w.options.view(obj.object)
                                           .dump(-1, ' ', false,
                                                 nlohmann::json::error_handler_t::replace)));
}

std::string ObjectStore::BookmarkLineLocked(const Watcher& w, bool initial_events_end) const {
  nlohmann::json obj = {
      {"kind", w.options.kind},
      {"apiVersion", w.options.api_version},
      {"metadata", {{"resourceVersion", std::to_string(clock_.Current())}}}};
  if (initial_events_end) {
    obj["metadata"]["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  }
  return WatchLine(EventType::kBookmark, obj.dump());
}

ApiResult<uint64_t> ObjectStore::Watch(const WatchOptions& options,
                                       std::shared_ptr<WatchSink> sink) {
  std::lock_guard<std::mutex> l(mu_);
  Watcher w{options, std::move(sink)};
  bool ok = true;
  const uint64_t from = options.resource_version;
  if (from == 0) {
    for (const auto& [key, obj] : objects_) {
      if (!WriteObjectLocked(w, EventType::kAdded, *obj)) {
        ok = false;
        break;
      }
    }
    if (ok && options.bookmarks && options.initial_events_end_bookmark) {
      ok = w.sink->Write(BookmarkLineLocked(w, true));
    }
  } else {
    if (from < history_floor_) {
      return ExpiredError(
          fmt::format("too old resource version: {} ({})", from, history_floor_ + 1));
    }
    auto first = std::upper_bound(
        history_.begin(), history_.end(), from,
        [](uint64_t rv, const EventPtr& e) { return rv < e->resource_version(); });
    for (auto it = first; it != history_.end() && ok; ++it) ok = DeliverLocked(w, **it);
  }
  if (!ok) {
    w.sink->Close();
    return uint64_t{0};
  }
  uint64_t id = next_watcher_id_++;
  watchers_.emplace(id, std::move(w));
  return id;
}

void ObjectStore::StopWatch(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = watchers_.find(id);
  if (it == watchers_.end()) return;
  it->second.sink->Close();
  watchers_.erase(it);
}

void ObjectStore::CloseWatchers() {
  std::lock_guard<std::mutex> l(mu_);
  for (auto& [id, w] : watchers_) w.sink->Close();
  watchers_.clear();
}

void ObjectStore::SendBookmarks() {
  PendingFlush flush;
  std::lock_guard<std::mutex> l(mu_);
  std::vector<uint64_t> failed;
  for (const auto& [id, w] : watchers_) {
    if (!w.options.bookmarks) continue;
    if (!w.sink->Write(BookmarkLineLocked(w, false))) {
      failed.push_back(id);
    } else {
      flush.sinks.push_back(w.sink);
    }
  }
  for (uint64_t id : failed) {
    auto it = watchers_.find(id);
    it->second.sink->Close();
    watchers_.erase(it);
  }
}

void ObjectStore::Compact() {
  std::lock_guard<std::mutex> l(mu_);
  history_.clear();
  history_floor_ = clock_.Current();
}

uint64_t ObjectStore::AddObserver(Observer observer) {
  std::lock_guard<std::mutex> l(mu_);
  const uint64_t id = next_observer_id_++;
  observers_.emplace(id, std::move(observer));
  return id;
}

void ObjectStore::RemoveObserver(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  observers_.erase(id);
}

size_t ObjectStore::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return objects_.size();
}

size_t ObjectStore::watcher_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return watchers_.size();
}

uint64_t ObjectStore::history_floor() const {
  std::lock_guard<std::mutex> l(mu_);
  return history_floor_;
}

}  // namespace ksched::apiserver
