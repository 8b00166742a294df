#include "pkg/config/defaults.h"

#include <gtest/gtest.h>

#include "pkg/config/decode.h"
#include "pkg/config/encode.h"
#include "pkg/scheduler/plugins/config_test_util.h"

namespace ksched::config {
namespace {

using std::chrono::seconds;

// "Name" or "Name:weight" for each entry, for compact expectations.
std::vector<std::string> Names(const std::vector<Plugin>& plugins) {
  std::vector<std::string> out;
  for (const Plugin& p : plugins) out.push_back(p.weight ? p.name + ":" + std::to_string(*p.weight) : p.name);
  return out;
}

std::vector<std::string> ConfigNames(const KubeSchedulerProfile& p) {
  std::vector<std::string> out;
  for (const PluginConfig& pc : p.plugin_config) out.push_back(pc.name);
  return out;
}

KubeSchedulerConfiguration DecodeAndDefault(const std::string& body) {
  DecodeResult r =
      DecodeConfig("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + body, "d.yaml");
  EXPECT_TRUE(r.ok()) << JoinErrors(r.errors);
  SetDefaults(&r.config);
  return r.config;
}

Plugin P(std::string name, std::optional<int32_t> weight = std::nullopt) {
  Plugin p;
  p.name = std::move(name);
  p.weight = weight;
  return p;
}

const std::vector<std::string> kDefaultMultiPoint = {
    "SchedulingGates",     "PrioritySort",       "NodeUnschedulable", "NodeName",
    "TaintToleration:3",   "NodeAffinity:2",     "NodePorts",         "NodeResourcesFit:1",
    "VolumeRestrictions",  "NodeVolumeLimits",   "VolumeBinding",     "VolumeZone",
    "PodTopologySpread:2", "InterPodAffinity:2", "DynamicResources",  "DefaultPreemption",
    "NodeResourcesBalancedAllocation:1", "ImageLocality:1", "DefaultBinder",
};

TEST(DefaultsTest, EmptyConfigurationGetsKubeSchedulerDefaults) {
  KubeSchedulerConfiguration c = DefaultConfiguration();
  EXPECT_EQ(c.parallelism, 16);
  EXPECT_EQ(c.percentage_of_nodes_to_score, 0);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 1);
  EXPECT_EQ(c.pod_max_backoff_seconds, 10);
  EXPECT_EQ(c.enable_profiling, true);
  EXPECT_EQ(c.enable_contention_profiling, true);
  EXPECT_FALSE(c.delay_cache_until_active);
  EXPECT_EQ(c.leader_election.leader_elect, true);
  EXPECT_EQ(c.leader_election.lease_duration, seconds(15));
  EXPECT_EQ(c.leader_election.renew_deadline, seconds(10));
  EXPECT_EQ(c.leader_election.retry_period, seconds(2));
  EXPECT_EQ(c.leader_election.resource_lock, "leases");
  EXPECT_EQ(c.leader_election.resource_name, "kube-scheduler");
  EXPECT_EQ(c.leader_election.resource_namespace, "kube-system");
  EXPECT_EQ(c.client_connection.content_type, "application/vnd.kubernetes.protobuf");
  EXPECT_FLOAT_EQ(c.client_connection.qps, 50);
  EXPECT_EQ(c.client_connection.burst, 100);
  EXPECT_EQ(c.client_connection.kubeconfig, "");
  ASSERT_EQ(c.profiles.size(), 1u);
  const KubeSchedulerProfile& p = c.profiles[0];
  EXPECT_EQ(p.scheduler_name, "default-scheduler");
  EXPECT_FALSE(p.percentage_of_nodes_to_score);
  EXPECT_EQ(Names(p.plugins.multi_point.enabled), kDefaultMultiPoint);
  for (ExtensionPoint point : kAllExtensionPoints) {
    if (point == ExtensionPoint::kMultiPoint) continue;
    EXPECT_TRUE(p.plugins.Get(point).enabled.empty()) << ExtensionPointField(point);
    EXPECT_TRUE(p.plugins.Get(point).disabled.empty()) << ExtensionPointField(point);
  }
  // Defaulted args for every enabled plugin with an args type, in name order.
  EXPECT_EQ(ConfigNames(p), (std::vector<std::string>{"DefaultPreemption", "DynamicResources", "InterPodAffinity",
                                                      "NodeAffinity", "NodeResourcesBalancedAllocation",
                                                      "NodeResourcesFit", "PodTopologySpread", "VolumeBinding"}));
}

TEST(DefaultsTest, ArgsDefaults) {
  KubeSchedulerProfile p = DefaultConfiguration().profiles[0];
  const auto* dp = GetPluginArgs<DefaultPreemptionArgs>(p, "DefaultPreemption");
  ASSERT_NE(dp, nullptr);
  EXPECT_EQ(dp->min_candidate_nodes_percentage, 10);
  EXPECT_EQ(dp->min_candidate_nodes_absolute, 100);
  const auto* dr = GetPluginArgs<DynamicResourcesArgs>(p, "DynamicResources");
  ASSERT_NE(dr, nullptr);
  EXPECT_EQ(dr->filter_timeout, seconds(10));
  const auto* ipa = GetPluginArgs<InterPodAffinityArgs>(p, "InterPodAffinity");
  ASSERT_NE(ipa, nullptr);
  EXPECT_EQ(ipa->hard_pod_affinity_weight, 1);
  EXPECT_FALSE(ipa->ignore_preferred_terms_of_existing_pods);
  const auto* na = GetPluginArgs<NodeAffinityArgs>(p, "NodeAffinity");
  ASSERT_NE(na, nullptr);
  EXPECT_FALSE(na->added_affinity);
  const auto* ba = GetPluginArgs<NodeResourcesBalancedAllocationArgs>(p, "NodeResourcesBalancedAllocation");
  ASSERT_NE(ba, nullptr);
  ASSERT_EQ(ba->resources.size(), 2u);
  EXPECT_EQ(ba->resources[0].name, "cpu");
  EXPECT_EQ(ba->resources[0].weight, 1);
  EXPECT_EQ(ba->resources[1].name, "memory");
  EXPECT_EQ(ba->resources[1].weight, 1);
  const auto* fit = GetPluginArgs<NodeResourcesFitArgs>(p, "NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  ASSERT_TRUE(fit->scoring_strategy);
  EXPECT_EQ(fit->scoring_strategy->type, kLeastAllocated);
  ASSERT_EQ(fit->scoring_strategy->resources.size(), 2u);
  EXPECT_EQ(fit->scoring_strategy->resources[0].name, "cpu");
  EXPECT_EQ(fit->scoring_strategy->resources[1].weight, 1);
  EXPECT_FALSE(fit->scoring_strategy->requested_to_capacity_ratio);
  EXPECT_TRUE(fit->ignored_resources.empty());
  const auto* pts = GetPluginArgs<PodTopologySpreadArgs>(p, "PodTopologySpread");
  ASSERT_NE(pts, nullptr);
  EXPECT_EQ(pts->defaulting_type, "System");
  EXPECT_TRUE(pts->default_constraints.empty());
  const auto* vb = GetPluginArgs<VolumeBindingArgs>(p, "VolumeBinding");
  ASSERT_NE(vb, nullptr);
  EXPECT_EQ(vb->bind_timeout_seconds, 600);
  EXPECT_FALSE(vb->shape);
  EXPECT_TRUE(DefaultPluginArgs("PrioritySort").empty());

  std::vector<api::TopologySpreadConstraint> system = SystemDefaultTopologySpreadConstraints();
  ASSERT_EQ(system.size(), 2u);
  EXPECT_EQ(system[0].topology_key, "kubernetes.io/hostname");
  EXPECT_EQ(system[0].max_skew, 3);
  EXPECT_EQ(system[1].topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(system[1].max_skew, 5);
  EXPECT_EQ(system[1].when_unsatisfiable, "ScheduleAnyway");
}

TEST(DefaultsTest, UserArgsAreDefaultedInPlace) {
  KubeSchedulerConfiguration c = DecodeAndDefault(R"(profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
  - name: NodeResourcesBalancedAllocation
    args:
      resources:
      - name: cpu
      - name: nvidia.com/gpu
        weight: 0
  - name: DefaultPreemption
    args:
      minCandidateNodesAbsolute: 0
  - name: VolumeBinding
    args:
      bindTimeoutSeconds: 0
  - name: InterPodAffinity
)");
  const KubeSchedulerProfile& p = c.profiles[0];
  // User entries stay first, in their order; missing ones are appended sorted.
  EXPECT_EQ(ConfigNames(p),
            (std::vector<std::string>{"NodeResourcesFit", "NodeResourcesBalancedAllocation", "DefaultPreemption",
                                      "VolumeBinding", "InterPodAffinity", "DynamicResources", "NodeAffinity",
                                      "PodTopologySpread"}));
  const auto* fit = GetPluginArgs<NodeResourcesFitArgs>(p, "NodeResourcesFit");
  EXPECT_EQ(fit->scoring_strategy->type, kMostAllocated);
  ASSERT_EQ(fit->scoring_strategy->resources.size(), 2u);
  EXPECT_EQ(fit->scoring_strategy->resources[1].name, "memory");
  const auto* ba = GetPluginArgs<NodeResourcesBalancedAllocationArgs>(p, "NodeResourcesBalancedAllocation");
  ASSERT_EQ(ba->resources.size(), 2u);
  EXPECT_EQ(ba->resources[0].weight, 1);
  EXPECT_EQ(ba->resources[1].name, "nvidia.com/gpu");
  EXPECT_EQ(ba->resources[1].weight, 1);
  const auto* dp = GetPluginArgs<DefaultPreemptionArgs>(p, "DefaultPreemption");
  EXPECT_EQ(dp->min_candidate_nodes_percentage, 10);
  EXPECT_EQ(dp->min_candidate_nodes_absolute, 0);  // explicit 0 is kept
  EXPECT_EQ(GetPluginArgs<VolumeBindingArgs>(p, "VolumeBinding")->bind_timeout_seconds, 0);
  EXPECT_EQ(GetPluginArgs<InterPodAffinityArgs>(p, "InterPodAffinity")->hard_pod_affinity_weight, 1);
}

TEST(DefaultsTest, SchedulerNameOnlyForALoneProfile) {
  KubeSchedulerConfiguration one = DecodeAndDefault("profiles:\n- {}\n");
  EXPECT_EQ(one.profiles[0].scheduler_name, "default-scheduler");
  KubeSchedulerConfiguration two = DecodeAndDefault("profiles:\n- {}\n- schedulerName: b\n");
  EXPECT_FALSE(two.profiles[0].scheduler_name);
  EXPECT_EQ(two.profiles[1].scheduler_name, "b");
  KubeSchedulerConfiguration empty_name = DecodeAndDefault("profiles:\n- schedulerName: \"\"\n");
  EXPECT_EQ(empty_name.profiles[0].scheduler_name, "");
  KubeSchedulerConfiguration named = DecodeAndDefault("profiles:\n- schedulerName: ksched\n");
  EXPECT_EQ(named.profiles[0].scheduler_name, "ksched");
}

TEST(DefaultsTest, PartialSectionsKeepWhatIsSet) {
  KubeSchedulerConfiguration c = DecodeAndDefault(R"(enableProfiling: false
leaderElection:
  leaderElect: false
  leaseDuration: 0s
  renewDeadline: 7s
  resourceName: ksched
clientConnection:
  qps: 0
  burst: 5
  contentType: application/json
parallelism: 0
percentageOfNodesToScore: 50
podInitialBackoffSeconds: 0
)");
  EXPECT_EQ(c.enable_profiling, false);
  EXPECT_EQ(c.enable_contention_profiling, false);
  EXPECT_EQ(c.leader_election.leader_elect, false);
  EXPECT_EQ(c.leader_election.lease_duration, seconds(15));
  EXPECT_EQ(c.leader_election.renew_deadline, seconds(7));
  EXPECT_EQ(c.leader_election.retry_period, seconds(2));
  EXPECT_EQ(c.leader_election.resource_name, "ksched");
  EXPECT_EQ(c.leader_election.resource_namespace, "kube-system");
  EXPECT_FLOAT_EQ(c.client_connection.qps, 50);
  EXPECT_EQ(c.client_connection.burst, 5);
  EXPECT_EQ(c.client_connection.content_type, "application/json");
  EXPECT_EQ(c.parallelism, 0);  // explicit: left for validation to reject
  EXPECT_EQ(c.percentage_of_nodes_to_score, 50);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 0);
  EXPECT_EQ(c.pod_max_backoff_seconds, 10);
}

struct MergeCase {
  const char* name;
  PluginSet defaults;
  PluginSet custom;
  std::vector<std::string> want_enabled;
  std::vector<std::string> want_disabled;
};

TEST(MergePluginSetTest, Rules) {
  PluginSet defaults;
  defaults.enabled = {P("A"), P("B", 2), P("C")};
  const MergeCase cases[] = {
      {"no custom: defaults", defaults, {}, {"A", "B:2", "C"}, {}},
      {"disable all", defaults, {{}, {P("*")}}, {}, {"*"}},
      {"disable all then enable", defaults, {{P("C"), P("X")}, {P("*")}}, {"C", "X"}, {"*"}},
      {"disable one", defaults, {{}, {P("B")}}, {"A", "C"}, {"B"}},
      {"replace in place with the user's weight", defaults, {{P("B", 5)}, {}}, {"A", "B:5", "C"}, {}},
      {"replace in place dropping the weight", defaults, {{P("B")}, {}}, {"A", "B", "C"}, {}},
      {"append others in order", defaults, {{P("Y"), P("A", 1), P("X")}, {}}, {"A:1", "B:2", "C", "Y", "X"}, {}},
      {"enabled wins over disabled", defaults, {{P("B", 3)}, {P("B")}}, {"A", "C", "B:3"}, {"B"}},
      {"twice: last replaces, first appended", defaults, {{P("A", 1), P("A", 2)}, {}}, {"A:2", "B:2", "C", "A:1"}, {}},
      {"empty defaults: user list", {}, {{P("X"), P("Y", 3)}, {P("Z")}}, {"X", "Y:3"}, {"Z"}},
      {"defaults' disabled follow the user's", {{P("A")}, {P("Q")}}, {{}, {P("R")}}, {"A"}, {"R", "Q"}},
  };
  for (const MergeCase& c : cases) {
    PluginSet got = MergePluginSet(c.defaults, c.custom);
    EXPECT_EQ(Names(got.enabled), c.want_enabled) << c.name;
    EXPECT_EQ(Names(got.disabled), c.want_disabled) << c.name;
  }
}

TEST(DefaultsTest, ProfilePluginsMergeIntoTheDefaultSet) {
  KubeSchedulerConfiguration c = DecodeAndDefault(R"(profiles:
- schedulerName: a
  plugins:
    multiPoint:
      enabled:
      - name: NodeResourcesFit
        weight: 5
      - name: ImageLocality
        weight: 4
      disabled:
      - name: NodeResourcesBalancedAllocation
      - name: VolumeBinding
    score:
      enabled:
      - name: NodeAffinity
        weight: 9
      disabled:
      - name: TaintToleration
- schedulerName: b
  plugins:
    multiPoint:
      disabled:
      - name: "*"
      enabled:
      - name: PrioritySort
      - name: DefaultBinder
      - name: NodeResourcesFit
)");
  const KubeSchedulerProfile& a = c.profiles[0];
  EXPECT_EQ(Names(a.plugins.multi_point.enabled),
            (std::vector<std::string>{"SchedulingGates", "PrioritySort", "NodeUnschedulable", "NodeName",
                                      "TaintToleration:3", "NodeAffinity:2", "NodePorts", "NodeResourcesFit:5",
                                      "VolumeRestrictions", "NodeVolumeLimits", "VolumeZone", "PodTopologySpread:2",
                                      "InterPodAffinity:2", "DynamicResources", "DefaultPreemption", "ImageLocality:4",
                                      "DefaultBinder"}));
  EXPECT_EQ(Names(a.plugins.multi_point.disabled),
            (std::vector<std::string>{"NodeResourcesBalancedAllocation", "VolumeBinding"}));
  EXPECT_EQ(Names(a.plugins.score.enabled), (std::vector<std::string>{"NodeAffinity:9"}));
  EXPECT_EQ(Names(a.plugins.score.disabled), (std::vector<std::string>{"TaintToleration"}));
  // The user's entry keeps where it was written, so errors can point there.
  EXPECT_EQ(a.plugins.multi_point.enabled[7].origin, "profiles[0].plugins.multiPoint.enabled[0]");
  EXPECT_EQ(a.plugins.multi_point.enabled[0].origin, "");
  // No args for the disabled plugins; the rest get defaults.
  EXPECT_EQ(ConfigNames(a), (std::vector<std::string>{"DefaultPreemption", "DynamicResources", "InterPodAffinity",
                                                      "NodeAffinity", "NodeResourcesFit", "PodTopologySpread"}));

  const KubeSchedulerProfile& b = c.profiles[1];
  EXPECT_EQ(Names(b.plugins.multi_point.enabled),
            (std::vector<std::string>{"PrioritySort", "DefaultBinder", "NodeResourcesFit"}));
  EXPECT_EQ(ConfigNames(b), std::vector<std::string>{"NodeResourcesFit"});
}

TEST(DefaultsTest, ArgsFollowPluginsEnabledAtAnyPoint) {
  KubeSchedulerConfiguration c = DecodeAndDefault(R"(profiles:
- plugins:
    multiPoint:
      disabled:
      - name: "*"
    score:
      enabled:
      - name: NodeResourcesFit
    filter:
      enabled:
      - name: NodeAffinity
)");
  EXPECT_EQ(ConfigNames(c.profiles[0]), (std::vector<std::string>{"NodeAffinity", "NodeResourcesFit"}));
}

TEST(DefaultsTest, IdempotentAndVersionIndependent) {
  KubeSchedulerConfiguration c = DecodeAndDefault(R"(profiles:
- schedulerName: a
  plugins:
    multiPoint:
      enabled:
      - name: NodeResourcesFit
        weight: 5
      disabled:
      - name: ImageLocality
    queueSort:
      enabled:
      - name: PrioritySort
      disabled:
      - name: "*"
)");
  KubeSchedulerConfiguration again = c;
  SetDefaults(&again);
  EXPECT_EQ(EncodeJson(again), EncodeJson(c));

  DecodeResult b3 = DecodeConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: a
  plugins:
    multiPoint:
      enabled:
      - name: NodeResourcesFit
        weight: 5
      disabled:
      - name: ImageLocality
    queueSort:
      enabled:
      - name: PrioritySort
      disabled:
      - name: "*"
)",
                                 "b3.yaml");
  ASSERT_TRUE(b3.ok());
  SetDefaults(&b3.config);
  EXPECT_EQ(b3.config.api_version, kApiVersionV1beta3);
  // Same effective configuration; the encoder writes v1 for both.
  EXPECT_EQ(EncodeJson(b3.config), EncodeJson(c));
}

}  // namespace
}  // namespace ksched::config
