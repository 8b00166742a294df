#include "pkg/config/decode.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/plugins/config_test_util.h"
#include "pkg/config/errors_test_util.h"

namespace ksched::config {
namespace {

using std::chrono::seconds;

constexpr char kFullV1[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 8
leaderElection:
  leaderElect: false
  leaseDuration: 30s
  renewDeadline: 20s
  retryPeriod: 1m30s
  resourceLock: leases
  resourceName: ksched
  resourceNamespace: ksched-system
clientConnection:
  kubeconfig: /etc/ksched/kubeconfig
  acceptContentTypes: application/json
  contentType: application/json
  qps: 12.5
  burst: 25
enableProfiling: false
enableContentionProfiling: true
percentageOfNodesToScore: 40
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
delayCacheUntilActive: true
profiles:
- schedulerName: ksched
  percentageOfNodesToScore: 30
  plugins:
    preEnqueue: {enabled: [{name: SchedulingGates}]}
    queueSort: {enabled: [{name: PrioritySort}]}
    preFilter: {disabled: [{name: NodePorts}]}
    filter: {enabled: [{name: NodeName}]}
    postFilter: {disabled: [{name: "*"}]}
    preScore: {enabled: [{name: InterPodAffinity}]}
    score:
      enabled:
      - name: ImageLocality
        weight: 4
      disabled:
      - name: NodeResourcesBalancedAllocation
    reserve: {enabled: [{name: VolumeBinding}]}
    permit: {disabled: [{name: "*"}]}
    preBind: {enabled: [{name: VolumeBinding}]}
    bind: {enabled: [{name: DefaultBinder}]}
    postBind: {disabled: [{name: "*"}]}
    multiPoint:
      enabled:
      - name: TaintToleration
        weight: 7
  pluginConfig:
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: 20
      minCandidateNodesAbsolute: 50
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 5
      ignorePreferredTermsOfExistingPods: true
  - name: NodeResourcesFit
    args:
      ignoredResources: [example.com/foo]
      ignoredResourceGroups: [example.org]
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources:
        - name: cpu
          weight: 2
        requestedToCapacityRatio:
          shape:
          - utilization: 0
            score: 0
          - utilization: 100
            score: 10
  - name: NodeResourcesBalancedAllocation
    args:
      resources:
      - name: cpu
        weight: 1
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 2
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: ScheduleAnyway
        minDomains: 3
        nodeAffinityPolicy: Honor
        nodeTaintsPolicy: Ignore
        matchLabelKeys: [app]
        labelSelector:
          matchLabels: {app: web}
          matchExpressions:
          - {key: tier, operator: In, values: [a, b]}
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: pool
              operator: In
              values: [general]
            matchFields:
            - key: metadata.name
              operator: NotIn
              values: [bad-node]
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 10
          preference:
            matchExpressions:
            - {key: disk, operator: Exists}
  - name: VolumeBinding
    args:
      bindTimeoutSeconds: 30
)";

TEST(DecodeTest, DecodesEveryV1Field) {
  DecodeResult r = DecodeConfig(kFullV1, "full.yaml");
  ASSERT_TRUE(r.ok()) << testing::PrintToString(Messages(r.errors));
  const KubeSchedulerConfiguration& c = r.config;
  EXPECT_EQ(c.api_version, kApiVersionV1);
  EXPECT_EQ(c.parallelism, 8);
  EXPECT_EQ(c.leader_election.leader_elect, false);
  EXPECT_EQ(c.leader_election.lease_duration, seconds(30));
  EXPECT_EQ(c.leader_election.renew_deadline, seconds(20));
  EXPECT_EQ(c.leader_election.retry_period, seconds(90));
  EXPECT_EQ(c.leader_election.resource_lock, "leases");
  EXPECT_EQ(c.leader_election.resource_name, "ksched");
  EXPECT_EQ(c.leader_election.resource_namespace, "ksched-system");
  EXPECT_EQ(c.client_connection.kubeconfig, "/etc/ksched/kubeconfig");
  EXPECT_EQ(c.client_connection.accept_content_types, "application/json");
  EXPECT_EQ(c.client_connection.content_type, "application/json");
  EXPECT_FLOAT_EQ(c.client_connection.qps, 12.5f);
  EXPECT_EQ(c.client_connection.burst, 25);
  EXPECT_EQ(c.enable_profiling, false);
  EXPECT_EQ(c.enable_contention_profiling, true);
  EXPECT_EQ(c.percentage_of_nodes_to_score, 40);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 2);
  EXPECT_EQ(c.pod_max_backoff_seconds, 20);
  EXPECT_TRUE(c.delay_cache_until_active);
  ASSERT_EQ(c.profiles.size(), 1u);
  const KubeSchedulerProfile& p = c.profiles[0];
  EXPECT_EQ(p.scheduler_name, "ksched");
  EXPECT_EQ(p.percentage_of_nodes_to_score, 30);
  EXPECT_EQ(p.plugins.pre_enqueue.enabled[0].name, "SchedulingGates");
  EXPECT_EQ(p.plugins.queue_sort.enabled[0].name, "PrioritySort");
  EXPECT_EQ(p.plugins.pre_filter.disabled[0].name, "NodePorts");
  EXPECT_EQ(p.plugins.filter.enabled[0].name, "NodeName");
  EXPECT_EQ(p.plugins.post_filter.disabled[0].name, "*");
  EXPECT_EQ(p.plugins.pre_score.enabled[0].name, "InterPodAffinity");
  ASSERT_EQ(p.plugins.score.enabled.size(), 1u);
  EXPECT_EQ(p.plugins.score.enabled[0].name, "ImageLocality");
  EXPECT_EQ(p.plugins.score.enabled[0].weight, 4);
  EXPECT_EQ(p.plugins.score.enabled[0].origin, "profiles[0].plugins.score.enabled[0]");
  EXPECT_EQ(p.plugins.score.disabled[0].name, "NodeResourcesBalancedAllocation");
  EXPECT_EQ(p.plugins.reserve.enabled[0].name, "VolumeBinding");
  EXPECT_EQ(p.plugins.permit.disabled[0].name, "*");
  EXPECT_EQ(p.plugins.pre_bind.enabled[0].name, "VolumeBinding");
  EXPECT_EQ(p.plugins.bind.enabled[0].name, "DefaultBinder");
  EXPECT_EQ(p.plugins.post_bind.disabled[0].name, "*");
  EXPECT_EQ(p.plugins.multi_point.enabled[0].name, "TaintToleration");
  EXPECT_EQ(p.plugins.multi_point.enabled[0].weight, 7);
  ASSERT_EQ(p.plugin_config.size(), 7u);

