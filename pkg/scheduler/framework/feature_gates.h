// FeatureGates: the one table of what differs between the kube-scheduler
// minors ksched behaves as (1.34 to 1.37), resolved once at start-up from
// the chosen minor and handed to the queue and the plugin factories, as
// kube hands `feature.Features` to its plugins.
//
// Two kinds of switch, both named:
//   - kube's feature gates that ksched models (SchedulerPopFromBackoffQ, ...):
//     their default, stage and lock at each minor come from kube's own list
//     (kube_feature_gates.inc, generated from kube's source), and
//     --feature-gates sets them as kube's flag does;
//   - kube's ungated changes (the ★ of the upstream map), under names of
//     ksched's own (BalancedAllocationHalfDifference, ...): on from the minor
//     that made them, not settable from the command line, since a
//     kube-scheduler of that minor cannot turn them off either.
// Plugins and the queue read the fields; no code outside this table tests
// the minor.
//
// A default-constructed value is kube-scheduler v1.34's behaviour, the
// baseline most unit tests are written against; the daemon and `ksched
// simulate` always start from ForMinor.
//
// Thread-safety: a value type; read-only after start-up.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

// The minors ksched can behave as.
inline constexpr int kOldestKubeMinor = 34;
inline constexpr int kNewestKubeMinor = 37;

struct FeatureGates {
  int minor = kOldestKubeMinor;

  // --- kube's feature gates ---
  // QueueingHints: hint functions decide requeueing, events seen while a pod
  // is in flight are replayed for it, Done() is meaningful. Off: the older
  // moveRequestCycle rule and AssignedPodAdded/Updated pre-filtering.
  bool scheduler_queueing_hints = true;
  // Pop takes the backoffQ head when activeQ is empty; backoff deadlines use
  // whole-second windows; PreEnqueue runs on entry to backoffQ.
  bool scheduler_pop_from_backoff_q = true;
  // Preemption's API calls (victims' DisruptionTarget condition and
  // deletion, clearing lower-priority nominations) run after the scheduling
  // cycle; DefaultPreemption's PreEnqueue holds the preemptor back until
  // they are done. Off: the calls are issued within PostFilter.
  bool scheduler_async_preemption = true;
  // The NodeDeclaredFeatures plugin (in the default set) filters out nodes
  // that do not declare the features a pod needs (1.36 on, GA in 1.37).
  bool node_declared_features = false;
  // VolumeBinding scores nodes by the storage their volumes would take:
  // static bindings by the chosen PVs' capacity, dynamic provisioning by the
  // CSIStorageCapacity that admits it (shape of VolumeBindingArgs, defaulted
  // through config::ConfigGates, which ApplyProcessWideSwitches sets).
  bool storage_capacity_scoring = false;
  // NodeVolumeLimits refuses a node whose CSINode lacks a driver of the
  // pod's new volumes when that driver's CSIDriver sets
  // preventPodSchedulingIfMissing ("<driver> CSI driver is not installed on
  // the node"; β, on in 1.37).
  bool volume_limit_scaling = false;
  // The DRA allocator takes no device with a NoSchedule or NoExecute taint
  // that the request does not tolerate, and records the request's
  // tolerations in the allocation (β-on 1.36, GA 1.37).
  bool dra_device_taints = false;
  // DeviceTaintRules add their taint to the devices they select, as if the
  // ResourceSlice carried it; ksched watches them (DeviceTaintRuleApiVersion)
  // and a change to one is a ResourceSlice update for the queue (GA-on
  // 1.37; β-off 1.36, α 1.35).
  bool dra_device_taint_rules = false;
  // The DRA allocator reads shared counters, counter consumption and
  // per-device node selection: a partition of a device is taken only while
  // the counters it shares with its siblings last (β-on 1.36).
  bool dra_partitionable_devices = false;
  // A pod's extended resource that the node does not advertise but a
  // DeviceClass names (spec.extendedResourceName, or the class's implicit
  // deviceclass.resource.kubernetes.io/<class>) is allocated by
  // DynamicResources from ResourceSlices in a claim the scheduler creates
  // in PreBind, instead of NodeResourcesFit refusing it (β-on 1.36, GA
  // 1.37).
  bool dra_extended_resource = false;
  // The DRA allocator shares a device that allows multiple allocations
  // among requests and claims while its capacity lasts (each allocation
  // consumes its capacity requests, rounded up per the device's request
  // policy, and gets a shareID), checks every device's capacity against
  // the request, and knows distinctAttribute constraints (β-on 1.36). Off:
  // a request with capacity requests is an error, every device exclusive.
  bool dra_consumable_capacity = false;
  // Binding conditions (both gates on; kube's DeviceBindingAndStatus): the
  // allocator takes devices with bindingConditions (from pools without
  // them first) and copies the conditions into the results; PreBind then
  // waits, up to DynamicResourcesArgs.bindingTimeout, until the driver
  // reports them True in the claim's status.devices (β-on 1.36). Off:
  // such devices are never taken.
  bool dra_device_binding_conditions = false;
  bool dra_resource_claim_device_status = true;  // β-on since 1.32
  bool DraBindingConditions() const { return dra_device_binding_conditions && dra_resource_claim_device_status; }
  // The binding cycle asks the PreBind plugins whether they have work
  // (PreBindPreFlight; those that skip are not run) and, when one has or
  // the pod waits at Permit, sets the pod's nominatedNodeName to its node
  // first, so that other components (the cluster autoscaler) see where it
  // is going (β-on 1.35).
  bool nominated_node_name_for_expectation = false;
  // The API server's: a binding clears the pod's nominatedNodeName (β-on
  // 1.35). Read by `ksched simulate`, which plays the API server.
  bool clearing_nominated_node_name_after_binding = false;
  // A pod that follows a pod of the same signature in the next cycle may
  // take the next node of its ranking (scheduler/opportunistic_batch.h;
  // β-on 1.35).
  bool opportunistic_batching = false;

