#include "pkg/informer/shared_informer.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <unordered_map>
#include <utility>

#include "pkg/api/codec.h"
#include "pkg/informer/resource_type.h"
#include "pkg/log/log.h"
#include "pkg/util/thread_name.h"
#include "pkg/util/wakeup_policy.h"

namespace ksched::informer {

template <class T>
struct SharedInformer<T>::Listener final : HandlerRegistration {
  explicit Listener(ResourceEventHandlerFuncs<T> f) : funcs(std::move(f)) {}
  bool HasSynced() const override { return synced.load(std::memory_order_acquire); }

  ResourceEventHandlerFuncs<T> funcs;
  std::atomic<bool> synced{false};
  // A key whose notification this handler threw on.
  struct Missed {
    ObjectPtr seen;  // the object it last received for the key; null: none
    // Thrown on while a list was delivered (the key may be in it): wait for
    // the next list rather than taking its absence from this one.
    bool during_list = false;
  };
  // Their notifications are held back until a relist catches the handler
  // up. Delivery thread only.
  std::unordered_map<std::string, Missed> missed;
};

template <class T>
struct SharedInformer<T>::Notification {
  enum class Kind {
    kDelta,   // a Store change, for every active listener
    kJoin,    // `listener` becomes active after replaying `snapshot`
    kSynced,  // the first list has been delivered
    kListed,  // the deltas of a (re)list have all been queued
  };
  Kind kind = Kind::kDelta;
  Delta<T> delta;
  bool is_initial_list = false;
  bool from_list = false;  // a delta of a (re)list
  std::shared_ptr<Listener> listener;
  std::vector<ObjectPtr> snapshot;
};

namespace {

ReflectorOptions WithResource(ReflectorOptions options, const std::string& resource) {
  if (options.resource.empty()) options.resource = resource;
  return options;
}

// Runs a handler; false (logged) when it threw. A throwing handler must not
// take the delivery thread down with it.
template <class T, class F>
bool CallHandler(const std::string& resource, const char* what, const T& object, F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    spdlog::error("{}: {} handler threw for {}: {}; relisting to catch it up", resource, what,
                  api::KeyOf(object.metadata), e.what());
  } catch (...) {
    spdlog::error("{}: {} handler threw a non-exception for {}; relisting to catch it up", resource, what,
                  api::KeyOf(object.metadata));
  }
  return false;
}

}  // namespace

template <class T>
SharedInformer<T>::SharedInformer(std::unique_ptr<ListerWatcher> lister_watcher, const util::Clock& clock,
                                  SharedInformerOptions options, ReflectorMetrics* metrics)
    : resource_(WithResource(options.reflector, api::TypeInfo<T>::kResource).resource),
      lister_watcher_(std::move(lister_watcher)),
      clock_(clock),
      reflector_(*lister_watcher_, *this, clock, WithResource(std::move(options.reflector), resource_),
                 metrics != nullptr ? *metrics : NoopReflectorMetrics::Get()) {}

template <class T>
SharedInformer<T>::~SharedInformer() {
  Stop();
}

template <class T>
std::shared_ptr<const HandlerRegistration> SharedInformer<T>::AddEventHandler(ResourceEventHandlerFuncs<T> handler) {
  auto listener = std::make_shared<Listener>(std::move(handler));
  {
    std::lock_guard<std::mutex> lock(mu_);
    Notification join;
    join.kind = Notification::Kind::kJoin;
    join.listener = listener;
    // Under mu_, no Store change can slip between this snapshot and the
    // queue position of the join: the listener sees each change exactly
    // once, either in the snapshot or as a delta after it.
    join.snapshot = store_.List();
    queue_.push_back(std::move(join));
  }
  HandOffToDeliveryThread();
  return listener;
}

template <class T>
util::Status SharedInformer<T>::AddIndexer(const std::string& name, typename Store<T>::IndexFunc fn) {
  return store_.AddIndexer(name, std::move(fn));
}