  const auto* dp = GetPluginArgs<DefaultPreemptionArgs>(p, "DefaultPreemption");
  ASSERT_NE(dp, nullptr);
  EXPECT_EQ(dp->min_candidate_nodes_percentage, 20);
  EXPECT_EQ(dp->min_candidate_nodes_absolute, 50);
  const auto* ipa = GetPluginArgs<InterPodAffinityArgs>(p, "InterPodAffinity");
  ASSERT_NE(ipa, nullptr);
  EXPECT_EQ(ipa->hard_pod_affinity_weight, 5);
  EXPECT_TRUE(ipa->ignore_preferred_terms_of_existing_pods);
  const auto* fit = GetPluginArgs<NodeResourcesFitArgs>(p, "NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->ignored_resources, std::vector<std::string>{"example.com/foo"});
  EXPECT_EQ(fit->ignored_resource_groups, std::vector<std::string>{"example.org"});
  ASSERT_TRUE(fit->scoring_strategy);
  EXPECT_EQ(fit->scoring_strategy->type, kRequestedToCapacityRatio);
  ASSERT_EQ(fit->scoring_strategy->resources.size(), 1u);
  EXPECT_EQ(fit->scoring_strategy->resources[0].name, "cpu");
  EXPECT_EQ(fit->scoring_strategy->resources[0].weight, 2);
  ASSERT_TRUE(fit->scoring_strategy->requested_to_capacity_ratio);
  ASSERT_EQ(fit->scoring_strategy->requested_to_capacity_ratio->shape.size(), 2u);
  EXPECT_EQ(fit->scoring_strategy->requested_to_capacity_ratio->shape[1].utilization, 100);
  EXPECT_EQ(fit->scoring_strategy->requested_to_capacity_ratio->shape[1].score, 10);
  const auto* ba = GetPluginArgs<NodeResourcesBalancedAllocationArgs>(p, "NodeResourcesBalancedAllocation");
  ASSERT_NE(ba, nullptr);
  ASSERT_EQ(ba->resources.size(), 1u);
  EXPECT_EQ(ba->resources[0].name, "cpu");
  const auto* pts = GetPluginArgs<PodTopologySpreadArgs>(p, "PodTopologySpread");
  ASSERT_NE(pts, nullptr);
  EXPECT_EQ(pts->defaulting_type, kListDefaulting);
  ASSERT_EQ(pts->default_constraints.size(), 1u);
  const api::TopologySpreadConstraint& tsc = pts->default_constraints[0];
  EXPECT_EQ(tsc.max_skew, 2);
  EXPECT_EQ(tsc.topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(tsc.when_unsatisfiable, "ScheduleAnyway");
  EXPECT_EQ(tsc.min_domains, 3);
  EXPECT_EQ(tsc.node_affinity_policy, "Honor");
  EXPECT_EQ(tsc.node_taints_policy, "Ignore");
  EXPECT_EQ(tsc.match_label_keys, std::vector<std::string>{"app"});
  ASSERT_TRUE(tsc.label_selector);
  EXPECT_EQ(tsc.label_selector->match_labels.at("app"), "web");
  ASSERT_EQ(tsc.label_selector->match_expressions.size(), 1u);
  EXPECT_EQ(tsc.label_selector->match_expressions[0].operator_, "In");
  EXPECT_EQ(tsc.label_selector->match_expressions[0].values, (std::vector<std::string>{"a", "b"}));
  const auto* na = GetPluginArgs<NodeAffinityArgs>(p, "NodeAffinity");
  ASSERT_NE(na, nullptr);
  ASSERT_TRUE(na->added_affinity);
  const auto& req = na->added_affinity->required_during_scheduling_ignored_during_execution;
  ASSERT_TRUE(req);
  ASSERT_EQ(req->node_selector_terms.size(), 1u);
  EXPECT_EQ(req->node_selector_terms[0].match_expressions[0].key, "pool");
  EXPECT_EQ(req->node_selector_terms[0].match_fields[0].operator_, "NotIn");
  ASSERT_EQ(na->added_affinity->preferred_during_scheduling_ignored_during_execution.size(), 1u);
  EXPECT_EQ(na->added_affinity->preferred_during_scheduling_ignored_during_execution[0].weight, 10);
  EXPECT_EQ(
      na->added_affinity->preferred_during_scheduling_ignored_during_execution[0].preference.match_expressions[0].key,
      "disk");
  const auto* vb = GetPluginArgs<VolumeBindingArgs>(p, "VolumeBinding");
  ASSERT_NE(vb, nullptr);
  EXPECT_EQ(vb->bind_timeout_seconds, 30);
  EXPECT_FALSE(vb->shape);

  // Positions of values are kept for validation.
  EXPECT_EQ(r.source.Lookup("parallelism").line, 3);
  EXPECT_EQ(r.source.Lookup("parallelism").column, 14);
  EXPECT_EQ(r.source.Lookup("profiles[0].plugins.score.enabled[0].weight").line, 37);
  EXPECT_EQ(r.source.Lookup("profiles[0].plugins.score.enabled[0].weight").column, 17);
}

TEST(DecodeTest, JsonIsYaml) {
  DecodeResult r = DecodeConfig(
      R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
          "parallelism": 4, "leaderElection": {"leaderElect": false, "leaseDuration": "20s"},
          "profiles": [{"schedulerName": "a",
                        "plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 2}]}}}]})",
      "c.json");
  ASSERT_TRUE(r.ok()) << testing::PrintToString(Messages(r.errors));
  EXPECT_EQ(r.config.parallelism, 4);
  EXPECT_EQ(r.config.leader_election.lease_duration, seconds(20));
  EXPECT_EQ(r.config.profiles[0].plugins.score.enabled[0].weight, 2);

  DecodeResult bad = DecodeConfig(
      R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "parallelism": "4"})",
      "c.json");
  EXPECT_EQ(Messages(bad.errors),
            std::vector<std::string>{"c.json:1:103: parallelism: expected an integer, got \"4\""});
}

TEST(DecodeTest, TypeErrorNamesFileLineColumnAndPath) {
  DecodeResult r = DecodeConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: ksched
  plugins:
    score:
      enabled:
      - name: ImageLocality
        weight: 2
      - name: NodeAffinity
        weight:
          high
)",
                                "scheduler.yaml");
  EXPECT_EQ(
      Messages(r.errors),
      std::vector<std::string>{
          "scheduler.yaml:12:11: profiles[0].plugins.score.enabled[1].weight: expected an integer, got \"high\""});
  DecodeResult r2 = DecodeConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: ksched
  plugins:
    score:
      enabled:
      - name: ImageLocality
        weight: 2
      - name: NodeAffinity
        weight: 1
      - weight: high
)",
                                 "scheduler.yaml");
  EXPECT_EQ(
      Messages(r2.errors),
      std::vector<std::string>{
          "scheduler.yaml:12:17: profiles[0].plugins.score.enabled[2].weight: expected an integer, got \"high\""});
}

