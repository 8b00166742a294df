#include "pkg/scheduler/framework/feature_gates.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>

#include "pkg/api/resource_helpers.h"
#include "pkg/config/config_gates.h"

namespace ksched::scheduler::framework {

static_assert(config::ConfigGates{}.schema_minor == kNewestKubeMinor,
              "before the minor is chosen, configuration decodes the newest one's fields");

namespace {

constexpr KubeGate::Stage kAlpha = KubeGate::kAlpha;
constexpr KubeGate::Stage kBeta = KubeGate::kBeta;
constexpr KubeGate::Stage kGA = KubeGate::kGA;
constexpr KubeGate::Stage kDeprecated = KubeGate::kDeprecated;

// Sorted by (minor, name): the generator writes it so.
constexpr KubeGate kKubeGates[] = {
#define KSCHED_KUBE_GATE(minor, name, default_on, stage, locked) {minor, name, default_on, stage, locked},
#include "pkg/scheduler/framework/kube_feature_gates.inc"
#undef KSCHED_KUBE_GATE
};

// Every switch of FeatureGates. A kube gate (since == 0) takes its default
// from kube's list; an ungated change is on from `since`.
struct Switch {
  std::string_view name;
  bool FeatureGates::*field;
  int since;
};

constexpr std::array kSwitches = {
    Switch{"SchedulerQueueingHints", &FeatureGates::scheduler_queueing_hints, 0},
    Switch{"SchedulerPopFromBackoffQ", &FeatureGates::scheduler_pop_from_backoff_q, 0},
    Switch{"SchedulerAsyncPreemption", &FeatureGates::scheduler_async_preemption, 0},
    Switch{"NodeDeclaredFeatures", &FeatureGates::node_declared_features, 0},
    Switch{"StorageCapacityScoring", &FeatureGates::storage_capacity_scoring, 0},
    Switch{"VolumeLimitScaling", &FeatureGates::volume_limit_scaling, 0},
    Switch{"DRADeviceTaints", &FeatureGates::dra_device_taints, 0},
    Switch{"DRADeviceTaintRules", &FeatureGates::dra_device_taint_rules, 0},
    Switch{"DRAPartitionableDevices", &FeatureGates::dra_partitionable_devices, 0},
    Switch{"DRAExtendedResource", &FeatureGates::dra_extended_resource, 0},
    Switch{"DRAConsumableCapacity", &FeatureGates::dra_consumable_capacity, 0},
    Switch{"DRADeviceBindingConditions", &FeatureGates::dra_device_binding_conditions, 0},
    Switch{"DRAResourceClaimDeviceStatus", &FeatureGates::dra_resource_claim_device_status, 0},
    Switch{"NominatedNodeNameForExpectation", &FeatureGates::nominated_node_name_for_expectation, 0},
    Switch{"ClearingNominatedNodeNameAfterBinding", &FeatureGates::clearing_nominated_node_name_after_binding, 0},
    Switch{"OpportunisticBatching", &FeatureGates::opportunistic_batching, 0},
    Switch{"InPlacePodLevelResourcesVerticalScaling", &FeatureGates::in_place_pod_level_resources_vertical_scaling,
           0},
    Switch{"ScoreHeapHostSelection", &FeatureGates::score_heap_host_selection, 35},
    Switch{"DynamicResourcesScore", &FeatureGates::dynamic_resources_score, 35},
    Switch{"DraSkipUnusablePools", &FeatureGates::dra_skip_unusable_pools, 35},
    Switch{"BalancedAllocationHalfDifference", &FeatureGates::balanced_allocation_half_difference, 36},
    Switch{"ImageLocalityImageVolumes", &FeatureGates::image_locality_image_volumes, 36},
    Switch{"DraAllSubrequestFixes", &FeatureGates::dra_all_subrequest_fixes, 36},
    Switch{"DraIncubatingKnowsCapacity", &FeatureGates::dra_incubating_knows_capacity, 36},
    Switch{"VolumeLimitsPortworxMigrated", &FeatureGates::volume_limits_portworx_migrated, 36},
    Switch{"PreemptedWaitingPodBackoff", &FeatureGates::preempted_waiting_pod_backoff, 36},
    Switch{"SkipRequeueOfRecreatedPod", &FeatureGates::skip_requeue_of_recreated_pod, 36},
    Switch{"RejectorsClearedOnFailure", &FeatureGates::rejectors_cleared_on_failure, 36},
    Switch{"ParallelPreBind", &FeatureGates::parallel_pre_bind, 36},
    Switch{"PreemptionCancelsPreBind", &FeatureGates::preemption_cancels_pre_bind, 36},
    Switch{"LeftoverFlushOfGatedPods", &FeatureGates::leftover_flush_of_gated_pods, 37},
    Switch{"NodeNamePreFilterOrder", &FeatureGates::node_name_prefilter_order, 37},
    Switch{"PreemptionPlacementMessage", &FeatureGates::preemption_placement_message, 37},
    Switch{"DynamicResourcesQuietPostFilter", &FeatureGates::dynamic_resources_quiet_post_filter, 37},
    Switch{"CelCheckedEmptySubstringOffsets", &FeatureGates::cel_checked_empty_substring_offsets, 37},
    Switch{"CelIncludes", &FeatureGates::cel_includes, 36},
    Switch{"CelUnboundedIncludes", &FeatureGates::cel_unbounded_includes, 37},
    Switch{"CelBoundedListsRange", &FeatureGates::cel_bounded_lists_range, 37},
    Switch{"CelDynAttributes", &FeatureGates::cel_dyn_attributes, 37},
    Switch{"CelQuantityDeepCopy", &FeatureGates::cel_quantity_deep_copy, 37},
    Switch{"CelNoDurationOfInt", &FeatureGates::cel_no_duration_of_int, 37},
    Switch{"CelStrictUrlPorts", &FeatureGates::cel_strict_url_ports, 36},
    Switch{"CelLabelKeyMessages", &FeatureGates::cel_label_key_messages, 35},
    Switch{"CelLeadingDotSkipsLocals", &FeatureGates::cel_leading_dot_skips_locals, 37},
    Switch{"CelBacktickIdentifiers", &FeatureGates::cel_backtick_identifiers, 37},
    Switch{"CelOptionalOrChecksReceiver", &FeatureGates::cel_optional_or_checks_receiver, 37},
    Switch{"CelWrapperBoolResults", &FeatureGates::cel_wrapper_bool_results, 37},
    Switch{"DraCounterSlicesByNodeSelection", &FeatureGates::dra_counter_slices_by_node_selection, 37},
    Switch{"DraConsumableCapacityFixes", &FeatureGates::dra_consumable_capacity_fixes, 37},
    Switch{"ResizeRequestsPerSource", &FeatureGates::resize_requests_per_source, 37},
    Switch{"BatchRescoresChosenNode", &FeatureGates::batch_rescores_chosen_node, 37},
};

const Switch* FindKubeGateSwitch(std::string_view name) {
  for (const Switch& s : kSwitches) {
    if (s.since == 0 && s.name == name) return &s;
  }
  return nullptr;
}

// A gate's default at a minor whose binary no longer lists it is its last
// listed default (kube removes a gate once its behaviour is the only one);
// at a minor before it was listed, off.
bool KubeDefault(int minor, std::string_view name) {
  for (int m = minor; m >= kOldestKubeMinor; --m) {
    if (const KubeGate* g = FindKubeGate(m, name)) return g->default_on;
  }
  return false;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Go's strconv.ParseBool.
std::optional<bool> ParseGoBool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") return false;
  return std::nullopt;
}

const char* BoolText(bool b) { return b ? "true" : "false"; }

}  // namespace

const KubeGate* FindKubeGate(int minor, std::string_view name) {
  auto less = [](const KubeGate& g, std::pair<int, std::string_view> key) {
    return g.minor != key.first ? g.minor < key.first : g.name < key.second;
  };
  const KubeGate* end = std::end(kKubeGates);
  const KubeGate* it = std::lower_bound(std::begin(kKubeGates), end, std::pair{minor, name}, less);
  return it != end && it->minor == minor && it->name == name ? it : nullptr;
}

FeatureGates FeatureGates::ForMinor(int minor) {
  FeatureGates g;
  g.minor = std::clamp(minor, kOldestKubeMinor, kNewestKubeMinor);
  for (const Switch& s : kSwitches) {
    g.*s.field = s.since == 0 ? KubeDefault(g.minor, s.name) : g.minor >= s.since;
  }
  return g;
}

void FeatureGates::ApplyProcessWideSwitches() const {
  api::PodResourcesOptions options = api::SchedulingPodRequestOptions();
  options.per_source_resize = resize_requests_per_source;
  options.pod_level_status = in_place_pod_level_resources_vertical_scaling;
  api::SetSchedulingPodRequestOptions(options);
  config::SetConfigGates({.storage_capacity_scoring = storage_capacity_scoring,
                          .dra_binding_conditions = DraBindingConditions(),
                          .schema_minor = minor});
}

util::Status FeatureGates::Set(std::string_view spec, std::vector<std::string>* warnings) {
  // Parse all first, as kube's flag does, then apply in name order: the
  // explicit settings win over AllAlpha/AllBeta whatever their order.
  std::map<std::string, bool, std::less<>> wanted;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string_view name = Trim(item.substr(0, eq));
    if (eq == std::string_view::npos) {
      return util::InvalidArgument("missing bool value for " + std::string(name));
    }
    std::string_view value = Trim(item.substr(eq + 1));
    std::optional<bool> on = ParseGoBool(value);
    if (!on) {
      return util::InvalidArgument("invalid value of " + std::string(name) + "=" + std::string(value) +
                                   ", err: strconv.ParseBool: parsing \"" + std::string(value) +
                                   "\": invalid syntax");
    }
    wanted[std::string(name)] = *on;
  }