template <class T>
void SharedInformer<T>::Start() {
  std::lock_guard<std::mutex> lock(lifecycle_mu_);
  if (started_) return;
  started_ = true;
  KLOG_V(2, "Starting informer for {}", resource_);
  {
    std::lock_guard<std::mutex> start_lock(delivery_start_mu_);
    delivery_thread_allowed_ = true;
  }
  // Handlers registered before now have their joins queued: whoever
  // delivers first (the list, or a hand-off) delivers them in order.
  std::stop_token stop = stop_source_.get_token();
  reflector_thread_ = std::thread([this, stop] {
    util::NameThisThread("w/" + resource_);
    util::WaitForCpuWhenWoken();
    reflector_.Run(stop);
  });
}

template <class T>
void SharedInformer<T>::Stop() {
  std::lock_guard<std::mutex> lock(lifecycle_mu_);
  stop_source_.request_stop();
  delivery_parker_.Unpark();
  if (reflector_thread_.joinable()) reflector_thread_.join();
  {
    std::lock_guard<std::mutex> start_lock(delivery_start_mu_);
    delivery_thread_allowed_ = false;
  }
  // No thread starts from here on; one started since the first wake-up
  // sees the stop before it parks.
  if (delivery_thread_.joinable()) delivery_thread_.join();
  {
    std::lock_guard<std::mutex> queue_lock(mu_);
    queue_.clear();
  }
}

template <class T>
void SharedInformer<T>::HandOffToDeliveryThread() {
  {
    std::lock_guard<std::mutex> start_lock(delivery_start_mu_);
    if (delivery_thread_allowed_ && !delivery_thread_.joinable()) {
      std::stop_token stop = stop_source_.get_token();
      delivery_thread_ = std::thread([this, stop] {
        util::NameThisThread("d/" + resource_);
        util::WaitForCpuWhenWoken();
        DeliveryLoop(stop);
      });
    }
  }
  delivery_parker_.Unpark();
}

template <class T>
bool SharedInformer<T>::HasSynced() const {
  std::lock_guard<std::mutex> lock(synced_mu_);
  return synced_;
}

template <class T>
bool SharedInformer<T>::WaitForCacheSync(util::Duration timeout) const {
  util::TimePoint deadline = clock_.Now() + timeout;
  std::unique_lock<std::mutex> lock(synced_mu_);
  while (!synced_) {
    if (clock_.WaitUntil(lock, synced_cv_, deadline)) break;
  }
  return synced_;
}

template <class T>
std::string SharedInformer<T>::LastSyncResourceVersion() const {
  return reflector_.LastSyncResourceVersion();
}

template <class T>
void SharedInformer<T>::EnqueueDeltaLocked(Delta<T> delta, bool is_initial_list, bool from_list) {
  Notification n;
  n.kind = Notification::Kind::kDelta;
  n.delta = std::move(delta);
  n.is_initial_list = is_initial_list;
  n.from_list = from_list;
  queue_.push_back(std::move(n));
}

template <class T>
void SharedInformer<T>::OnReplace(std::vector<ObjectPtr> objects, const std::string& resource_version) {
  std::unique_lock<std::mutex> lock(mu_);
  const bool initial = !listed_;
  listed_ = true;
  const bool nobody_delivering = !delivering_;
  for (Delta<T>& delta : store_.Replace(std::move(objects), resource_version)) {
    const bool is_initial_list = initial && delta.type == DeltaType::kAdded;
    EnqueueDeltaLocked(std::move(delta), is_initial_list, /*from_list=*/true);
  }
  Notification listed;
  listed.kind = Notification::Kind::kListed;
  queue_.push_back(std::move(listed));
  if (initial) {
    Notification synced;
    synced.kind = Notification::Kind::kSynced;
    queue_.push_back(std::move(synced));
  }
  DeliverOrHandOff(lock, nobody_delivering && queue_.size() <= kListDeliveredInPlace);
}

template <class T>
void SharedInformer<T>::OnAdded(ObjectPtr object, bool more_arrived) {
  std::unique_lock<std::mutex> lock(mu_);
  const bool idle = IdleLocked();
  for (Delta<T>& delta : store_.Add(std::move(object))) EnqueueDeltaLocked(std::move(delta), false, false);
  DeliverOrHandOff(lock, idle && !more_arrived);
}

