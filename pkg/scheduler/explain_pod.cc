// Scheduler::ExplainPod: a pod's place in the queue, for /debug/explain.
#include "pkg/scheduler/explain_json.h"
#include "pkg/scheduler/scheduler.h"

namespace ksched::scheduler {

PodExplainState Scheduler::ExplainPod(std::string_view namespace_, std::string_view name) const {
  PodExplainState s;
  s.namespace_ = std::string(namespace_);
  s.name = std::string(name);
  s.unschedulable_timeout = options_.pod_max_in_unschedulable_pods_duration;
  std::shared_ptr<const api::Pod> cached = listers_->Pods().Get(s.namespace_, s.name);
  if (cached != nullptr) {
    s.uid = cached->metadata.uid;
    s.scheduler_name = cached->spec.scheduler_name;
  }
  std::optional<queue::PriorityQueue::Location> loc = queue_->LocatePod(name, namespace_);
  if (loc) {
    s.location = loc->queue;
    if (loc->info) {
      const framework::QueuedPodInfo& info = *loc->info;
      s.uid = info.pod().metadata.uid;
      s.scheduler_name = info.pod().spec.scheduler_name;
      s.attempts = info.attempts;
      if (s.location == "backoffQ") s.backoff_until = info.backoff_expiration;
      if (s.location == "unschedulable" || s.location == "gated") s.unschedulable_since = info.timestamp;
      s.unschedulable_plugins = info.unschedulable_plugins.names();
      s.pending_plugins = info.pending_plugins.names();
      s.gating_plugin = info.gating_plugin;
      if (info.Gated()) {
        if (info.gating_plugin_events != nullptr) {
          for (const framework::ClusterEvent& e : *info.gating_plugin_events) {
            s.requeue_events.push_back(RequeueEvent{DescribeClusterEvent(e), {info.gating_plugin}, false});
          }
        }
      } else if (info.HasRejectors()) {
        if (const queue::QueueingHintMap* map = queue_->HintMapFor(s.scheduler_name)) {
          s.requeue_events = RequeueEventsFor(*map, info.Rejectors());
        }
      }
    }
  } else if (cached != nullptr && !cached->spec.node_name.empty()) {
    s.location = "bound";
    s.node = cached->spec.node_name;
  } else if (std::shared_ptr<const api::Pod> in_cache = cached ? cache_.GetPod(*cached) : nullptr;
             in_cache != nullptr && !in_cache->spec.node_name.empty()) {
    // Assumed, or bound before the informer reported it.
    s.location = cache_.IsAssumedPod(*cached) ? "assumed" : "bound";
    s.node = in_cache->spec.node_name;
  } else if (cached == nullptr) {
    s.location = "notFound";
  } else if (!IsResponsibleFor(*cached)) {
    s.location = "notOurs";
  }
  if (!s.uid.empty() && s.location != "bound" && s.location != "assumed") {
    // A pod at Permit is in flight, assumed on its node.
    if (std::shared_ptr<framework::WaitingPod> wp = waiting_pods_->Get(s.uid)) {
      s.location = "waitingOnPermit";
      s.node = wp->pod()->spec.node_name;
      s.waiting_on_permit_plugins = wp->GetPendingPlugins();
    }
    std::lock_guard<std::mutex> l(failures_mu_);
    auto it = last_failures_.find(s.uid);
    if (it != last_failures_.end()) s.last_failure_message = it->second;
  }
  return s;
}

}  // namespace ksched::scheduler