// Text that is not UTF-8 is a decode error at its position, as go-yaml's is,
// before anything quotes it into JSON. (yaml-cpp itself refuses escapes of
// surrogates.)
TEST(DecodeTest, RejectsTextThatIsNotUtf8) {
  const std::string head = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      // {text after the head, position of the error}
      {"profiles:\n- schedulerName: \"k\xffs\"\n", "4:18"},
      {"profiles:\n- schedulerName: k\xe2\x82\n", "4:18"},
      {"profiles:\n- \"sch\xc0\xaf" "edulerName\": ksched\n", "4:3"},
  };
  for (const auto& [bad, pos] : cases) {
    SCOPED_TRACE(bad);
    DecodeResult r = DecodeConfig(head + bad, "scheduler.yaml");
    EXPECT_EQ(Messages(r.errors), std::vector<std::string>{"scheduler.yaml:" + pos +
                                                           ": YAML syntax error: invalid UTF-8 in a key or value"});
    std::vector<DecodeResult> docs = DecodeConfigDocuments(head + bad, "scheduler.yaml");
    ASSERT_EQ(docs.size(), 1u);
    EXPECT_EQ(Messages(docs[0].errors), Messages(r.errors));
  }
  EXPECT_TRUE(DecodeConfig(head + "profiles:\n- schedulerName: \"k\u00e9\"\n", "s.yaml").ok());
}

