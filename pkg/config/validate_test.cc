#include "pkg/config/validate.h"

#include <gtest/gtest.h>

#include "pkg/config/config_gates.h"
#include "pkg/config/decode.h"
#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/scheduler/plugins/config_test_util.h"
#include "pkg/config/errors_test_util.h"

namespace ksched::config {
namespace {

constexpr char kHeader[] = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

// Errors of `body` (placed after the two header lines, so it starts at line 3).
std::vector<std::string> ErrorsOf(const std::string& body, const KnownPlugins& known = InTreePlugins()) {
  LoadResult r = LoadConfig(kHeader + body, "v.yaml", known);
  return Messages(r.errors);
}

struct Case {
  const char* name;
  const char* body;
  std::vector<std::string> want;
};

void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) EXPECT_EQ(ErrorsOf(c.body), c.want) << c.name;
}

TEST(ValidateTest, TopLevelFields) {
  RunCases({
      {"valid defaults", "", {}},
      {"parallelism",
       "parallelism: 0\n",
       {"v.yaml:3:14: parallelism: Invalid value: 0: should be an integer value greater than zero"}},
      {"percentage",
       "percentageOfNodesToScore: 101\n",
       {"v.yaml:3:27: percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"}},
      {"profile percentage",
       "profiles:\n- percentageOfNodesToScore: -1\n",
       {"v.yaml:4:29: profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"}},
      {"initial backoff",
       "podInitialBackoffSeconds: 0\n",
       {"v.yaml:3:27: podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"}},
      {"max backoff below initial",
       "podInitialBackoffSeconds: 6\npodMaxBackoffSeconds: 5\n",
       {"v.yaml:4:23: podMaxBackoffSeconds: Invalid value: 5: must be greater than or equal to "
        "PodInitialBackoffSeconds"}},
      {"max backoff below default initial",
       "podMaxBackoffSeconds: 0\n",
       {"v.yaml:3:23: podMaxBackoffSeconds: Invalid value: 0: must be greater than or equal to "
        "PodInitialBackoffSeconds"}},
      {"burst",
       "clientConnection:\n  burst: -1\n",
       {"v.yaml:4:10: clientConnection.burst: Invalid value: -1: must be non-negative"}},
      {"extenders",
       "extenders:\n- urlPrefix: http://localhost:8080/\n  weight: 1\n",
       {"v.yaml:4:1: extenders: Forbidden: extenders are not supported by ksched (found 1: "
        "[\"http://localhost:8080/\"]); implement the logic as a plugin or remove the extenders"}},
  });
}

TEST(ValidateTest, LeaderElection) {
  RunCases({
      {"resource lock",
       "leaderElection:\n  resourceLock: endpoints\n",
       {"v.yaml:4:17: leaderElection.resourceLock: Invalid value: \"endpoints\": resourceLock value must be "
        "\"leases\""}},
      {"lease not above renew",
       "leaderElection:\n  leaseDuration: 10s\n  renewDeadline: 10s\n",
       {"v.yaml:4:18: leaderElection.leaseDuration: Invalid value: \"10s\": must be greater than `RenewDeadline` "
        "(10s)"}},
      {"renew not above jittered retry",
       "leaderElection:\n  renewDeadline: 2400ms\n  retryPeriod: 2s\n",
       {"v.yaml:4:18: leaderElection.renewDeadline: Invalid value: \"2.4s\": must be greater than retryPeriod*1.2 "
        "(2s * client-go's JitterFactor)"}},
      {"negative",
       "leaderElection:\n  leaseDuration: -1s\n  retryPeriod: -2s\n",
       {"v.yaml:4:18: leaderElection.leaseDuration: Invalid value: \"-1s\": must be greater than zero",
        "v.yaml:4:18: leaderElection.leaseDuration: Invalid value: \"-1s\": must be greater than `RenewDeadline` "
        "(10s)",
        "v.yaml:5:16: leaderElection.retryPeriod: Invalid value: \"-2s\": must be greater than zero"}},
      {"not electing: not checked",
       "leaderElection:\n  leaderElect: false\n  leaseDuration: 1s\n  renewDeadline: 5s\n  resourceLock: endpoints\n",
       {}},
      {"openshift values", "leaderElection:\n  leaseDuration: 137s\n  renewDeadline: 107s\n  retryPeriod: 26s\n", {}},
  });
}