  // --- kube's ungated changes, named by ksched ---
  // 1.35 ScoreHeapHostSelection: the host is the top of a max-heap of the
  // scored nodes (total score, then a randomizer that only extenders' nodes
  // get), built over the nodes in the order they were scored; before, ties
  // were broken at random.
  bool score_heap_host_selection = false;
  // 1.37 BatchRescoresChosenNode: opportunistic batching scores the
  // previous pod's node again when it still fits the next pod (before, the
  // ranking was dropped), drops it on a Filter error, and pods with a
  // nominated node do not batch.
  bool batch_rescores_chosen_node = false;
  // 1.37 ResizeRequestsPerSource: a pod's requests, a resize counted, are
  // the largest of three whole-pod sums (spec, allocated, actuated: each
  // container's report or its spec where it has none), every container
  // counted, init containers too; before, each container counted the
  // largest of its own three. Delivered to pkg/api's accounting by
  // ApplyProcessWideSwitches.
  bool resize_requests_per_source = false;
  // 1.36 BalancedAllocationHalfDifference: NodeResourcesBalancedAllocation
  // scores 50 + (50 + withPod - withoutPod) / 2 instead of the balance with
  // the pod alone.
  bool balanced_allocation_half_difference = false;
  // 1.36 ImageLocalityImageVolumes: ImageLocality counts the images of the
  // pod's image volumes with its containers'.
  bool image_locality_image_volumes = false;
  // 1.36 SkipRequeueOfRecreatedPod: a failed pod whose name the informer
  // now holds with another UID is neither requeued nor given the failure's
  // condition and Event.
  bool skip_requeue_of_recreated_pod = false;
  // 1.36 RejectorsClearedOnFailure: a popped pod keeps its rejector
  // plugins (shown while it is in flight, logged when it binds after a
  // flush) until a failure replaces them; 1.34 and 1.35 cleared them at Pop.
  bool rejectors_cleared_on_failure = false;
  // 1.36 ParallelPreBind: PreBind plugins that allow it (VolumeBinding,
  // DynamicResources) run at the same time when PreBindPreFlight ran; one
  // failing cancels the others' waits.
  bool parallel_pre_bind = false;
  // 1.36 PreemptionCancelsPreBind: a victim whose binding cycle is in
  // PreBind is stopped there (its waits cancelled, the pod requeued, a
  // Preempted event noting " (in kube-scheduler memory).") instead of
  // deleted through the API.
  bool preemption_cancels_pre_bind = false;
  // InPlacePodLevelResourcesVerticalScaling (β-on 1.36): a bound pod with
  // spec.resources counts its pod-level status.resources and
  // status.allocatedResources as a resize in progress
  // (api::PodResourcesOptions::pod_level_status).
  bool in_place_pod_level_resources_vertical_scaling = false;
  // 1.37 LeftoverFlushOfGatedPods: wildcard events (the unschedulable pods'
  // leftover flush) re-run the PreEnqueue plugins of gated pods too, so a
  // pod whose gating plugin's events never come is not stuck; and the flush
  // counts a pod's time from its last flush as well as its last attempt, so
  // a pod it moved that went straight back waits the full
  // podMaxInUnschedulablePodsDuration again.
  bool leftover_flush_of_gated_pods = false;
  // 1.37 NodeNamePreFilterOrder: NodeName, NodeUnschedulable and
  // TaintToleration have PreFilters (NodeName's narrows to spec.nodeName),
  // and the default set runs NodeName before NodeUnschedulable.
  bool node_name_prefilter_order = false;
  // 1.37 PreemptionPlacementMessage: after a successful preemption the
  // FailedScheduling message ends with "preemption: found a potential
  // placement for pod on node X, preempting N victims".
  bool preemption_placement_message = false;
  // 1.37 DynamicResourcesQuietPostFilter: DynamicResources' PostFilter
  // gives no reason when it has nothing to free ("no new claims to
  // deallocate", "still not schedulable" before).
  bool dynamic_resources_quiet_post_filter = false;
  // 1.37 CelCheckedEmptySubstringOffsets: DRA selectors' indexOf and
  // lastIndexOf with an empty substring refuse a negative offset and clamp
  // one past the end (cel-go 0.29; 1.34-1.36 link 0.26).
  bool cel_checked_empty_substring_offsets = false;
  // 1.36 CelIncludes: DRA selectors may call x.includes(y) (declared by
  // DRA's stored-expressions environment whatever DRAListTypeAttributes
  // says); 1.36's refuses lists of more than 48 elements.
  bool cel_includes = false;
  // 1.37 CelUnboundedIncludes: includes() is Kubernetes' lists library's,
  // without 1.36's bound.
  bool cel_unbounded_includes = false;
  // 1.37 CelBoundedListsRange: lists.range(n) fails for n < 0 or n >
  // 1,000,000 (cel-go 0.29; before, n < 0 gave an empty list).
  bool cel_bounded_lists_range = false;
  // 1.37 CelDynAttributes: attribute values are typed dyn, not any
  // (mixed list literals like [attr, 1] no longer compile).
  bool cel_dyn_attributes = false;
  // 1.37 CelQuantityDeepCopy: quantity add()/sub() leave a receiver in
  // decimal form unchanged (they changed it through a shared decimal).
  bool cel_quantity_deep_copy = false;
  // 1.37 CelNoDurationOfInt: duration(int), declared before (cel-go 0.26)
  // and always a run-time error, no longer compiles (cel-go 0.29).
  bool cel_no_duration_of_int = false;
  // 1.36 CelStrictUrlPorts: url() and isURL() read an http(s) host's port
  // from its first colon, as Go 1.26's net/url does (1.34 and 1.35 are
  // built with Go 1.25, which read it from the last: "http://a:8080:90/"
  // was a URL).
  bool cel_strict_url_ports = false;
  // 1.35 CelLabelKeyMessages: the CEL format library's qualifiedName and
  // labelValue messages come from apimachinery's content package ("a valid
  // label key ...", lengths in "bytes"); 1.34's util/validation said "a
  // qualified name ..." and "characters".
  bool cel_label_key_messages = false;
  // 1.37 CelLeadingDotSkipsLocals: a leading-dot name (`.x`) that a
  // comprehension or cel.bind variable shadows names the root scope (the
  // device) in cel-go 0.29; cel-go 0.26 found the variable.
  bool cel_leading_dot_skips_locals = false;
  // 1.37 CelBacktickIdentifiers: a DRA selector may select a field by a
  // backtick-quoted name (`m.`a-b``) and name a message field so; cel-go
  // 0.26 refused it ("unsupported syntax").
  bool cel_backtick_identifiers = false;
  // 1.37 CelOptionalOrChecksReceiver: `x.or(y)` and `x.orValue(y)` of a
  // receiver that is not an optional (dyn or null) fail; cel-go 0.26
  // returned the receiver.
  bool cel_optional_or_checks_receiver = false;
  // 1.37 CelWrapperBoolResults: a DRA selector may evaluate to
  // wrapper(bool) (google.protobuf.BoolValue{value: b}); 1.35 and 1.36
  // refused it ("must evaluate to bool").
  bool cel_wrapper_bool_results = false;
  // 1.35 DynamicResourcesScore: DynamicResources scores nodes by the
  // firstAvailable subrequests their allocations take (earlier is better)
  // and the default set gives it weight 2.
  bool dynamic_resources_score = false;
  // 1.35 DraSkipUnusablePools: the DRA allocator counts a pool over all its
  // slices, takes no device from an incomplete or invalid pool, and fails a
  // node with "invalid resource pools were encountered" when it found no
  // allocation and met an invalid pool (1.34 took devices from incomplete
  // pools and failed the attempt on an invalid one).
  bool dra_skip_unusable_pools = false;
  // 1.36 PreemptedWaitingPodBackoff: preemption stops a victim waiting at
  // Permit with an Error (the victim goes to backoff, not unschedulable),
  // notes " (in kube-scheduler memory)." in its Preempted event, and
  // evicts it through the API when its Permit outcome was already decided.
  bool preempted_waiting_pod_backoff = false;
  // 1.36 VolumeLimitsPortworxMigrated: NodeVolumeLimits counts in-tree
  // Portworx volumes as pxd.portworx.com's on every node with a CSINode,
  // whatever its migrated-plugins annotation says (1.34 and 1.35 asked the
  // annotation, behind the CSIMigrationPortworx gate).
  bool volume_limits_portworx_migrated = false;
  // 1.36 DraAllSubrequestFixes: the DRA allocator selects an All
  // subrequest's devices under its own key and goes on with that
  // subrequest after its first device (1.34 and 1.35 used the previous
  // subrequest's key and the request's first subrequest).
  bool dra_all_subrequest_fixes = false;
  // 1.37 DraCounterSlicesByNodeSelection: with partitionable devices, a
  // slice of shared counters reaches the nodes its node selection names
  // (its pool is gathered whole when a node's devices need it); 1.35 and
  // 1.36 let it reach every node.
  bool dra_counter_slices_by_node_selection = false;
  // 1.37 DraConsumableCapacityFixes: with consumable capacity, an All request
  // picks its devices by their whole capacity (a device whose capacity is
  // taken then fails the request; 1.36 left such devices out), and a
  // capacity request past int64 or a negative consumption is an error
  // (1.36 skipped the device); a distinctAttribute constraint compares
  // every device's value (1.36 kept one value per request, the last
  // device's, so one request's devices could repeat a value).
  bool dra_consumable_capacity_fixes = false;
  // 1.36 DraIncubatingKnowsCapacity: the allocator kube 1.36 picks knows
  // consumable capacity with its gate off too: a request with capacity
  // requests is then an error and distinctAttribute constraints apply
  // (1.35's ignores capacity requests and fails on distinctAttribute).
  bool dra_incubating_knows_capacity = false;

