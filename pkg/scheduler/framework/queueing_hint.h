// QueueingHint and the hint functions plugins register with their events.
//
// A hint function answers "could this event make `pod`, which this plugin
// rejected, schedulable?". It receives the objects of the event as
// EventObjects: `old_obj` is empty for an add, `new_obj` is empty for a
// delete. An error from a hint function is logged and treated as Queue, so a
// buggy hint can cost a retry but never strands a pod.
//
// Hint functions run under the scheduling queue's lock: they must be cheap,
// pure and non-blocking (no API calls, no locks that the queue's callers
// might hold).
//
// EventObject is a type-erased, shared, immutable API object (Pod, Node,
// PersistentVolume, ... or any type a plugin chooses), read with As<T>():
//   if (const api::Node* node = new_obj.As<api::Node>()) { ... }
// Copying an EventObject copies a shared_ptr; the object itself is never
// copied or mutated.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <utility>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cluster_event.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

enum class QueueingHint : int {
  // The event cannot make the pod schedulable.
  kQueueSkip = 0,
  // The event may make the pod schedulable.
  kQueue = 1,
};

// "Queue" / "QueueSkip".
constexpr std::string_view QueueingHintString(QueueingHint h) {
  return h == QueueingHint::kQueue ? "Queue" : "QueueSkip";
}

class EventObject {
 public:
  EventObject() = default;  // no object (the old side of an add, the new side of a delete)
  template <class T>
  EventObject(std::shared_ptr<const T> obj)  // NOLINT: implicit so callers pass pointers directly
      : obj_(std::move(obj)), tag_(obj_ ? TagOf<T>() : nullptr) {
    if constexpr (requires(const T& t) { t.metadata.name; }) {
      if (obj_) meta_ = &static_cast<const T*>(obj_.get())->metadata;
    }
  }
  template <class T>
  EventObject(std::shared_ptr<T> obj) : EventObject(std::shared_ptr<const T>(std::move(obj))) {}  // NOLINT

  bool empty() const { return obj_ == nullptr; }
  explicit operator bool() const { return obj_ != nullptr; }

  // The object if it is a T, else nullptr.
  template <class T>
  const T* As() const {
    return tag_ == TagOf<T>() ? static_cast<const T*>(obj_.get()) : nullptr;
  }
  // A shared handle to the object if it is a T, else nullptr.
  template <class T>
  std::shared_ptr<const T> Shared() const {
    return tag_ == TagOf<T>() ? std::static_pointer_cast<const T>(obj_) : nullptr;
  }
  // Metadata of the object when its type has `metadata` (every API type).
  const api::ObjectMeta* meta() const { return meta_; }

 private:
  template <class T>
  static const void* TagOf() {
    static const char tag = 0;
    return &tag;
  }

  std::shared_ptr<const void> obj_;
  const void* tag_ = nullptr;
  const api::ObjectMeta* meta_ = nullptr;
};

using QueueingHintFn = std::function<util::StatusOr<QueueingHint>(
    const api::Pod& pod, const EventObject& old_obj, const EventObject& new_obj)>;

struct ClusterEventWithHint {
  ClusterEvent event;
  // Optional: empty means "always Queue" for this event.
  QueueingHintFn queueing_hint_fn;
};

}  // namespace ksched::scheduler::framework
