#include "pkg/config/encode.h"

#include <gtest/gtest.h>

#include "pkg/config/decode.h"
#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/config/yaml_reader.h"
#include "pkg/scheduler/plugins/config_test_util.h"

namespace ksched::config {
namespace {

constexpr char kDefaultYaml[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 16
leaderElection:
  leaderElect: true
  leaseDuration: 15s
  renewDeadline: 10s
  retryPeriod: 2s
  resourceLock: leases
  resourceName: kube-scheduler
  resourceNamespace: kube-system
clientConnection:
  kubeconfig: ""
  acceptContentTypes: ""
  contentType: application/vnd.kubernetes.protobuf
  qps: 50
  burst: 100
enableProfiling: true
enableContentionProfiling: true
percentageOfNodesToScore: 0
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 10
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        enabled:
          - name: SchedulingGates
          - name: PrioritySort
          - name: NodeUnschedulable
          - name: NodeName
          - name: TaintToleration
            weight: 3
          - name: NodeAffinity
            weight: 2
          - name: NodePorts
          - name: NodeResourcesFit
            weight: 1
          - name: VolumeRestrictions
          - name: NodeVolumeLimits
          - name: VolumeBinding
          - name: VolumeZone
          - name: PodTopologySpread
            weight: 2
          - name: InterPodAffinity
            weight: 2
          - name: DynamicResources
          - name: DefaultPreemption
          - name: NodeResourcesBalancedAllocation
            weight: 1
          - name: ImageLocality
            weight: 1
          - name: DefaultBinder
    pluginConfig:
      - name: DefaultPreemption
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: DefaultPreemptionArgs
          minCandidateNodesPercentage: 10
          minCandidateNodesAbsolute: 100
      - name: DynamicResources
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: DynamicResourcesArgs
          filterTimeout: 10s
      - name: InterPodAffinity
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: InterPodAffinityArgs
          hardPodAffinityWeight: 1
          ignorePreferredTermsOfExistingPods: false
      - name: NodeAffinity
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: NodeAffinityArgs
      - name: NodeResourcesBalancedAllocation
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: NodeResourcesBalancedAllocationArgs
          resources:
            - name: cpu
              weight: 1
            - name: memory
              weight: 1
      - name: NodeResourcesFit
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: NodeResourcesFitArgs
          scoringStrategy:
            type: LeastAllocated
            resources:
              - name: cpu
                weight: 1
              - name: memory
                weight: 1
      - name: PodTopologySpread
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: PodTopologySpreadArgs
          defaultingType: System
      - name: VolumeBinding
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: VolumeBindingArgs
          bindTimeoutSeconds: 600
)";

// A configuration touching every field, including every args type.
constexpr char kRich[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 4
leaderElection:
  leaderElect: true
  leaseDuration: 1m30s
  renewDeadline: 1m
  retryPeriod: 500ms
  resourceName: "123"
  resourceNamespace: "true"
clientConnection:
  kubeconfig: " /path with spaces "
  acceptContentTypes: "application/json, */*"
  qps: 0.1
  burst: 7
enableProfiling: false
percentageOfNodesToScore: 35
podInitialBackoffSeconds: 3
podMaxBackoffSeconds: 30
delayCacheUntilActive: true
profiles:
- schedulerName: "#ksched: a"
  percentageOfNodesToScore: 20
  plugins:
    queueSort: {enabled: [{name: PrioritySort}], disabled: [{name: "*"}]}
    score:
      enabled: [{name: ImageLocality, weight: 5}]
      disabled: [{name: NodeResourcesBalancedAllocation}]
    multiPoint:
      enabled: [{name: NodeAffinity, weight: 4}]
      disabled: [{name: VolumeBinding}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      ignoredResources: [example.com/a]
      ignoredResourceGroups: [example.org]
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 3}, {name: nvidia.com/gpu, weight: 10}]
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        minDomains: 2
        nodeAffinityPolicy: Honor
        nodeTaintsPolicy: Ignore
        matchLabelKeys: [pod-template-hash]
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: pool, operator: In, values: ["yes", "1"]}]
            matchFields: [{key: metadata.name, operator: NotIn, values: [n1]}]
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 3
          preference:
            matchExpressions: [{key: ssd, operator: Exists}]
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 0, ignorePreferredTermsOfExistingPods: true}
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 5}
- schedulerName: second
  plugins:
    queueSort: {enabled: [{name: PrioritySort}], disabled: [{name: "*"}]}
    multiPoint:
      disabled: [{name: "*"}]
      enabled: [{name: PrioritySort}, {name: DefaultBinder}, {name: NodeResourcesFit}]
  pluginConfig:
  - name: VolumeBinding
    args: {bindTimeoutSeconds: 0}
)";

KubeSchedulerConfiguration MustLoad(const std::string& text) {
  LoadResult r = LoadConfig(text, "in.yaml", InTreePlugins());
  EXPECT_TRUE(r.errors.empty()) << JoinErrors(r.errors);
  return r.config.value_or(KubeSchedulerConfiguration{});
}

// Decodes `text`, defaults it and returns its JSON; fails the test on errors.
std::string Reload(const std::string& text) {
  DecodeResult r = DecodeConfig(text, "out.yaml");
  EXPECT_TRUE(r.ok()) << JoinErrors(r.errors) << "\n" << text;
  SetDefaults(&r.config);
  return EncodeJson(r.config);
}