template <class T>
void SharedInformer<T>::OnModified(ObjectPtr object, bool more_arrived) {
  std::unique_lock<std::mutex> lock(mu_);
  const bool idle = IdleLocked();
  for (Delta<T>& delta : store_.Update(std::move(object))) EnqueueDeltaLocked(std::move(delta), false, false);
  DeliverOrHandOff(lock, idle && !more_arrived);
}

template <class T>
void SharedInformer<T>::OnDeleted(const std::string& key, ObjectPtr final_state, bool more_arrived) {
  std::unique_lock<std::mutex> lock(mu_);
  const bool idle = IdleLocked();
  std::optional<Delta<T>> delta = store_.Delete(key, std::move(final_state));
  if (!delta) return;
  EnqueueDeltaLocked(std::move(*delta), false, false);
  DeliverOrHandOff(lock, idle && !more_arrived);
}

template <class T>
void SharedInformer<T>::DeliverOrHandOff(std::unique_lock<std::mutex>& lock, bool here) {
  if (here && !queue_.empty()) {
    DeliverQueued(lock, reflector_batch_, stop_source_.get_token());
    // Whatever was queued meanwhile (a handler joining) waited for the turn.
    if (queue_.empty()) return;
  }
  lock.unlock();
  HandOffToDeliveryThread();
}

template <class T>
void SharedInformer<T>::DeliveryLoop(std::stop_token stop) {
  std::deque<Notification> batch;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    while (!stop.stop_requested() && (queue_.empty() || delivering_)) {
      lock.unlock();
      delivery_parker_.Park();
      lock.lock();
    }
    if (stop.stop_requested()) return;
    if (!DeliverQueued(lock, batch, stop)) return;
  }
}

template <class T>
bool SharedInformer<T>::DeliverQueued(std::unique_lock<std::mutex>& lock, std::deque<Notification>& batch,
                                      const std::stop_token& stop) {
  delivering_ = true;
  batch.swap(queue_);
  lock.unlock();
  const bool delivered = DeliverBatch(batch, stop);
  batch.clear();
  lock.lock();
  delivering_ = false;
  return delivered;
}

template <class T>
bool SharedInformer<T>::DeliverBatch(std::deque<Notification>& batch, const std::stop_token& stop) {
  for (Notification& n : batch) {
    if (stop.stop_requested()) return false;
    switch (n.kind) {
      case Notification::Kind::kJoin:
        listeners_.push_back(n.listener);
        for (const ObjectPtr& object : n.snapshot) {
          if (stop.stop_requested()) return false;
          Dispatch(*n.listener, Delta<T>{DeltaType::kAdded, object, nullptr, false}, true, false);
        }
        if (delivered_initial_list_) n.listener->synced.store(true, std::memory_order_release);
        break;
      case Notification::Kind::kSynced:
        delivered_initial_list_ = true;
        for (const auto& listener : listeners_) listener->synced.store(true, std::memory_order_release);
        {
          std::lock_guard<std::mutex> lock(synced_mu_);
          synced_ = true;
        }
        synced_cv_.notify_all();
        KLOG_V(2, "Informer for {} synced", resource_);
        break;
      case Notification::Kind::kDelta:
        for (const auto& listener : listeners_) Dispatch(*listener, n.delta, n.is_initial_list, n.from_list);
        break;
      case Notification::Kind::kListed:
        for (const auto& listener : listeners_) FinishCatchUp(*listener);
        break;
    }
  }
  return true;
}

