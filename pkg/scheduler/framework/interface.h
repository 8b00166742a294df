// Plugin interfaces of the scheduling framework that the scheduling queue
// uses: QueueSort, PreEnqueue and EnqueueExtensions. The scheduling cycle's
// extension points (PreFilter, Filter, Score, ...) are in cycle_plugins.h.
//
// A plugin is one object implementing Plugin plus any number of the
// extension interfaces; the framework discovers them with dynamic_cast, as
// kube-scheduler does with Go interface assertions.
//
// Thread-safety: every method may be called concurrently from several
// threads (the scheduling loop, informer handlers, binding goroutines) and
// must not block. QueueSort::Less, PreEnqueue and hint functions run under
// the scheduling queue's lock.
// Lifetime: plugins outlive the queue and framework that call them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/framework/queueing_hint.h"
#include "pkg/scheduler/framework/status.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
};

// Orders activeQ. Exactly one per scheduler (all profiles share it).
class QueueSortPlugin : public virtual Plugin {
 public:
  // True when a must be scheduled before b. A strict weak ordering.
  virtual bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
  // True when Less is exactly the standard order: higher spec.priority
  // first, then the earlier queue timestamp. The queue then compares its own
  // cached copies of those two fields instead of calling Less (its heaps'
  // hot path); a wrapper that delegates Less should delegate this too.
  virtual bool OrdersByPriorityThenTimestamp() const { return false; }
};

// Decides whether a pod may enter activeQ at all (e.g. scheduling gates).
// A non-Success status keeps the pod out ("gated") until an event the plugin
// registered, or an update, lets it in.
class PreEnqueuePlugin : public virtual Plugin {
 public:
  virtual Status PreEnqueue(const api::Pod& pod) = 0;
};

// The events after which pods this plugin rejected are worth retrying.
// A plugin that does not implement this interface is assumed to care about
// every event (UnrollWildCardResource); one that returns an empty list cares
// about none: its rejections are lifted only by wildcard events (the
// unschedulable timeout, activation) or by updates of the pod itself.
class EnqueueExtensions : public virtual Plugin {
 public:
  virtual util::StatusOr<std::vector<ClusterEventWithHint>> EventsToRegister() const = 0;
};

}  // namespace ksched::scheduler::framework