// A stream yaml-cpp 0.7 would parse forever is a syntax error.
TEST(DecodeTest, AStrayTokenAfterAScalarIsASyntaxError) {
  DecodeResult r = DecodeConfig("\"apiVersion\",\n", "scheduler.yaml");
  EXPECT_EQ(Messages(r.errors),
            std::vector<std::string>{"scheduler.yaml:1:13: YAML syntax error: did not find expected <document start>"});
  std::vector<DecodeResult> docs = DecodeConfigDocuments("\"apiVersion\",\n", "scheduler.yaml");
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(Messages(docs[0].errors), Messages(r.errors));
}

TEST(DecodeTest, ReportsEveryErrorAtOnce) {
  DecodeResult r = DecodeConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: many
Parallelism: 3
leaderElection:
  leaseDuration: 15
  renewDeadline: 10x
  leaderElect: maybe
clientConnection:
  qps: fast
  kubeConfig: /x
profiles:
- schedulerName: [a]
  plugin: {}
  plugins:
    scores: {}
    score:
      enabled:
      - name: ImageLocality
        wieght: 2
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resource: []
  - name: PodTopologySpread
    args:
      defaultConstraints:
      - maxSkew: 1
        topologyKey: zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector:
          matchLabel: {}
profiles: []
)",
                                "s.yaml");
  EXPECT_EQ(Messages(r.errors),
            (std::vector<std::string>{
                "s.yaml:35:1: profiles: duplicate field \"profiles\" (first set at line 12)",
                "s.yaml:3:14: parallelism: expected an integer, got \"many\"",
                "s.yaml:8:16: leaderElection.leaderElect: expected a boolean, got \"maybe\"",
                "s.yaml:6:18: leaderElection.leaseDuration: expected a duration string such as \"15s\", got 15",
                "s.yaml:7:18: leaderElection.renewDeadline: time: unknown unit \"x\" in duration \"10x\"",
                "s.yaml:10:8: clientConnection.qps: expected a number, got \"fast\"",
                "s.yaml:11:3: clientConnection.kubeConfig: strict decoding error: unknown field \"kubeConfig\" "
                "(did you mean \"kubeconfig\"?)",
                "s.yaml:13:18: profiles[0].schedulerName: expected a string, got a list",
                "s.yaml:20:9: profiles[0].plugins.score.enabled[0].wieght: strict decoding error: unknown field "
                "\"wieght\" (did you mean \"weight\"?)",
                "s.yaml:16:5: profiles[0].plugins.scores: strict decoding error: unknown field \"scores\" (did you "
                "mean \"score\"?)",
                "s.yaml:26:9: profiles[0].pluginConfig[0].args.scoringStrategy.resource: strict decoding error: "
                "unknown field \"resource\" (did you mean \"resources\"?)",
                "s.yaml:34:11: profiles[0].pluginConfig[1].args.defaultConstraints[0].labelSelector.matchLabel: "
                "strict decoding error: unknown field \"matchLabel\" (did you mean \"matchLabels\"?)",
                "s.yaml:14:3: profiles[0].plugin: strict decoding error: unknown field \"plugin\" (did you mean "
                "\"plugins\"?)",
                "s.yaml:4:1: Parallelism: strict decoding error: unknown field \"Parallelism\" (did you mean "
                "\"parallelism\"?)",
            }));
}