TEST(EncodeTest, DefaultConfigurationAsYaml) { EXPECT_EQ(EncodeYaml(DefaultConfiguration()), kDefaultYaml); }

TEST(EncodeTest, JsonForConfigz) {
  nlohmann::ordered_json j = ToJson(DefaultConfiguration());
  EXPECT_EQ(j["apiVersion"], "kubescheduler.config.k8s.io/v1");
  EXPECT_EQ(j["leaderElection"]["leaseDuration"], "15s");
  EXPECT_EQ(j["clientConnection"]["qps"], 50);
  EXPECT_EQ(j["profiles"][0]["plugins"]["multiPoint"]["enabled"][4],
            (nlohmann::ordered_json{{"name", "TaintToleration"}, {"weight", 3}}));
  EXPECT_EQ(j["profiles"][0]["pluginConfig"][1]["args"]["filterTimeout"], "10s");
  EXPECT_EQ(j["profiles"][0]["pluginConfig"][7]["args"]["bindTimeoutSeconds"], 600);
  EXPECT_EQ(nlohmann::json::parse(EncodeJson(DefaultConfiguration())), nlohmann::json::parse(j.dump()));
}

TEST(EncodeTest, WrittenYamlAndJsonDecodeToTheSameConfiguration) {
  for (const std::string& text : {std::string(kDefaultYaml), std::string(kRich)}) {
    KubeSchedulerConfiguration c = MustLoad(text);
    std::string want = EncodeJson(c);
    std::string yaml = EncodeYaml(c);
    EXPECT_EQ(Reload(yaml), want) << yaml;
    EXPECT_EQ(Reload(EncodeJson(c)), want);
    // And the written file is itself a valid configuration.
    EXPECT_EQ(EncodeJson(MustLoad(yaml)), want);
  }
}

TEST(EncodeTest, RichConfigurationKeepsEveryValue) {
  KubeSchedulerConfiguration c = MustLoad(kRich);
  std::string yaml = EncodeYaml(c);
  // Strings that would read back as something else are quoted; others are not.
  for (const char* line :
       {"  resourceName: \"123\"\n", "  resourceNamespace: \"true\"\n", "  kubeconfig: \" /path with spaces \"\n",
        "  - schedulerName: \"#ksched: a\"\n", "  qps: 0.1\n", "  renewDeadline: 1m0s\n", "  retryPeriod: 500ms\n",
        "delayCacheUntilActive: true\n", "                    - \"yes\"\n", "                    - \"1\"\n",
        "  - schedulerName: second\n"}) {
    EXPECT_NE(yaml.find(line), std::string::npos) << line << "\n" << yaml;
  }
  DecodeResult back = DecodeConfig(yaml, "out.yaml");
  ASSERT_TRUE(back.ok()) << JoinErrors(back.errors);
  EXPECT_FLOAT_EQ(back.config.client_connection.qps, 0.1f);
  EXPECT_EQ(back.config.leader_election.resource_name, "123");
  EXPECT_EQ(back.config.profiles[0].scheduler_name, "#ksched: a");
  const auto* na = GetPluginArgs<NodeAffinityArgs>(back.config.profiles[0], "NodeAffinity");
  ASSERT_NE(na, nullptr);
  EXPECT_EQ(na->added_affinity->required_during_scheduling_ignored_during_execution->node_selector_terms[0]
                .match_expressions[0]
                .values,
            (std::vector<std::string>{"yes", "1"}));
}

TEST(EncodeTest, V1beta3IsWrittenAsV1) {
  KubeSchedulerConfiguration c =
      MustLoad("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\nparallelism: 3\n");
  EXPECT_EQ(c.api_version, kApiVersionV1beta3);
  std::string yaml = EncodeYaml(c);
  EXPECT_EQ(yaml.rfind("apiVersion: kubescheduler.config.k8s.io/v1\n", 0), 0u) << yaml;
  KubeSchedulerConfiguration again = MustLoad(yaml);
  EXPECT_EQ(again.api_version, kApiVersionV1);
  EXPECT_EQ(again.parallelism, 3);
}

TEST(EncodeTest, UntypedArgsAreWrittenAsGiven) {
  KubeSchedulerConfiguration c = DefaultConfiguration();
  c.profiles[0].plugin_config.push_back(PluginConfig{"CapacityScheduling", UntypedArgs{{{"permitWaitingTimeSeconds", 10}}}});
  nlohmann::ordered_json j = ToJson(c);
  EXPECT_EQ(j["profiles"][0]["pluginConfig"][8]["args"]["permitWaitingTimeSeconds"], 10);
  DecodeResult back = DecodeConfig(EncodeYaml(c), "out.yaml");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(EncodeJson(back.config), EncodeJson(c));
}

TEST(JsonToYamlTest, EmptyCollectionsAndScalars) {
  nlohmann::ordered_json j = {{"a", nlohmann::ordered_json::object()},
                              {"b", nlohmann::ordered_json::array()},
                              {"c", nullptr},
                              {"d", false},
                              {"e", -1.5},
                              {"f", "null"},
                              {"g", "- x"},
                              {"h", "multi\nline"}};
  std::string yaml = JsonToYaml(j);
  EXPECT_EQ(NodeToJson(YAML::Load(yaml)).dump(), nlohmann::json::parse(j.dump()).dump()) << yaml;
}

}  // namespace
}  // namespace ksched::config