TEST(ValidateTest, Profiles) {
  RunCases({
      {"duplicate name",
       "profiles:\n- schedulerName: a\n- schedulerName: b\n- schedulerName: a\n",
       {"v.yaml:6:18: profiles[2].schedulerName: Duplicate value: \"a\" (also the name of profiles[0])"}},
      {"name required with several profiles",
       "profiles:\n- schedulerName: a\n- plugins: {}\n",
       {"v.yaml:5:3: profiles[1].schedulerName: Required value"}},
      {"empty name", "profiles:\n- schedulerName: \"\"\n", {"v.yaml:4:18: profiles[0].schedulerName: Required value"}},
  });
}

TEST(ValidateTest, QueueSort) {
  RunCases({
      {"two queue sort plugins",
       "profiles:\n- plugins:\n    queueSort:\n      enabled:\n      - name: PrioritySort\n      - name: "
       "PrioritySort\n",
       {"v.yaml:7:7: profiles[0].plugins.queueSort.enabled: Invalid value: 2: only one queue sort plugin can be "
        "enabled",
        "v.yaml:8:9: profiles[0].plugins.queueSort.enabled[1]: Duplicate value: \"PrioritySort\" (a plugin is "
        "enabled at most once per extension point)"}},
      {"different queue sort sets",
       "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      enabled:\n      - name: "
       "PrioritySort\n      disabled:\n      - name: \"*\"\n",
       {"v.yaml:8:7: profiles[1].plugins.queueSort: Invalid value: {enabled: [\"PrioritySort\"], disabled: "
        "[\"*\"]}: must be the same for all profiles"}},
      {"same explicit queue sort",
       "profiles:\n- schedulerName: a\n  plugins: {queueSort: {enabled: [{name: PrioritySort}]}}\n- schedulerName: "
       "b\n  plugins: {queueSort: {enabled: [{name: PrioritySort}]}}\n",
       {}},
      {"different queue sort args",
       "profiles:\n- schedulerName: a\n  plugins: {queueSort: {enabled: [{name: PrioritySort}]}}\n- schedulerName: "
       "b\n  plugins: {queueSort: {enabled: [{name: PrioritySort}]}}\n  pluginConfig:\n  - name: PrioritySort\n    "
       "args: {reverse: true}\n",
       {"v.yaml:10:11: profiles[1].pluginConfig[0].args: Invalid value: {\"reverse\":true}: plugin PrioritySort "
        "takes no args",
        "v.yaml:10:11: profiles[1].pluginConfig[0].args: Invalid value: {\"reverse\":true}: queueSort must be the "
        "same for all profiles"}},
  });
}

