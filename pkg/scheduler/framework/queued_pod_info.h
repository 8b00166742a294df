// PodInfo and QueuedPodInfo: a pod as the scheduler holds it, and the
// queue's per-pod record (kube-scheduler's framework.PodInfo and
// framework.QueuedPodInfo).
//
// Ownership: PodInfo shares the immutable api::Pod; an update swaps the
// pointer (PodInfo::Update) and never mutates the pod. A QueuedPodInfo is
// shared as QueuedPodInfoPtr; while the pod sits in the scheduling queue the
// queue alone mutates it (under its lock); between Pop and the pod's return
// (AddUnschedulableIfNotPresent) or Done, the scheduling cycle owns it.
//
// Thread-safety: none of its own; see the ownership rule above.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/pod_helpers.h"
#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cluster_event.h"
#include "pkg/scheduler/framework/plugin_set.h"
#include "pkg/scheduler/framework/pod_info_derived.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::framework {

// The framework's PodPriority is api's: one function, so that calls which
// also find it by argument-dependent lookup are not ambiguous.
using api::PodPriority;

// The pod plus data derived from it once, so hot paths (queue ordering,
// filters) do not re-derive it.
class PodInfo {
 public:
  PodInfo() = default;
  explicit PodInfo(std::shared_ptr<const api::Pod> pod) { Update(std::move(pod)); }

  // Replaces the pod and re-derives the cached data.
  void Update(std::shared_ptr<const api::Pod> pod) {
    pod_ = std::move(pod);
    priority_ = pod_ ? PodPriority(*pod_) : 0;
    uid_hash_ = pod_ ? std::hash<std::string_view>{}(pod_->metadata.uid) : 0;
    derived_ = pod_ ? DerivePodInfo(*pod_) : nullptr;
  }

  // Replaces the pod with `assumed`, a copy of it that differs only in
  // spec.nodeName: nothing derived reads the node name, so the derived data
  // is kept instead of computed again.
  void UpdateAssumed(std::shared_ptr<const api::Pod> assumed) { pod_ = std::move(assumed); }

  const api::Pod& pod() const { return *pod_; }
  const std::shared_ptr<const api::Pod>& pod_ptr() const { return pod_; }
  // Cached PodPriority(pod()).
  int32_t priority() const { return priority_; }
  // Cached std::hash<std::string_view> of pod().metadata.uid. The scheduling
  // queue indexes in-flight pods by UID; hashing when the pod is derived
  // (just decoded, in cache) spares Pop a cache miss on the UID's bytes.
  size_t uid_hash() const { return uid_hash_; }

  // Pre-parsed pod (anti-)affinity terms and cached requests (see
  // pod_info_derived.h). Copies of a PodInfo share them.
  const std::vector<AffinityTerm>& required_affinity_terms() const {
    return derived().affinity_terms().required_affinity_terms;
  }
  const std::vector<AffinityTerm>& required_anti_affinity_terms() const {
    return derived().affinity_terms().required_anti_affinity_terms;
  }
  const std::vector<WeightedAffinityTerm>& preferred_affinity_terms() const {
    return derived().affinity_terms().preferred_affinity_terms;
  }
  const std::vector<WeightedAffinityTerm>& preferred_anti_affinity_terms() const {
    return derived().affinity_terms().preferred_anti_affinity_terms;
  }
  // PodRequests(pod) as a Resource, and the non-zero cpu/memory requests.
  const Resource& requests() const { return derived().requests; }
  int64_t non0_milli_cpu() const { return derived().non0_milli_cpu; }
  int64_t non0_memory() const { return derived().non0_memory; }
  // Why a selector of an affinity term could not be parsed (OK otherwise);
  // the terms of the failing list are then left empty.
  const util::Status& parse_status() const { return derived().affinity_terms().parse_status; }

 private:
  const DerivedPodInfo& derived() const { return derived_ ? *derived_ : DerivedPodInfo::Empty(); }

  std::shared_ptr<const api::Pod> pod_;
  int32_t priority_ = 0;
  size_t uid_hash_ = 0;
  std::shared_ptr<const DerivedPodInfo> derived_;
};

struct QueuedPodInfo {
  QueuedPodInfo() = default;
  QueuedPodInfo(std::shared_ptr<const api::Pod> pod, util::TimePoint now)
      : pod_info(std::move(pod)), timestamp(now) {}

  PodInfo pod_info;
  // When the pod (re-)entered the queue: creation, or its last return from a
  // scheduling attempt. Orders equal-priority pods and bases backoff.
  util::TimePoint timestamp{};
  // Scheduling attempts so far (incremented by Pop); drives backoff.
  int attempts = 0;
  // Cached backoff deadline; cleared whenever the pod returns from an
  // attempt. With SchedulerPopFromBackoffQ it is aligned to a whole second.
  std::optional<util::TimePoint> backoff_expiration;
  // Returns with at least one rejector plugin.
  int unschedulable_count = 0;
  // Set when the unschedulable pods' leftover flush moved the pod; cleared
  // when it returns from an attempt or is found gated (kube counts the pods
  // bound while it is set: scheduler_pod_scheduled_after_flush_total).
  bool was_flushed_from_unschedulable = false;
  // When the leftover flush last moved the pod (zero: never since its last
  // attempt); read with the LeftoverFlushOfGatedPods switch.
  util::TimePoint flush_timestamp{};
  // Consecutive returns without rejectors (internal errors); reset by a
  // rejection.
  int consecutive_errors_count = 0;
  // First time the pod was actually placed in activeQ (never while gated).
  std::optional<util::TimePoint> initial_attempt_timestamp;
  // Plugins that returned Unschedulable/UnschedulableAndUnresolvable in the
  // last attempt (plus "Extender" and a gating PreEnqueue plugin).
  PluginSet unschedulable_plugins;
  // Plugins that returned Pending in the last attempt.
  PluginSet pending_plugins;
  // The PreEnqueue plugin currently gating the pod; "" when not gated.
  std::string gating_plugin;
  // The events the gating plugin registered (shared with the queue).
  std::shared_ptr<const std::vector<ClusterEvent>> gating_plugin_events;

  const api::Pod& pod() const { return pod_info.pod(); }
  const std::shared_ptr<const api::Pod>& pod_ptr() const { return pod_info.pod_ptr(); }
  bool Gated() const { return !gating_plugin.empty(); }
  // unschedulable_plugins ∪ pending_plugins.
  PluginSet Rejectors() const { return unschedulable_plugins.Union(pending_plugins); }
  bool HasRejectors() const { return !unschedulable_plugins.empty() || !pending_plugins.empty(); }
};

using QueuedPodInfoPtr = std::shared_ptr<QueuedPodInfo>;

}  // namespace ksched::scheduler::framework