  // Hands the switches that process-wide code reads, as kube's helpers read
  // its process-wide gates, to it: pkg/api's pod resource accounting and
  // pkg/config's args defaulting and validation. Call once at start-up,
  // before any configuration is loaded or pod decoded.
  void ApplyProcessWideSwitches() const;

  // The apiVersion the minor's kube-apiserver serves DeviceTaintRules at
  // (resource.k8s.io/v1alpha3 in 1.35, v1beta2 in 1.36, v1 from 1.37).
  std::string DeviceTaintRuleApiVersion() const;

  // kube's defaults at `minor` (clamped into [kOldestKubeMinor,
  // kNewestKubeMinor]) with every ungated change of that minor on.
  static FeatureGates ForMinor(int minor);

  // Applies "Name=bool,Name=bool" (kube's --feature-gates, "kube:" prefixes
  // removed) against kube's gate list at `minor`: an unknown name, a bad
  // value or a locked gate set against its lock is InvalidArgument with
  // kube's text, and leaves *this unchanged. AllAlpha/AllBeta set every
  // unlocked gate of that stage that the list names explicitly. Setting a
  // GA or deprecated gate adds kube's warning to `warnings`; a kube gate
  // that ksched does not model is accepted with a warning saying so.
  // Empty input is OK.
  util::Status Set(std::string_view spec, std::vector<std::string>* warnings = nullptr);

  // One line per switch, for the start-up log and /configz-style dumps:
  // "Name=true" in table order.
  std::vector<std::string> Describe() const;

  bool operator==(const FeatureGates&) const = default;
};

// A row of kube's gate list at one minor (kube_feature_gates.inc).
struct KubeGate {
  enum Stage { kAlpha, kBeta, kGA, kDeprecated };
  int minor;
  std::string_view name;
  bool default_on;
  Stage stage;
  bool locked;
};

// The row for `name` at `minor`, or null when the kube-scheduler of that
// minor has no such gate. O(log n).
const KubeGate* FindKubeGate(int minor, std::string_view name);

}  // namespace ksched::scheduler::framework