TEST(ValidateTest, PluginNames) {
  RunCases({
      {"removed plugin at a point",
       "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodePorts\n      - name: EBSLimits\n",
       {"v.yaml:8:9: profiles[0].plugins.filter.enabled[1]: Invalid value: \"EBSLimits\": was invalid in version "
        "\"kubescheduler.config.k8s.io/v1\" (KubeSchedulerConfiguration is version "
        "\"kubescheduler.config.k8s.io/v1\")"}},
      {"removed plugin in pluginConfig",
       "profiles:\n- pluginConfig:\n  - name: GCEPDLimits\n",
       {"v.yaml:5:5: profiles[0].pluginConfig[0]: Invalid value: \"GCEPDLimits\": was invalid in version "
        "\"kubescheduler.config.k8s.io/v1\" (KubeSchedulerConfiguration is version "
        "\"kubescheduler.config.k8s.io/v1\")"}},
      {"unknown plugin at multiPoint",
       "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: CapacityScheduling\n",
       {"v.yaml:7:15: profiles[0].plugins.multiPoint.enabled[0].name: Unsupported value: \"CapacityScheduling\": no plugin "
        "of this name is built into ksched (an out-of-tree plugin needs a binary built with it: docs/plugin-api.md)"}},
      {"misspelt plugin at score",
       "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n      - name: "
       "NodeResourceFit\n",
       {"v.yaml:8:15: profiles[0].plugins.score.enabled[1].name: Unsupported value: \"NodeResourceFit\": no plugin "
        "of this name is built into ksched (an out-of-tree plugin needs a binary built with it: docs/plugin-api.md); "
        "did you mean "
        "\"NodeResourcesFit\"?"}},
      {"unknown plugin in pluginConfig",
       "profiles:\n- pluginConfig:\n  - name: wasm\n    args: {guestURL: x}\n",
       {"v.yaml:5:11: profiles[0].pluginConfig[0].name: Unsupported value: \"wasm\": no plugin of this name is built "
        "into ksched (an out-of-tree plugin needs a binary built with it: docs/plugin-api.md)"}},
      {"empty name",
       "profiles:\n- plugins:\n    bind:\n      enabled:\n      - weight: 1\n",
       {"v.yaml:7:9: profiles[0].plugins.bind.enabled[0].name: Required value: plugin name"}},
      {"duplicate at a point",
       "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n      - name: "
       "ImageLocality\n",
       {"v.yaml:8:9: profiles[0].plugins.score.enabled[1]: Duplicate value: \"ImageLocality\" (a plugin is enabled "
        "at most once per extension point)"}},
      {"duplicate default at multiPoint",
       "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: ImageLocality\n      - name: "
       "ImageLocality\n        weight: 2\n",
       {"v.yaml:7:9: profiles[0].plugins.multiPoint.enabled[0]: Duplicate value: \"ImageLocality\" (a plugin is "
        "enabled at most once per extension point)"}},
      {"negative weight",
       "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        "
       "weight: -1\n",
       {"v.yaml:8:17: profiles[0].plugins.score.enabled[0].weight: Invalid value: -1: must not be negative"}},
      {"override a default per point",
       "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: "
       "TaintToleration\n        weight: 9\n",
       {}},
      {"duplicate pluginConfig",
       "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n  - name: InterPodAffinity\n",
       {"v.yaml:6:5: profiles[0].pluginConfig[1]: Duplicate value: \"InterPodAffinity\""}},
      {"args for a plugin without args",
       "profiles:\n- pluginConfig:\n  - name: NodePorts\n    args:\n      x: 1\n",
       {"v.yaml:7:7: profiles[0].pluginConfig[0].args: Invalid value: {\"x\":1}: plugin NodePorts takes no args"}},
      {"empty args for a plugin without args", "profiles:\n- pluginConfig:\n  - name: NodePorts\n    args: {}\n", {}},
  });
}

TEST(ValidateTest, CustomKnownPluginsReplaceTheInTreeSet) {
  KnownPlugins known = InTreePlugins();
  known.insert("OutOfTreePlugin");
  EXPECT_EQ(ErrorsOf("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: OutOfTreePlugin\n", known),
            std::vector<std::string>{});
  EXPECT_EQ(
      ErrorsOf("profiles:\n- pluginConfig:\n  - name: OutOfTreePlugin\n    args: {weight: 10}\n", known),
      std::vector<std::string>{"v.yaml:6:11: profiles[0].pluginConfig[0].args: Invalid value: "
                               "{\"weight\":10}: plugin OutOfTreePlugin takes no args"});
}

TEST(ValidateTest, DefaultPreemptionArgs) {
  RunCases({
      {"ranges",
       "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: 101\n "
       "     minCandidateNodesAbsolute: -1\n",
       {"v.yaml:7:36: profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 101: not in valid "
        "range [0, 100]",
        "v.yaml:8:34: profiles[0].pluginConfig[0].args.minCandidateNodesAbsolute: Invalid value: -1: not in valid "
        "range [0, inf)"}},
      {"both zero",
       "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: 0\n   "
       "   minCandidateNodesAbsolute: 0\n",
       {"v.yaml:7:36: profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero "
        "at the same time as minCandidateNodesAbsolute",
        "v.yaml:8:34: profiles[0].pluginConfig[0].args.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at "
        "the same time as minCandidateNodesPercentage"}},
  });
}

