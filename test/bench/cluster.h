// Cluster: what a scheduler_perf workload runs against, a running ksched
// plus a way to create objects and to see pods get scheduled. Two
// implementations:
//   - InProcessCluster: ksched's Scheduler (queue + framework with the
//     in-tree plugins of the default profile + cache) fed directly: objects
//     are defaulted as the API server would (kube-apiserver-lite's
//     PrepareForCreate), decoded with the typed codec and handed to the same
//     EventHandlers the informers call; a binding client confirms each
//     binding on a separate delivery thread, as the pod informer would (the
//     pod lister gets the bound pod, the assigned-pod handler adds it to the
//     cache, the unassigned-pod handler sees it leave). No HTTP. With
//     api_writes, the scheduler's API writer is wired to the same in-memory
//     pods (preemption deletes victims through it).
//   - E2eCluster: kube-apiserver-lite (ApiHandler + HttpServer on loopback,
//     port 0) and ksched's app::Server wired as cmd/ksched wires it, with
//     clientConnection qps/burst raised; objects are POSTed by a pool of
//     harness workers over HTTP.
//
// Pods are created in two steps, PreparePods (encoding/decoding, not
// measured) then CreatePods (the API calls / handler calls, measured).
// Other objects (DRA's, for the createAny op) through CreateObjects and
// UpdateStatus, and CheckResourceClaims reads the claims back after a run:
// in process only so far (the other clusters answer InvalidArgument naming
// their mode).
// Scheduled(ns) counts the bindings that succeeded (in e2e: the API server
// answered 201 to the binding POST), per namespace; CountBoundPods reads the
// pods back (listers / a LIST) and counts those with spec.nodeName, which is
// the check the smoke test relies on.
//
// Thread-safety: CreateNamespace / CreateNodes from one thread (the
// runner); PreparePods / CreatePods also from a second one (churn); the
// counters from any thread.
#pragma once

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"
#include "test/bench/claim_check.h"
#include "test/bench/measure.h"

namespace ksched::client {
class RestClient;
}  // namespace ksched::client

namespace ksched::bench {

// Successful bindings per namespace, with a blocking wait, and when each
// pod was seen bound (open-loop latency).
class ScheduledCounter {
 public:
  void Add(const std::string& namespace_, const std::string& name);
  int64_t Get(const std::string& namespace_) const;
  int64_t Total() const;
  // Blocks until Get(namespace_) >= n or `timeout` passes; returns whether
  // the count was reached.
  bool WaitFor(const std::string& namespace_, int64_t n, util::Duration timeout) const;
  // From now on, remember when each pod is bound (open-loop runs; off, Add
  // keeps counts only, so closed-loop figures carry no map per pod).
  void KeepBindTimes();
  // When pod namespace_/name was first seen bound, if it was and bind times
  // were kept then.
  std::optional<std::chrono::steady_clock::time_point> BoundAt(const std::string& namespace_,
                                                              const std::string& name) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, int64_t, std::less<>> counts_;
  int64_t total_ = 0;
  bool keep_bind_times_ = false;
  std::map<std::string, std::chrono::steady_clock::time_point, std::less<>> bound_at_;  // "ns/name"
  // The namespace and count each blocked WaitFor waits for.
  mutable std::multimap<std::string, int64_t, std::less<>> waits_;
};

// Pods ready to be created (opaque per implementation).
class PodBatch {
 public:
  virtual ~PodBatch() = default;
  virtual size_t size() const = 0;
};

// k8s mode: the scheduler started beside a real control plane.
enum class SchedulerKind { kKsched, kKubeScheduler };
const char* SchedulerName(SchedulerKind kind);

struct K8sOptions {
  SchedulerKind scheduler = SchedulerKind::kKsched;
  // The repository (scripts/k8s-up.sh), the control plane's binaries and
  // ksched's binary.
  std::string repo_dir = ".";
  std::string k8s_bin = "build/k8s/bin";
  std::string ksched_binary = "build/ksched";
  // Where each run's control plane keeps its files (a fresh directory per
  // run under it); kept after the run when keep_dir is set.
  std::string work_dir = "build/bench-results/k8s";
  bool keep_dir = false;
  // --feature-gates for the scheduler: the workload's gates that ksched
  // knows (set by the runner), the same for both schedulers.
  std::string feature_gates;
};

struct ClusterOptions {
  // The kube-scheduler minor ksched behaves as in process and end to end
  // (its gates and default plugin set), as the daemon does against an API
  // server of that minor; k8s mode's ksched asks its API server.
  scheduler::framework::FeatureGates features =
      scheduler::framework::FeatureGates::ForMinor(scheduler::framework::kNewestKubeMinor);
  // clientConnection qps / burst of ksched (e2e).
  float qps = 5000;
  int burst = 5000;
  // Harness workers POSTing objects (e2e).
  int create_workers = 8;
  // In process: whether the scheduler makes its API writes (status patches,
  // Events, preemption's victim deletes), applied to the in-memory pods as
  // an API server and informer would. Off, the in-process figures measure
  // scheduling alone; preemption needs them (the runner turns them on for
  // workloads that may preempt). E2e always writes.
  bool api_writes = false;
  // In process: pods the scheduler's AttemptRecord keeps (the daemon's
  // --explain-record-size; 0: no record, no observer), to measure its cost.
  size_t explain_record_size = 0;
  // In process: the configuration's parallelism (0: its default, 16,
  // capped at the cores). 1 runs Filter and Score on the scheduling thread
  // alone, with no pool worker spinning: the instruction count needs it.
  int parallelism = 0;
  // In process: non-zero seeds the scheduler's tie-breaking and metric
  // sampling and makes object UIDs a counter instead of random, so that two
  // runs execute the same instructions (0: random, as the daemon).
  uint64_t seed = 0;
  K8sOptions k8s;
};

class Cluster {
 public:
  virtual ~Cluster() = default;
  virtual const char* Mode() const = 0;