  FeatureGates next = *this;
  std::vector<std::string> notes;
  std::optional<bool> all_alpha, all_beta;
  for (const auto& [name, on] : wanted) {
    const KubeGate* gate = FindKubeGate(minor, name);
    if (gate == nullptr) return util::InvalidArgument("unrecognized feature gate: " + name);
    if (gate->locked && gate->default_on != on) {
      return util::InvalidArgument("cannot set feature gate " + name + " to " + BoolText(on) +
                                   ", feature is locked to " + BoolText(gate->default_on));
    }
    if (name == "AllAlpha") {
      all_alpha = on;
      continue;
    }
    if (name == "AllBeta") {
      all_beta = on;
      continue;
    }
    if (gate->stage == kDeprecated || gate->stage == kGA) {
      // kube 1.36 turned its printf warning into a structured record.
      const char* stage = gate->stage == kGA ? "GA" : "deprecated";
      notes.push_back(minor >= 36 ? std::string("Warning: setting ") + stage +
                                        " feature gate. It will be removed in a future release. featureGate=\"" +
                                        name + "\" value=" + BoolText(on)
                                  : std::string("Setting ") + stage + " feature gate " + name + "=" + BoolText(on) +
                                        ". It will be removed in a future release.");
    }
    if (const Switch* s = FindKubeGateSwitch(name)) {
      next.*s->field = on;
    } else {
      notes.push_back("--feature-gates " + name + " is ignored: not a gate of the scheduler ksched implements");
    }
  }
  for (const Switch& s : kSwitches) {
    if (s.since != 0 || wanted.contains(s.name)) continue;
    const KubeGate* gate = FindKubeGate(minor, s.name);
    if (gate == nullptr || gate->locked) continue;
    if (gate->stage == kAlpha && all_alpha) next.*s.field = *all_alpha;
    if (gate->stage == kBeta && all_beta) next.*s.field = *all_beta;
  }
  *this = next;
  if (warnings != nullptr) warnings->insert(warnings->end(), notes.begin(), notes.end());
  return util::Status::Ok();
}

std::string FeatureGates::DeviceTaintRuleApiVersion() const {
  if (minor <= 35) return "resource.k8s.io/v1alpha3";
  if (minor == 36) return "resource.k8s.io/v1beta2";
  return "resource.k8s.io/v1";
}

std::vector<std::string> FeatureGates::Describe() const {
  std::vector<std::string> out;
  for (const Switch& s : kSwitches) out.push_back(std::string(s.name) + "=" + BoolText(this->*s.field));
  return out;
}

}  // namespace ksched::scheduler::framework