TEST(DecodeTest, RejectsOtherKindsAndVersions) {
  struct Case {
    const char* text;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"apiVersion: v1\nkind: ConfigMap\ndata: {}\n",
       {"c.yaml:2:7: kind: Unsupported value: \"ConfigMap\": not a KubeSchedulerConfiguration (to load a "
        "configuration stored in a ConfigMap, pass the data item's content): supported values: "
        "\"KubeSchedulerConfiguration\"",
        "c.yaml:1:13: apiVersion: Unsupported value: \"v1\": unsupported KubeSchedulerConfiguration version: "
        "supported values: \"kubescheduler.config.k8s.io/v1\", \"kubescheduler.config.k8s.io/v1beta3\""}},
      {"apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n",
       {"c.yaml:1:13: apiVersion: Unsupported value: \"kubescheduler.config.k8s.io/v1beta1\": this "
        "KubeSchedulerConfiguration version is no longer supported: supported values: "
        "\"kubescheduler.config.k8s.io/v1\", \"kubescheduler.config.k8s.io/v1beta3\""}},
      {"apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\nfoo: 1\n",
       {"c.yaml:1:13: apiVersion: Unsupported value: \"kubescheduler.config.k8s.io/v1beta2\": this "
        "KubeSchedulerConfiguration version is no longer supported: supported values: "
        "\"kubescheduler.config.k8s.io/v1\", \"kubescheduler.config.k8s.io/v1beta3\""}},
      {"kind: KubeSchedulerConfiguration\n",
       {"c.yaml:1:1: apiVersion: Required value: must be \"kubescheduler.config.k8s.io/v1\""}},
      {"apiVersion: kubescheduler.config.k8s.io/v1\n",
       {"c.yaml:1:1: kind: Required value: must be \"KubeSchedulerConfiguration\""}},
      {"- a\n- b\n", {"c.yaml:1:1: expected a KubeSchedulerConfiguration mapping, got a list"}},
      {"", {"c.yaml: no KubeSchedulerConfiguration: the file is empty"}},
      {"---\n# only a comment\n---\n", {"c.yaml: no KubeSchedulerConfiguration: the file is empty"}},
      {"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n---\n"
       "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
       {"c.yaml:4:1: the file holds 2 YAML documents; a scheduler configuration file must hold exactly one "
        "KubeSchedulerConfiguration"}},
      {"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [\n",
       {"c.yaml:4:1: YAML syntax error: end of sequence flow not found"}},
  };
  for (const Case& c : cases) {
    DecodeResult r = DecodeConfig(c.text, "c.yaml");
    EXPECT_EQ(Messages(r.errors), c.want) << c.text;
  }
}

TEST(DecodeTest, V1beta3ConvertsAndKeepsItsSchema) {
  DecodeResult r = DecodeConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: old
  plugins:
    preEnqueue:
      enabled:
      - name: SchedulingGates
    score:
      enabled:
      - name: ImageLocality
        weight: 3
  pluginConfig:
  - name: InterPodAffinity
    args:
      apiVersion: kubescheduler.config.k8s.io/v1beta3
      kind: InterPodAffinityArgs
      hardPodAffinityWeight: 4
)",
                                "b3.yaml");
  ASSERT_TRUE(r.ok()) << testing::PrintToString(Messages(r.errors));
  EXPECT_EQ(r.config.api_version, kApiVersionV1beta3);
  EXPECT_EQ(r.config.profiles[0].plugins.score.enabled[0].weight, 3);
  EXPECT_EQ(GetPluginArgs<InterPodAffinityArgs>(r.config.profiles[0], "InterPodAffinity")->hard_pod_affinity_weight, 4);

  // Fields that only v1 has are unknown in v1beta3.
  DecodeResult v1_only = DecodeConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
