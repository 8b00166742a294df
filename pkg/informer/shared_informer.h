// SharedInformer<T>: one Reflector filling one Store<T>, and the event
// handlers of everyone interested in that collection (client-go's
// sharedIndexInformer).
//
// Threads: Start() launches the reflector thread, which lists, watches,
// decodes and applies each change to the Store; a delivery thread, started
// at the first hand-off, calls the handlers. Between them is an unbounded
// queue of notifications, so a slow handler does not stall a watch that has
// more to read (as client-go's processorListener buffers). A watch event
// that finds the queue empty, no thread delivering and nothing more arrived
// on the watch (ReflectorSink's more_arrived) is delivered by the reflector
// thread itself, which would only wait for the server otherwise: events that
// come one at a time then cost no hand-off (a wake-up of the delivery
// thread). So is a list of a few objects that finds no thread delivering:
// an informer of a collection that stays empty (most of a scheduler's
// twenty-odd) never starts a delivery thread.
// Handlers therefore run:
//   - on one thread at a time (the delivery thread, or the reflector thread
//     as above), one notification at a time, each notification to every
//     handler in registration order before the next notification;
//   - in the order the Store changed, never under the Store's lock (they may
//     read the Store, which may already be ahead of the notification);
//   - never concurrently with each other.
// Both threads wait for a CPU when woken (util::WaitForCpuWhenWoken): a
// watch event does not preempt the scheduling thread, nor a hand-off the
// watch thread, which goes on decoding what arrived meanwhile.
//
// Per key, a handler sees a consistent story: OnAdd, then OnUpdate(old, new)
// with `old` the object it last saw, then OnDelete; never an update before
// an add or an event after a delete (until the key is added again). A key
// taken over by a new object (another UID, e.g. deleted and re-created while
// the watch was down) is an OnDelete of the old one (final state unknown)
// then an OnAdd of the new one, never an update between the two.
//
// Notifications:
//   OnAdd(obj, is_initial_list)   is_initial_list: part of the first list
//                                 (or of the replay a late handler gets);
//   OnUpdate(old, new)            also when nothing changed (a relist
//                                 re-delivers every object; compare
//                                 resourceVersions to skip those);
//   OnDelete(obj, final_state_unknown)
//                                 final_state_unknown: the deletion was
//                                 inferred (relist tombstone, client-go's
//                                 DeletedFinalStateUnknown) and `obj` is the
//                                 last state this informer saw.
// A handler added after Start() first gets OnAdd(obj, true) for every object
// in the Store at that point, then the changes after it.
//
// Filters (client-go's FilteringResourceEventHandler): with `filter` set, an
// add or delete is delivered only when the object passes; an update where
// both old and new pass is an update, where only the new passes an
// OnAdd(new, false), where only the old passes an OnDelete(old, false).
// `tombstone_filter`, when set, replaces `filter` for final-state-unknown
// deletions (kube-scheduler lets tombstones through its assigned-pod filter).
//
// A handler that throws has missed a notification (client-go would crash
// the process): the exception is logged, the informer asks its reflector to
// relist (after its backoff; IncForcedRelists "handler_error"), and until
// that list is delivered the handler gets no notification for that key.
// Then it goes from the object it last received for the key straight to the
// listed state: OnAdd, OnUpdate(last received, listed) or OnDelete(last
// received, final_state_unknown=true). Other handlers and keys are not held
// back; they see the relist as any other.
//
// Sync: HasSynced() turns true once the first list has been delivered to
// every handler registered before it; a registration's own HasSynced() turns
// true once it has received the first list (or its replay).
//
// Lifetime: Start() once; Stop() (also run by the destructor) stops the
// reflector (aborting its HTTP call), drops undelivered notifications and
// joins the threads; it is bounded by the ListerWatcher's promptness to
// honour its stop token and by the handler running at that moment.
//
// Thread-safety: every public method is thread-safe. Handlers must not call
// Stop() on their own informer.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "pkg/informer/list_watcher.h"
#include "pkg/informer/reflector.h"
#include "pkg/informer/reflector_metrics.h"
#include "pkg/informer/store.h"
#include "pkg/util/clock.h"
#include "pkg/util/parker.h"
#include "pkg/util/status.h"

namespace ksched::informer {

template <class T>
struct ResourceEventHandlerFuncs {
  using ObjectPtr = std::shared_ptr<const T>;
  // Each may be empty (that notification is ignored).
  std::function<void(const ObjectPtr& object, bool is_initial_list)> on_add;
  std::function<void(const ObjectPtr& old_object, const ObjectPtr& new_object)> on_update;
  std::function<void(const ObjectPtr& object, bool final_state_unknown)> on_delete;
  // Optional; see the header comment.
  std::function<bool(const T& object)> filter;
  std::function<bool(const T& object)> tombstone_filter;
};

// Returned by AddEventHandler.
class HandlerRegistration {
 public:
  virtual ~HandlerRegistration() = default;
  // The handler has received the informer's first list (or its replay).
  virtual bool HasSynced() const = 0;
};

// The type-independent face of an informer, for InformerFactory.
class InformerBase {
 public:
  virtual ~InformerBase() = default;
  virtual void Start() = 0;
  virtual void Stop() = 0;
  virtual bool HasSynced() const = 0;
  // Blocks until HasSynced() or `timeout` (on the informer's clock) passed;
  // returns HasSynced().
  virtual bool WaitForCacheSync(util::Duration timeout) const = 0;
  virtual const std::string& resource() const = 0;
  virtual std::string LastSyncResourceVersion() const = 0;
};

struct SharedInformerOptions {
  // reflector.resource defaults to api::TypeInfo<T>::kResource.
  ReflectorOptions reflector;
};

template <class T>
class SharedInformer final : public InformerBase, private ReflectorSink<T> {
 public:
  using ObjectPtr = std::shared_ptr<const T>;