TEST(ValidateTest, InterPodAffinityArgs) {
  RunCases({
      {"weight",
       "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 101}\n",
       {"v.yaml:6:35: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range "
        "[0, 100]"}},
  });
}

TEST(ValidateTest, NodeResourcesFitArgs) {
  RunCases({
      {"names and groups",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      ignoredResources: [\"bad name\"]\n  "
       "    ignoredResourceGroups: [example.com/x]\n",
       {"v.yaml:7:26: profiles[0].pluginConfig[0].args.ignoredResources[0]: Invalid value: \"bad name\": name part "
        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        "v.yaml:8:31: profiles[0].pluginConfig[0].args.ignoredResourceGroups[0]: Invalid value: \"example.com/x\": "
        "resource group name can't contain '/'"}},
      {"type and weights",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: "
       "Balanced\n        resources:\n        - {name: cpu, weight: 101}\n        - {name: memory, weight: -1}\n",
       {"v.yaml:8:15: profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: \"Balanced\": "
        "supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"",
        "v.yaml:10:31: profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 101: "
        "resource weight of cpu not in valid range (0, 100]",
        "v.yaml:11:34: profiles[0].pluginConfig[0].args.scoringStrategy.resources[1].weight: Invalid value: -1: "
        "resource weight of memory not in valid range (0, 100]"}},
      {"ratio without shape",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: "
       "RequestedToCapacityRatio\n",
       {"v.yaml:8:9: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: Required value: must "
        "be specified when type is RequestedToCapacityRatio"}},
      {"bad shape",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: "
       "RequestedToCapacityRatio\n        requestedToCapacityRatio:\n          shape:\n          - {utilization: 50, "
       "score: 11}\n          - {utilization: 50, score: 1}\n          - {utilization: 101, score: -1}\n",
       {"v.yaml:11:38: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0].score: "
        "Invalid value: 11: not in valid range [0, 10]",
        "v.yaml:12:27: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1]."
        "utilization: Invalid value: 50: values must be sorted in increasing order",
        "v.yaml:13:27: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[2]."
        "utilization: Invalid value: 101: not in valid range [0, 100]",
        "v.yaml:13:39: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[2].score: "
        "Invalid value: -1: not in valid range [0, 10]"}},
      {"empty shape",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: "
       "RequestedToCapacityRatio\n        requestedToCapacityRatio: {shape: []}\n",
       {"v.yaml:9:43: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape: Required "
        "value: at least one point must be specified"}},
      {"ratio for another type",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: "
       "LeastAllocated\n        requestedToCapacityRatio: {shape: [{utilization: 0, score: 0}]}\n",
       {"v.yaml:9:35: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: Forbidden: must be "
        "nil when type is not RequestedToCapacityRatio"}},
  });
}

TEST(ValidateTest, BalancedAllocationArgs) {
  RunCases({
      {"duplicate and weight",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n      - "
       "{name: cpu, weight: 1}\n      - {name: cpu, weight: 2}\n",
       {"v.yaml:9:16: profiles[0].pluginConfig[0].args.resources[1].name: Duplicate value: \"cpu\"",
        "v.yaml:9:29: profiles[0].pluginConfig[0].args.resources[1].weight: Invalid value: 2: must be 1"}},
  });
}

TEST(ValidateTest, PodTopologySpreadArgs) {
  RunCases({
      {"defaulting type",
       "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args: {defaultingType: Zone}\n",
       {"v.yaml:6:28: profiles[0].pluginConfig[0].args.defaultingType: Unsupported value: \"Zone\": supported values: "
        "\"System\", \"List\""}},
      {"system with constraints",
       "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultConstraints:\n      - "
       "{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n",
       {"v.yaml:7:7: profiles[0].pluginConfig[0].args.defaultingType: Invalid value: \"System\": when "
        ".defaultConstraints are not empty"}},
      {"constraints",
       "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n      "
       "defaultConstraints:\n      - {maxSkew: 0, topologyKey: \"\", whenUnsatisfiable: \"\"}\n      - {maxSkew: 1, "
       "topologyKey: \"a b\", whenUnsatisfiable: Maybe, labelSelector: {}}\n      - {maxSkew: 2, topologyKey: zone, "
       "whenUnsatisfiable: DoNotSchedule}\n      - {maxSkew: 3, topologyKey: zone, whenUnsatisfiable: "
       "DoNotSchedule}\n",
       {"v.yaml:9:19: profiles[0].pluginConfig[0].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid "
        "range (0, inf)",
        "v.yaml:9:35: profiles[0].pluginConfig[0].args.defaultConstraints[0].topologyKey: Required value: can not be "
        "empty",
        "v.yaml:9:58: profiles[0].pluginConfig[0].args.defaultConstraints[0].whenUnsatisfiable: Required value: can "
        "not be empty",
        "v.yaml:10:35: profiles[0].pluginConfig[0].args.defaultConstraints[1].topologyKey: Invalid value: \"a b\": "
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        "v.yaml:10:61: profiles[0].pluginConfig[0].args.defaultConstraints[1].whenUnsatisfiable: Unsupported value: "
        "\"Maybe\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
        "v.yaml:10:83: profiles[0].pluginConfig[0].args.defaultConstraints[1].labelSelector: Forbidden: constraint "
        "must not define a selector, as they deduced for each pod",
        "v.yaml:12:9: profiles[0].pluginConfig[0].args.defaultConstraints[3]: Duplicate value: {zone, "
        "DoNotSchedule}"}},
  });
}

TEST(ValidateTest, NodeAffinityArgs) {
  RunCases({
      {"selectors",
       "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        "
       "requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n          - matchExpressions:\n "
       "           - {key: a, operator: Near}\n            - {key: b, operator: In}\n            - {key: c, operator: "
       "Exists, values: [x]}\n            - {key: d, operator: Gt, values: [x]}\n            - {key: \"-e\", operator: "
       "NotIn, values: [\"bad value\"]}\n            matchFields:\n            - {key: metadata.name, operator: "
       "Exists}\n            - {key: metadata.name, operator: In, values: [a, b]}\n          - {}\n        "
       "preferredDuringSchedulingIgnoredDuringExecution:\n        - weight: 1\n          preference:\n            "
       "matchExpressions:\n            - {key: f, operator: Lt, values: [\"1\", \"2\"]}\n        - weight: 0\n      "
       "    preference:\n            matchExpressions:\n            - {key: g, operator: Bad}\n",
       {"v.yaml:11:34: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: \"Near\": supported values: \"In\", "
        "\"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"",
        "v.yaml:12:15: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchExpressions[1].values: Invalid value: []: for 'in', 'notin' operators, values set "
        "can't "
        "be empty",
        "v.yaml:13:50: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchExpressions[2].values: Invalid value: [\"x\"]: values set must be empty for "
        "exists and does not exist",
        "v.yaml:14:47: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchExpressions[3].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the "
        "value must be an integer",
        "v.yaml:15:21: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchExpressions[4].key: Invalid value: \"-e\": name part must consist of alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        "v.yaml:15:53: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchExpressions[4].values[0]: Invalid value: \"bad value\": a valid label must be an "
        "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        "v.yaml:17:46: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: \"Exists\": supported values: \"In\", "
        "\"NotIn\"",
        "v.yaml:18:58: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchFields[1].values: Invalid value: [\"a\", \"b\"]: must have one element",
        "v.yaml:24:46: profiles[0].pluginConfig[0].args.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"
        "[0].preference.matchExpressions[0].values: Invalid value: [\"1\", \"2\"]: for 'Gt', 'Lt' operators, "
        "exactly one value is required"}},
  });
}

TEST(ValidateTest, VolumeBindingArgs) {
  RunCases({
      {"timeout and shape",
       "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      bindTimeoutSeconds: -1\n      shape:\n "
       "     - {utilization: 0, score: 0}\n",
       {"v.yaml:7:27: profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid "
        "BindTimeoutSeconds, should not be a negative value",
        "v.yaml:9:7: profiles[0].pluginConfig[0].args.shape: Invalid value: [{utilization: 0, score: 0}]: unexpected "
        "field `shape`, remove it or turn on the feature gate StorageCapacityScoring"}},
  });
}

TEST(ValidateTest, VolumeBindingShapeWithStorageCapacityScoring) {
  config::ScopedConfigGates gates({.storage_capacity_scoring = true});
  RunCases({
      {"shape checked as a function shape",
       "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      shape:\n"
       "      - {utilization: 50, score: 11}\n      - {utilization: 40, score: 0}\n",
       {"v.yaml:8:34: profiles[0].pluginConfig[0].args.shape[0].score: Invalid value: 11: not in valid range [0, 10]",
        "v.yaml:9:23: profiles[0].pluginConfig[0].args.shape[1].utilization: Invalid value: 40: values must be sorted "
        "in increasing order"}},
      {"no shape: defaulted, valid", "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args: {}\n", {}},
  });
}

TEST(ValidateTest, ArgsOfTheWrongTypeAreRejected) {
  KubeSchedulerConfiguration c = DefaultConfiguration();
  c.profiles[0].plugin_config[0].args = VolumeBindingArgs{600, std::nullopt};  // DefaultPreemption's entry
  EXPECT_EQ(Messages(Validate(c, InTreePlugins())),
            std::vector<std::string>{"profiles[0].pluginConfig[0].args: Invalid value: {\"apiVersion\":"
                                     "\"kubescheduler.config.k8s.io/v1\",\"kind\":\"VolumeBindingArgs\","
                                     "\"bindTimeoutSeconds\":600}: has to match plugin args (DefaultPreemptionArgs)"});
}

TEST(ValidateTest, WithoutSourceErrorsHaveNoPosition) {
  KubeSchedulerConfiguration c = DefaultConfiguration();
  c.parallelism = -1;
  c.profiles.clear();
  EXPECT_EQ(Messages(Validate(c, InTreePlugins())),
            (std::vector<std::string>{"parallelism: Invalid value: -1: should be an integer value greater than zero",
                                      "profiles: Required value"}));
}

TEST(ValidateTest, LeaderElectionNamesAreRequiredWhenElecting) {
  KubeSchedulerConfiguration c = DefaultConfiguration();
  c.leader_election.resource_lock.clear();
  c.leader_election.resource_name.clear();
  c.leader_election.resource_namespace.clear();
  EXPECT_EQ(Messages(Validate(c, InTreePlugins())),
            (std::vector<std::string>{"leaderElection.resourceLock: Required value",
                                      "leaderElection.resourceNamespace: Required value",
                                      "leaderElection.resourceName: Required value"}));
  c.leader_election.leader_elect = false;
  EXPECT_TRUE(Validate(c, InTreePlugins()).empty());
}

TEST(ValidateTest, WarningsDoNotFail) {
  LoadResult r = LoadConfig(std::string(kHeader) +
                                "profiles:\n- plugins:\n    score:\n      disabled:\n      - name: "
                                "NodeResourcesLeastAllocated\n    filter:\n      enabled:\n      - name: NodePorts\n  "
                                "      weight: 3\n",
                            "w.yaml", InTreePlugins());
  EXPECT_TRUE(r.errors.empty()) << JoinErrors(r.errors);
  EXPECT_TRUE(r.config);
  EXPECT_EQ(Messages(r.warnings),
            (std::vector<std::string>{
                "w.yaml:7:15: profiles[0].plugins.score.disabled[0].name: Unsupported value: "
                "\"NodeResourcesLeastAllocated\": not a plugin ksched knows; disabling it has no effect",
                "w.yaml:11:17: profiles[0].plugins.filter.enabled[0].weight: Invalid value: 3: weights only apply to "
                "score plugins; ignored"}));
}

}  // namespace
}  // namespace ksched::config
