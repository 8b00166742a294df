// Workload definitions of kube-scheduler's scheduler_perf
// (test/integration/scheduler_perf/*/performance-config.yaml): test cases,
// each a template of operations instantiated by named workloads with their
// parameters, plus the node / pod / namespace templates they reference.
//
// LoadTestCases reads one config file with pkg/api's YAML→JSON, resolves
// `countParam: $name` against every workload's params, reads every template
// the operations reference (paths relative to the config file) and decodes
// it with the typed codec once, so a broken template fails at load time, not
// halfway through a run. Operations this harness cannot run (opcodes other
// than createNodes, createNamespaces, createPods, churn, barrier and sleep,
// or unsupported options of those) are kept with `unsupported` set: the
// workload loads, and running it fails with that reason.
//
// Scaling: Scaled(f) multiplies every count by f (at least 1 when the count
// was positive), for quick runs of the big workloads.
//
// createAny and allocResourceClaims (kube's opcodes for DRA objects) are
// not read from the files: only the built-in workloads of dra_workloads.h
// use them (and createPods' claims_from_templates).
//
// Value types; thread-compatible.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::bench {

enum class Opcode {
  kCreateNodes,
  kCreateNamespaces,
  kCreatePods,
  kChurn,
  kBarrier,
  kSleep,
  // `count` objects of any kind the cluster creates (Cluster::CreateObjects)
  // from object_template, "{{.Index}}" in its strings replaced by 0 ..
  // count-1; namespaced kinds go to `namespace_`.
  kCreateAny,
  // Allocates every claim createAny made in `namespace_`, one device each,
  // round-robin over the slices createAny made (claim i: slice i % slices,
  // its device i / slices), and writes each claim's status.
  kAllocResourceClaims,
};

struct Op {
  Opcode opcode = Opcode::kBarrier;
  int index = 0;  // position in the workload template (names default namespaces)
  int64_t count = 0;
  // createNodes / createPods / createNamespaces: the object template (JSON,
  // as the YAML file reads). Empty for createNodes without a template:
  // scheduler_perf's base node is used.
  nlohmann::json object_template;
  // createNodes: labelNodePrepareStrategy (values assigned round-robin) and
  // uniqueNodeLabelStrategy (a distinct value per node).
  std::string label_key;
  std::vector<std::string> label_values;
  std::string unique_label_key;
  // createNamespaces: names are prefix-0 .. prefix-(count-1).
  std::string prefix;
  // createPods: the namespace (default "namespace-<index>"), whether the
  // throughput of this op is measured, whether the op returns without
  // waiting for its pods to be scheduled.
  std::string namespace_;
  bool collect_metrics = false;
  bool skip_wait = false;
  // createPods: the runner plays kube's resourceclaim controller before the
  // pods exist: each pod claim naming a ResourceClaimTemplate (made by
  // createAny in the pod's namespace) becomes a claim "<pod>-<claim>" with
  // the template's spec, which the pod then names by resourceClaimName.
  // The claims are created before the measured phase.
  bool claims_from_templates = false;
  // churn (mode create): objects created every `interval` until the
  // workload ends (or `number` of each when positive).
  std::vector<nlohmann::json> churn_templates;
  util::Duration interval = util::Duration::zero();
  int64_t number = 0;
  // sleep
  util::Duration duration = util::Duration::zero();
  // Non-empty: this harness cannot run the op; the reason.
  std::string unsupported;
};

struct Workload {
  std::string test_case;  // "SchedulingBasic"
  std::string name;       // "5000Nodes_10000Pods"
  std::vector<std::string> labels;
  // kube's CI floor (pods/s) for the measured op; 0 when the file has none.
  double threshold = 0;
  std::map<std::string, bool> feature_gates;
  std::vector<Op> ops;

  std::string FullName() const { return test_case + "/" + name; }
  // The measured pods (sum of the collectMetrics createPods counts).
  int64_t MeasuredPods() const;
  // Every count multiplied by `fraction` (>= 1 when it was positive).
  Workload Scaled(double fraction) const;
  // The first unsupported op's reason, empty when every op runs.
  std::string Unsupported() const;
  // Whether a pod template sets spec.priority above another's: such pods
  // may preempt (the in-process cluster then needs the API writes).
  bool MayPreempt() const;
  // Whether some pod gets a ResourceClaim (createAny of ResourceClaims,
  // createPods with claims_from_templates): the run then checks the claims'
  // allocations (Cluster::CheckResourceClaims).
  bool UsesResourceClaims() const;
};

// Every workload of every test case in `path`.
util::StatusOr<std::vector<Workload>> LoadTestCases(const std::string& path);

// scheduler_perf's makeBaseNode: 110 pods, 4 CPUs, 32Gi, Ready, Running,
// generateName "scheduler-perf-".
nlohmann::json BaseNodeTemplate();
// scheduler_perf's makeBasePod: one pause container requesting (and
// limited to) 100m CPU and 500Mi, generateName "pod-".
nlohmann::json BasePodTemplate();

}  // namespace ksched::bench