  virtual util::Status CreateNamespace(const nlohmann::json& ns) = 0;
  // Creates the nodes and returns once the scheduler's cache holds them all.
  virtual util::Status CreateNodes(const std::vector<nlohmann::json>& nodes) = 0;
  // `pods` carry metadata.name and metadata.namespace.
  virtual util::StatusOr<std::unique_ptr<PodBatch>> PreparePods(const std::vector<nlohmann::json>& pods) = 0;
  virtual util::Status CreatePods(PodBatch& batch) = 0;
  // Pods of `namespace_` carrying spec.nodeName, read back from the pods'
  // source of truth.
  virtual util::StatusOr<int64_t> CountBoundPods(const std::string& namespace_) = 0;
  // Creates `objects` (DeviceClasses, ResourceSlices, ResourceClaims,
  // ResourceClaimTemplates; namespaced ones carry metadata.namespace) as
  // the API server would (a claim's status dropped) and returns once the
  // scheduler's listers and handlers have them.
  virtual util::Status CreateObjects(const std::vector<nlohmann::json>& objects);
  // Writes each object's status over the stored object's (a status PUT
  // without a resourceVersion precondition), delivered before returning.
  virtual util::Status UpdateStatus(const std::vector<nlohmann::json>& objects);
  // The pods' ResourceClaims as the run left them, checked
  // (claim_check.h).
  virtual util::StatusOr<ClaimCheck> CheckResourceClaims();

  // Blocks until no binding cycle is queued or running (a binding is
  // counted as soon as the API accepted it, a little before its cycle
  // records its metrics).
  virtual void WaitForBindingCycles() = 0;
  // The scheduler's metrics as its /metrics shows them.
  virtual util::StatusOr<Families> ScrapeMetrics() = 0;
  // CPU seconds used so far and peak RSS (KiB) of what runs the scheduler:
  // this process in process and e2e (harness and kube-apiserver-lite
  // included), the scheduler's own process in k8s mode.
  virtual double SchedulerCpuSeconds() { return ProcessCpuSeconds(); }
  virtual int64_t SchedulerPeakRssKb() { return PeakRssKb(); }
  // CPU seconds used so far by the control plane's processes, by name
  // ("kube-apiserver", "etcd"); empty when they run in this process.
  virtual std::map<std::string, double> ControlPlaneCpuSeconds() { return {}; }
  const ScheduledCounter& Scheduled() const { return scheduled_; }
  // See ScheduledCounter::KeepBindTimes.
  void KeepBindTimes() { scheduled_.KeepBindTimes(); }
  // Stops the scheduler (and the API server). Idempotent.
  virtual void Stop() = 0;

 protected:
  ScheduledCounter scheduled_;
};

// Pods of `namespace_` carrying spec.nodeName, by a LIST through `client`
// (the e2e and k8s clusters' CountBoundPods).
util::StatusOr<int64_t> CountBoundPodsByList(client::RestClient& client, const std::string& namespace_);

util::StatusOr<std::unique_ptr<Cluster>> NewInProcessCluster(const ClusterOptions& options);
util::StatusOr<std::unique_ptr<Cluster>> NewE2eCluster(const ClusterOptions& options);
// A real control plane (scripts/k8s-up.sh) and options.k8s.scheduler as a
// process; see k8s_cluster.cc.
util::StatusOr<std::unique_ptr<Cluster>> NewK8sCluster(const ClusterOptions& options);

}  // namespace ksched::bench