delayCacheUntilActive: true
profiles:
- schedulerName: old
  percentageOfNodesToScore: 10
  pluginConfig:
  - name: InterPodAffinity
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
)",
                                      "b3.yaml");
  EXPECT_EQ(Messages(v1_only.errors),
            (std::vector<std::string>{
                "b3.yaml:10:19: profiles[0].pluginConfig[0].args.apiVersion: Invalid value: "
                "\"kubescheduler.config.k8s.io/v1\": args for plugin InterPodAffinity must have apiVersion "
                "\"kubescheduler.config.k8s.io/v1beta3\"",
                "b3.yaml:6:3: profiles[0].percentageOfNodesToScore: strict decoding error: unknown field "
                "\"percentageOfNodesToScore\"",
                "b3.yaml:3:1: delayCacheUntilActive: strict decoding error: unknown field \"delayCacheUntilActive\"",
            }));
}

TEST(DecodeTest, ArgsTypeMetaMustMatchThePlugin) {
  DecodeResult r = DecodeConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeResourcesFitArgs
  - name: VolumeBinding
    args:
      kind: NodeResourcesFitArgs
)",
                                "a.yaml");
  EXPECT_EQ(Messages(r.errors),
            std::vector<std::string>{
                "a.yaml:11:13: profiles[0].pluginConfig[1].args.kind: Invalid value: \"NodeResourcesFitArgs\": args "
                "for plugin VolumeBinding were not of type kubescheduler.config.k8s.io/VolumeBindingArgs, got "
                "kubescheduler.config.k8s.io/NodeResourcesFitArgs"});
}

TEST(DecodeTest, UntypedArgsAreKeptAndNullsAreAbsent) {
  DecodeResult r = DecodeConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: null
leaderElection:
profiles:
- schedulerName: ~
  pluginConfig:
  - name: CapacityScheduling
    args:
      permitWaitingTimeSeconds: 10
  - name: PrioritySort
    args: {}
  - name: NodeResourcesFit
  - name: ImageLocality
    args: 5
  - name: VolumeBinding
    args:
      shape: []
)",
                                "u.yaml");
  EXPECT_EQ(Messages(r.errors),
            std::vector<std::string>{"u.yaml:15:11: profiles[0].pluginConfig[3].args: expected a mapping, got 5"});
  const KubeSchedulerConfiguration& c = r.config;
  EXPECT_FALSE(c.parallelism);
  EXPECT_FALSE(c.profiles[0].scheduler_name);
  const auto& pcs = c.profiles[0].plugin_config;
  ASSERT_EQ(pcs.size(), 5u);
  ASSERT_TRUE(pcs[0].args.Holds<UntypedArgs>());
  EXPECT_EQ(pcs[0].args.Get<UntypedArgs>()->raw.dump(), R"({"permitWaitingTimeSeconds":10})");
  EXPECT_TRUE(pcs[1].args.empty());
  // A typed plugin without args gets empty typed args (defaulting fills them).
  EXPECT_TRUE(pcs[2].args.Holds<NodeResourcesFitArgs>());
  ASSERT_TRUE(pcs[4].args.Holds<VolumeBindingArgs>());
  ASSERT_TRUE(pcs[4].args.Get<VolumeBindingArgs>()->shape);
  EXPECT_TRUE(pcs[4].args.Get<VolumeBindingArgs>()->shape->empty());
}

TEST(DecodeTest, DocumentsDecodeOneByOne) {
  std::vector<DecodeResult> docs = DecodeConfigDocuments(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nparallelism: 2\n---\n"
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nparallelism: x\n---\n",
      "m.yaml");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_TRUE(docs[0].ok());
  EXPECT_EQ(docs[0].config.parallelism, 2);
  EXPECT_EQ(Messages(docs[1].errors),
            std::vector<std::string>{"m.yaml:7:14: parallelism: expected an integer, got \"x\""});
  std::vector<DecodeResult> broken = DecodeConfigDocuments("a: [", "m.yaml");
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_FALSE(broken[0].ok());
}

}  // namespace
}  // namespace ksched::config