  // `clock` and `metrics` (NoopReflectorMetrics when null) must outlive the
  // informer.
  SharedInformer(std::unique_ptr<ListerWatcher> lister_watcher, const util::Clock& clock,
                 SharedInformerOptions options = {}, ReflectorMetrics* metrics = nullptr);
  ~SharedInformer() override;
  SharedInformer(const SharedInformer&) = delete;
  SharedInformer& operator=(const SharedInformer&) = delete;

  // Registers a handler; valid before or after Start().
  std::shared_ptr<const HandlerRegistration> AddEventHandler(ResourceEventHandlerFuncs<T> handler);
  // Adds an index to the Store (before or after Start()).
  util::Status AddIndexer(const std::string& name, typename Store<T>::IndexFunc fn);
  // The cache: Get / List / ByIndex. Read-only for users.
  const Store<T>& GetStore() const { return store_; }

  void Start() override;
  void Stop() override;
  bool HasSynced() const override;
  bool WaitForCacheSync(util::Duration timeout) const override;
  const std::string& resource() const override { return resource_; }
  std::string LastSyncResourceVersion() const override;

 private:
  struct Listener;
  struct Notification;

  // ReflectorSink, on the reflector thread.
  void OnReplace(std::vector<ObjectPtr> objects, const std::string& resource_version) override;
  void OnAdded(ObjectPtr object, bool more_arrived) override;
  void OnModified(ObjectPtr object, bool more_arrived) override;
  void OnDeleted(const std::string& key, ObjectPtr final_state, bool more_arrived) override;

  void EnqueueDeltaLocked(Delta<T> delta, bool is_initial_list, bool from_list);
  // Nothing queued and no thread delivering.
  bool IdleLocked() const { return queue_.empty() && !delivering_; }
  // After a watch event was queued: delivers the queue on this (the
  // reflector) thread when `here`, else wakes the delivery thread. Unlocks.
  void DeliverOrHandOff(std::unique_lock<std::mutex>& lock, bool here);
  void DeliveryLoop(std::stop_token stop);
  // Wakes the delivery thread, starting it if Start() ran, Stop() did not
  // and none runs yet. Called without mu_.
  void HandOffToDeliveryThread();
  // A list of at most this many notifications (with the handlers' joins
  // queued before it) that finds no thread delivering is delivered by the
  // reflector thread.
  static constexpr size_t kListDeliveredInPlace = 32;
  // Takes the delivery turn and the queue (into `batch`, empty), delivers it
  // unlocked, gives the turn back; `lock` holds mu_ before and after. False
  // when stopped meanwhile.
  bool DeliverQueued(std::unique_lock<std::mutex>& lock, std::deque<Notification>& batch,
                     const std::stop_token& stop);
  // Delivers `batch` in order; false when stopped meanwhile. The caller
  // holds the delivery turn (delivering_).
  bool DeliverBatch(std::deque<Notification>& batch, const std::stop_token& stop);
  // Delivers, or holds back / catches up a key the listener missed.
  void Dispatch(Listener& listener, const Delta<T>& delta, bool is_initial_list, bool from_list);
  // After a list's deltas: the missed keys the list did not have.
  void FinishCatchUp(Listener& listener);
  // Calls the handler (through its filter); false when it threw, after
  // recording the key as missed and requesting a relist.
  bool Deliver(Listener& listener, const Delta<T>& delta, bool is_initial_list, bool from_list);

  const std::string resource_;
  std::unique_ptr<ListerWatcher> lister_watcher_;
  const util::Clock& clock_;
  Store<T> store_;
  Reflector<T> reflector_;

  // Guards the queue and makes "apply to the Store + enqueue" atomic with
  // respect to a late handler's snapshot of the Store.
  mutable std::mutex mu_;
  // Wakes the delivery thread when the queue gains work or on Stop. A
  // parker, not a condition variable: a woken condition-variable waiter
  // leaves mu_ marked contended, so its next unlock is a wasted system call
  // (pkg/util/parker.h), once per watch event handed off.
  util::Parker delivery_parker_;
  std::deque<Notification> queue_;
  bool listed_ = false;  // the reflector delivered its first list
  // A thread holds the delivery turn: it alone calls handlers and touches
  // the listener state below until it gives the turn back (under mu_).
  bool delivering_ = false;
  std::deque<Notification> reflector_batch_;  // the reflector thread's, reused

  // Only the thread with the delivery turn touches these.
  std::vector<std::shared_ptr<Listener>> listeners_;
  bool delivered_initial_list_ = false;

  mutable std::mutex synced_mu_;
  mutable std::condition_variable synced_cv_;
  bool synced_ = false;

  std::mutex lifecycle_mu_;  // Start / Stop
  bool started_ = false;
  std::stop_source stop_source_;
  std::thread reflector_thread_;
  // Started by HandOffToDeliveryThread under delivery_start_mu_, only while
  // delivery_thread_allowed_ (Start() to Stop()); joined by Stop().
  std::mutex delivery_start_mu_;
  bool delivery_thread_allowed_ = false;
  std::thread delivery_thread_;
};

}  // namespace ksched::informer