template <class T>
void SharedInformer<T>::Dispatch(Listener& listener, const Delta<T>& delta, bool is_initial_list, bool from_list) {
  if (!listener.missed.empty()) {
    auto it = listener.missed.find(api::KeyOf(delta.object->metadata));
    if (it != listener.missed.end()) {
      // Held back until a list says what the object is now; then the
      // handler goes from what it last received straight to that.
      if (!from_list) return;
      ObjectPtr seen = std::move(it->second.seen);
      listener.missed.erase(it);
      if (delta.type == DeltaType::kDeleted) {
        if (seen != nullptr) Deliver(listener, Delta<T>{DeltaType::kDeleted, seen, nullptr, true}, false, true);
      } else if (seen == nullptr) {
        Deliver(listener, Delta<T>{DeltaType::kAdded, delta.object, nullptr, false}, false, true);
      } else if (seen->metadata.uid != delta.object->metadata.uid) {
        // Another incarnation under the same key: never an update between two.
        if (Deliver(listener, Delta<T>{DeltaType::kDeleted, seen, nullptr, true}, false, true)) {
          Deliver(listener, Delta<T>{DeltaType::kAdded, delta.object, nullptr, false}, false, true);
        }
      } else {
        Deliver(listener, Delta<T>{DeltaType::kUpdated, delta.object, seen, false}, false, true);
      }
      return;
    }
  }
  Deliver(listener, delta, is_initial_list, from_list);
}

template <class T>
void SharedInformer<T>::FinishCatchUp(Listener& listener) {
  if (listener.missed.empty()) return;
  // Keys the list did not have and the Store had already dropped: a
  // deletion the handler missed.
  std::vector<ObjectPtr> deleted;
  for (auto it = listener.missed.begin(); it != listener.missed.end();) {
    if (it->second.during_list) {
      it->second.during_list = false;  // the next list decides
      ++it;
      continue;
    }
    if (it->second.seen != nullptr) deleted.push_back(std::move(it->second.seen));
    it = listener.missed.erase(it);
  }
  for (const ObjectPtr& seen : deleted) {
    Deliver(listener, Delta<T>{DeltaType::kDeleted, seen, nullptr, true}, false, false);
  }
}

template <class T>
bool SharedInformer<T>::Deliver(Listener& listener, const Delta<T>& delta, bool is_initial_list, bool from_list) {
  const ResourceEventHandlerFuncs<T>& f = listener.funcs;
  bool ok = true;
  auto add = [&](const ObjectPtr& object, bool initial) {
    if (f.on_add) ok = CallHandler(resource_, "add", *object, [&] { f.on_add(object, initial); });
  };
  auto remove = [&](const ObjectPtr& object, bool unknown) {
    if (f.on_delete) ok = CallHandler(resource_, "delete", *object, [&] { f.on_delete(object, unknown); });
  };
  switch (delta.type) {
    case DeltaType::kAdded:
      if (!f.filter || f.filter(*delta.object)) add(delta.object, is_initial_list);
      break;
    case DeltaType::kUpdated: {
      bool old_passes = !f.filter || f.filter(*delta.old_object);
      bool new_passes = !f.filter || f.filter(*delta.object);
      if (old_passes && new_passes) {
        if (f.on_update) {
          ok = CallHandler(resource_, "update", *delta.object, [&] { f.on_update(delta.old_object, delta.object); });
        }
      } else if (new_passes) {
        add(delta.object, false);
      } else if (old_passes) {
        remove(delta.old_object, false);
      }
      break;
    }
    case DeltaType::kDeleted: {
      const auto& filter = delta.final_state_unknown && f.tombstone_filter ? f.tombstone_filter : f.filter;
      if (!filter || filter(*delta.object)) remove(delta.object, delta.final_state_unknown);
      break;
    }
  }
  if (!ok) {
    // What the handler held before this notification, for the catch-up.
    ObjectPtr seen;
    if (delta.type == DeltaType::kUpdated) seen = delta.old_object;
    if (delta.type == DeltaType::kDeleted) seen = delta.object;
    listener.missed[api::KeyOf(delta.object->metadata)] = {std::move(seen), from_list};
    reflector_.RequestRelist(kRelistHandlerError);
  }
  return ok;
}

#define KSCHED_INSTANTIATE_INFORMER(T) template class SharedInformer<T>;
KSCHED_INFORMER_FOR_EACH_TYPE(KSCHED_INSTANTIATE_INFORMER)
#undef KSCHED_INSTANTIATE_INFORMER

}  // namespace ksched::informer
