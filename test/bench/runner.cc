#include "test/bench/runner.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "test/bench/dra_ops.h"
#include "test/bench/instruction_count.h"

namespace ksched::bench {

using nlohmann::json;

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kInProcess:
      return "inprocess";
    case Mode::kE2e:
      return "e2e";
    case Mode::kK8s:
      return "k8s";
  }
  return "";
}

namespace {

using Steady = std::chrono::steady_clock;

double SecondsSince(Steady::time_point t) { return std::chrono::duration<double>(Steady::now() - t).count(); }

constexpr char kAttemptFamily[] = "scheduler_scheduling_attempt_duration_seconds";
constexpr char kSliFamily[] = "scheduler_pod_scheduling_sli_duration_seconds";
constexpr char kExtensionPointFamily[] = "scheduler_framework_extension_point_duration_seconds";
constexpr char kPluginFamily[] = "scheduler_plugin_execution_duration_seconds";
constexpr char kPreemptionAttemptsFamily[] = "scheduler_preemption_attempts_total";
constexpr char kPreemptionVictimsFamily[] = "scheduler_preemption_victims";

// Names objects generateName + a per-prefix counter.
class Namer {
 public:
  std::string Next(const json& obj) {
    const json& meta = obj.contains("metadata") ? obj["metadata"] : json::object();
    std::string prefix = meta.value("generateName", meta.value("name", std::string("obj")) + "-");
    std::lock_guard<std::mutex> l(mu_);
    return prefix + std::to_string(counters_[prefix]++);
  }

 private:
  std::mutex mu_;
  std::map<std::string, int64_t> counters_;
};

json Instantiate(const json& tmpl, const std::string& name, const std::string& ns) {
  json obj = tmpl;
  json& meta = obj["metadata"];
  meta.erase("generateName");
  meta["name"] = name;
  if (!ns.empty()) meta["namespace"] = ns;
  return obj;
}

// The measured phase's scheduler metrics.
// Adds a phase's histogram to a sum over phases (same buckets).
void AddHistogram(HistogramSnapshot& into, const HistogramSnapshot& d) {
  if (into.cumulative.empty()) {
    into = d;
  } else if (d.cumulative.size() == into.cumulative.size()) {
    for (size_t i = 0; i < d.cumulative.size(); ++i) into.cumulative[i] += d.cumulative[i];
    into.count += d.count;
    into.sum += d.sum;
  }
}

struct MetricsPoint {
  HistogramSnapshot scheduled;
  HistogramSnapshot sli;
  HistogramSnapshot unschedulable;
  HistogramSnapshot error;
  LabeledTotals extension_points;
  LabeledTotals plugins;
  double cpu = 0;
  std::map<std::string, double> control_plane_cpu;
  double preemption_attempts = 0;
  uint64_t preemptions = 0;   // successful: victims histogram samples
  double victims = 0;         // victims histogram sum

  static util::StatusOr<MetricsPoint> Take(Cluster& c) {
    util::StatusOr<Families> scraped = c.ScrapeMetrics();
    if (!scraped.ok()) return scraped.status();
    const Families& f = *scraped;
    MetricsPoint p;
    p.scheduled = TakeHistogram(f, kAttemptFamily, {{"result", "scheduled"}});
    p.sli = TakeHistogram(f, kSliFamily);
    p.unschedulable = TakeHistogram(f, kAttemptFamily, {{"result", "unschedulable"}});
    p.error = TakeHistogram(f, kAttemptFamily, {{"result", "error"}});
    p.extension_points = HistogramTotalsBy(f, kExtensionPointFamily, {"extension_point"});
    p.plugins = HistogramTotalsBy(f, kPluginFamily, {"plugin", "extension_point"});
    p.cpu = c.SchedulerCpuSeconds();
    p.control_plane_cpu = c.ControlPlaneCpuSeconds();
    p.preemption_attempts = CounterTotal(f, kPreemptionAttemptsFamily);
    const HistogramSnapshot victims = TakeHistogram(f, kPreemptionVictimsFamily);
    p.preemptions = victims.count;
    p.victims = victims.sum;
    return p;
  }
};

void Accumulate(LabeledTotals& into, const LabeledTotals& add) {
  for (const auto& [k, v] : add) {
    into[k].sum += v.sum;
    into[k].count += v.count;
  }
}

class Run {
 public:
  Run(const Workload& w, const RunOptions& o) : w_(w), o_(o) {
    r_.workload = w.FullName();
    r_.mode = ModeName(o.mode);
    r_.scheduler = o.mode == Mode::kK8s ? SchedulerName(o.cluster.k8s.scheduler) : "ksched";
    r_.threshold = w.threshold;
    r_.arrival_rate = o.arrival_rate;
  }

  WorkloadResult Go() {
    const Steady::time_point start = Steady::now();
    r_.peak_rss_reset = ResetPeakRss();
    util::Status s = Execute();
    if (!s.ok() && r_.error.empty()) r_.error = s.ToString();
    StopChurn();
    if (r_.error.empty()) Verify();
    if (cluster_) {
      r_.peak_rss_kb = cluster_->SchedulerPeakRssKb();
      cluster_->Stop();
    }
    r_.total_seconds = SecondsSince(start);
    if (r_.measure_seconds > 0) {
      r_.overall_pods_per_s = static_cast<double>(r_.measured_scheduled) / r_.measure_seconds;
      r_.preemptions_per_s = static_cast<double>(r_.preemptions) / r_.measure_seconds;
    }
    if (r_.measured_scheduled > 0) {
      r_.cpu_seconds_per_1000_pods = r_.cpu_seconds * 1000.0 / static_cast<double>(r_.measured_scheduled);
    }
    r_.throughput = Summarize(r_.samples);
    r_.pod_latency = Summarize(r_.pod_latency_ms);
    cluster_.reset();
    return r_;
  }

 private:
  void Log(const std::string& msg) {
    if (o_.verbose) spdlog::info("[{} {}] {}", r_.mode, r_.workload, msg);
  }

  util::Status Execute() {
    const std::string unsupported = w_.Unsupported();
    if (!unsupported.empty()) return util::InvalidArgument("unsupported workload: " + unsupported);
    ClusterOptions co = o_.cluster;
    if (w_.MayPreempt()) co.api_writes = true;
    for (const auto& [gate, value] : w_.feature_gates) {
      const std::string spec = gate + (value ? "=true" : "=false");
      if (co.features.Set(spec).ok()) {
        co.k8s.feature_gates += (co.k8s.feature_gates.empty() ? "" : ",") + spec;
      } else {
        r_.ignored_feature_gates.push_back(spec);
      }
    }
    util::StatusOr<std::unique_ptr<Cluster>> c = o_.mode == Mode::kInProcess ? NewInProcessCluster(co)
                                                 : o_.mode == Mode::kE2e      ? NewE2eCluster(co)
                                                                              : NewK8sCluster(co);
    if (!c.ok()) return c.status();
    cluster_ = std::move(c).value();
    for (const Op& op : w_.ops) {
      util::Status s = RunOp(op);
      if (!s.ok()) return s;
    }
    return util::Status();
  }

  util::Status EnsureNamespace(const std::string& ns) {
    if (namespaces_.count(ns) != 0) return util::Status();
    util::Status s = cluster_->CreateNamespace(
        json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    if (s.ok()) namespaces_.insert(ns);
    return s;
  }

  util::Status RunOp(const Op& op) {
    const Steady::time_point t0 = Steady::now();
    switch (op.opcode) {
      case Opcode::kCreateNodes: {
        std::vector<json> nodes;
        nodes.reserve(static_cast<size_t>(op.count));
        for (int64_t i = 0; i < op.count; ++i) {
          json n = Instantiate(op.object_template, namer_.Next(op.object_template), "");
          json& labels = n["metadata"]["labels"];
          if (!labels.is_object()) labels = json::object();
          // scheduler_perf's node preparer gives every node the hostname
          // label a kubelet would set (PodAntiAffinity relies on it).
          labels["kubernetes.io/hostname"] = n["metadata"]["name"];
          const int64_t k = r_.nodes + i;
          if (!op.label_key.empty() && !op.label_values.empty()) {
            labels[op.label_key] = op.label_values[static_cast<size_t>(k) % op.label_values.size()];
          }
          if (!op.unique_label_key.empty()) labels[op.unique_label_key] = "unique-" + std::to_string(k);
          nodes.push_back(std::move(n));
        }
        util::Status s = cluster_->CreateNodes(nodes);
        if (!s.ok()) return s;
        r_.nodes += op.count;
        Log(fmt::format("created {} nodes in {:.2f}s", op.count, SecondsSince(t0)));
        return util::Status();
      }
      case Opcode::kCreateNamespaces: {
        for (int64_t i = 0; i < op.count; ++i) {
          const std::string name = op.prefix + "-" + std::to_string(i);
          json ns = Instantiate(op.object_template, name, "");
          util::Status s = cluster_->CreateNamespace(ns);
          if (!s.ok()) return s;
          namespaces_.insert(name);
        }
        return util::Status();
      }
      case Opcode::kCreatePods:
        return CreatePods(op);
      case Opcode::kChurn: {
        util::Status s = EnsureNamespace(op.namespace_);
        if (!s.ok()) return s;
        if (o_.churn_rounds > 0) return ChurnRounds(op);
        churn_threads_.emplace_back([this, op] { Churn(op); });
        return util::Status();
      }
      case Opcode::kBarrier:
        for (const auto& [ns, n] : expected_) {
          if (!cluster_->Scheduled().WaitFor(ns, n, o_.pod_timeout)) {
            return util::Internal(fmt::format("barrier: namespace {} has {} of {} pods bound", ns,
                                              cluster_->Scheduled().Get(ns), n));
          }
        }
        return util::Status();
      case Opcode::kSleep:
        std::this_thread::sleep_for(op.duration);
        return util::Status();
      case Opcode::kCreateAny:
        return CreateAny(op);
      case Opcode::kAllocResourceClaims: {
        util::StatusOr<std::vector<json>> allocated = AllocateRoundRobin(claims_[op.namespace_], slices_);
        if (!allocated.ok()) return allocated.status();
        util::Status s = cluster_->UpdateStatus(*allocated);
        if (!s.ok()) return s;
        claims_[op.namespace_] = std::move(allocated).value();
        Log(fmt::format("allocated {} claims in {} in {:.2f}s", claims_[op.namespace_].size(), op.namespace_,
                        SecondsSince(t0)));
        return util::Status();
      }
    }
    return util::Status();
  }

  // createAny: the objects, remembered by kind for the DRA ops after it.
  util::Status CreateAny(const Op& op) {
    const Steady::time_point t0 = Steady::now();
    if (!op.namespace_.empty()) {
      util::Status s = EnsureNamespace(op.namespace_);
      if (!s.ok()) return s;
    }
    const std::string kind = op.object_template.value("kind", "");
    std::vector<json> objects;
    objects.reserve(static_cast<size_t>(op.count));
    for (int64_t i = 0; i < op.count; ++i) {
      json obj = InstantiateIndexed(op.object_template, i);
      if (!op.namespace_.empty()) obj["metadata"]["namespace"] = op.namespace_;
      objects.push_back(std::move(obj));
    }
    util::Status s = cluster_->CreateObjects(objects);
    if (!s.ok()) return s;
    for (json& obj : objects) {
      if (kind == "ResourceSlice") {
        slices_.push_back(std::move(obj));
      } else if (kind == "ResourceClaim") {
        claims_[op.namespace_].push_back(std::move(obj));
      } else if (kind == "ResourceClaimTemplate") {
        // The key first: json's assignment takes its operand by value, and
        // C++17 evaluates the right side of `=` before the left.
        const std::string key = op.namespace_ + "/" + obj["metadata"].value("name", std::string());
        claim_templates_[key] = std::move(obj);
      }
    }
    Log(fmt::format("created {} {} in {:.2f}s", op.count, kind, SecondsSince(t0)));
    return util::Status();
  }

  util::Status CreatePods(const Op& op) {
    util::Status s = EnsureNamespace(op.namespace_);
    if (!s.ok()) return s;
    std::vector<json> pods;
    pods.reserve(static_cast<size_t>(op.count));
    for (int64_t i = 0; i < op.count; ++i) {
      pods.push_back(Instantiate(op.object_template, namer_.Next(op.object_template), op.namespace_));
    }
    if (op.claims_from_templates) {
      // kube's resourceclaim controller's part, done before the pods exist
      // and before anything is measured.
      std::vector<json> claims;
      for (json& p : pods) {
        util::StatusOr<std::vector<json>> made = ClaimsFromTemplates(p, claim_templates_);
        if (!made.ok()) return made.status();
        for (json& c : *made) claims.push_back(std::move(c));
      }
      s = cluster_->CreateObjects(claims);
      if (!s.ok()) return s;
    }
    const bool open_loop = o_.arrival_rate > 0 && op.collect_metrics && !op.skip_wait;
    const bool one_by_one = (o_.one_pod_at_a_time || open_loop) && op.collect_metrics && !op.skip_wait;
    // Open loop: each pod's name and when its create request was sent.
    std::vector<std::string> open_loop_names;
    std::vector<Steady::time_point> sent_at;
    if (open_loop) {
      for (const json& p : pods) open_loop_names.push_back(p["metadata"]["name"].get<std::string>());
      sent_at.reserve(pods.size());
      cluster_->KeepBindTimes();
    }
    // One batch of all pods, or (one_by_one) a batch per pod.
    std::vector<std::unique_ptr<PodBatch>> batches;
    if (!one_by_one) {
      util::StatusOr<std::unique_ptr<PodBatch>> batch = cluster_->PreparePods(pods);
      if (!batch.ok()) return batch.status();
      batches.push_back(std::move(batch).value());
    }
    for (size_t i = 0; one_by_one && i < pods.size(); ++i) {
      util::StatusOr<std::unique_ptr<PodBatch>> batch = cluster_->PreparePods(std::vector<json>(1, std::move(pods[i])));
      if (!batch.ok()) return batch.status();
      batches.push_back(std::move(batch).value());
    }
    pods.clear();
    const std::string ns = op.namespace_;
    const int64_t already = cluster_->Scheduled().Get(ns);
    const int64_t target = already + op.count;
    expected_[ns] += op.count;
    r_.pods_created += op.count;

    std::unique_ptr<ThroughputCollector> collector;
    MetricsPoint before;
    const Steady::time_point t0 = Steady::now();
    if (op.collect_metrics) {
      util::StatusOr<MetricsPoint> taken = MetricsPoint::Take(*cluster_);
      if (!taken.ok()) return taken.status();
      before = std::move(taken).value();
      Cluster* c = cluster_.get();
      collector = std::make_unique<ThroughputCollector>([c, ns] { return c->Scheduled().Get(ns); },
                                                        o_.sample_interval);
      collector->Start();
    }
    // Under callgrind (insn_count) instructions are counted from here until
    // the measured pods' binding cycles have ended.
    if (op.collect_metrics) StartInstructionCount();
    for (size_t i = 0; i < batches.size() && s.ok(); ++i) {
      if (open_loop) {
        std::this_thread::sleep_until(
            t0 + std::chrono::duration_cast<Steady::duration>(
                     std::chrono::duration<double>(static_cast<double>(i) / o_.arrival_rate)));
        sent_at.push_back(Steady::now());
        s = cluster_->CreatePods(*batches[i]);
        continue;
      }
      s = cluster_->CreatePods(*batches[i]);
      if (!s.ok() || !one_by_one) continue;
      const int64_t bound = already + static_cast<int64_t>(i) + 1;
      if (!cluster_->Scheduled().WaitFor(ns, bound, o_.pod_timeout)) {
        s = util::Internal(fmt::format("namespace {}: pod {} of {} not bound in time", ns, i + 1, op.count));
      }
      cluster_->WaitForBindingCycles();
    }
    const double create_secs = SecondsSince(t0);
    if (!s.ok()) {
      if (op.collect_metrics) StopInstructionCount();
      if (collector) collector->Stop();
      return s;
    }
    bool done = true;
    if (!op.skip_wait) done = cluster_->Scheduled().WaitFor(ns, target, o_.pod_timeout);
    const double secs = SecondsSince(t0);
    if (op.collect_metrics) {
      std::vector<double> samples = collector->Stop();
      cluster_->WaitForBindingCycles();
      StopInstructionCount();
      util::StatusOr<MetricsPoint> taken = MetricsPoint::Take(*cluster_);
      if (!taken.ok()) return taken.status();
      const MetricsPoint& after = *taken;
      r_.samples.insert(r_.samples.end(), samples.begin(), samples.end());
      r_.measured_pods += op.count;
      r_.measured_scheduled += cluster_->Scheduled().Get(ns) - already;
      r_.measure_seconds += secs;
      r_.create_seconds += create_secs;
      r_.cpu_seconds += after.cpu - before.cpu;
      for (const auto& [process, cpu] : after.control_plane_cpu) {
        auto was = before.control_plane_cpu.find(process);
        r_.control_plane_cpu_seconds[process] += cpu - (was == before.control_plane_cpu.end() ? 0 : was->second);
      }
      AddHistogram(r_.attempt_scheduled, after.scheduled - before.scheduled);
      AddHistogram(r_.sli, after.sli - before.sli);
      for (size_t i = 0; i < open_loop_names.size(); ++i) {
        std::optional<Steady::time_point> bound = cluster_->Scheduled().BoundAt(ns, open_loop_names[i]);
        if (!bound) continue;
        r_.pod_latency_ms.push_back(std::chrono::duration<double, std::milli>(*bound - sent_at[i]).count());
      }
      r_.attempts_unschedulable += (after.unschedulable - before.unschedulable).count;
      r_.attempts_error += (after.error - before.error).count;
      r_.preemption_attempts += static_cast<int64_t>(after.preemption_attempts - before.preemption_attempts);
      r_.preemptions += static_cast<int64_t>(after.preemptions - before.preemptions);
      r_.preemption_victims += static_cast<int64_t>(after.victims - before.victims);
      Accumulate(r_.extension_points, Subtract(after.extension_points, before.extension_points));
      Accumulate(r_.plugins, Subtract(after.plugins, before.plugins));
    }
    Log(fmt::format("{} {} pods in {} (created in {:.2f}s){}: {:.2f}s", done ? "scheduled" : "TIMED OUT on",
                    op.count, ns, create_secs, op.collect_metrics ? " [measured]" : "", secs));
    if (!done) {
      return util::Internal(fmt::format("namespace {}: {} of {} pods bound after {:.0f}s", ns,
                                        cluster_->Scheduled().Get(ns) - already, op.count, secs));
    }
    return util::Status();
  }

  void Churn(const Op& op) {
    int64_t rounds = 0;
    std::unique_lock<std::mutex> l(churn_mu_);
    // The first round runs even when the measured pods are done before this
    // thread starts (a tiny workload in process): a churn op always creates.
    while (rounds == 0 || (!churn_stop_ && (op.number <= 0 || rounds < op.number))) {
      l.unlock();
      std::vector<json> pods;
      for (const json& t : op.churn_templates) pods.push_back(Instantiate(t, namer_.Next(t), op.namespace_));
      util::StatusOr<std::unique_ptr<PodBatch>> batch = cluster_->PreparePods(pods);
      util::Status s = batch.ok() ? cluster_->CreatePods(**batch) : batch.status();
      if (!s.ok()) spdlog::warn("churn: {}", s.ToString());
      churn_created_ += static_cast<int64_t>(pods.size());
      ++rounds;
      l.lock();
      churn_cv_.wait_for(l, op.interval, [&] { return churn_stop_; });
    }
    churn_namespace_ = op.namespace_;
  }

  // Scheduling attempts so far, whatever their result.
  util::StatusOr<uint64_t> Attempts() {
    util::StatusOr<Families> f = cluster_->ScrapeMetrics();
    if (!f.ok()) return f.status();
    uint64_t n = 0;
    for (const char* result : {"scheduled", "unschedulable", "error"}) {
      n += TakeHistogram(*f, kAttemptFamily, {{"result", result}}).count;
    }
    return n;
  }

  // RunOptions::churn_rounds: the rounds at once, then a wait (polling the
  // metrics) until each of their pods has had a scheduling attempt.
  util::Status ChurnRounds(const Op& op) {
    util::StatusOr<uint64_t> before = Attempts();
    if (!before.ok()) return before.status();
    std::vector<json> pods;
    for (int64_t r = 0; r < o_.churn_rounds; ++r) {
      for (const json& t : op.churn_templates) pods.push_back(Instantiate(t, namer_.Next(t), op.namespace_));
    }
    util::StatusOr<std::unique_ptr<PodBatch>> batch = cluster_->PreparePods(pods);
    if (!batch.ok()) return batch.status();
    util::Status s = cluster_->CreatePods(**batch);
    if (!s.ok()) return s;
    churn_created_ += static_cast<int64_t>(pods.size());
    churn_namespace_ = op.namespace_;
    const Steady::time_point deadline = Steady::now() + o_.pod_timeout;
    while (true) {
      util::StatusOr<uint64_t> now = Attempts();
      if (!now.ok()) return now.status();
      if (*now - *before >= pods.size()) break;
      if (Steady::now() > deadline) return util::Internal("churn: its pods were not attempted in time");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    cluster_->WaitForBindingCycles();
    return util::Status();
  }

  void StopChurn() {
    {
      std::lock_guard<std::mutex> l(churn_mu_);
      churn_stop_ = true;
      churn_cv_.notify_all();
    }
    for (std::thread& t : churn_threads_) t.join();
    churn_threads_.clear();
    r_.churn_created = churn_created_;
  }

  void Verify() {
    // Pods evicted by preemption are gone: every other pod must be bound,
    // so the pods missing from the namespaces are exactly the victims.
    int64_t missing = 0;
    for (const auto& [ns, n] : expected_) {
      util::StatusOr<int64_t> bound = cluster_->CountBoundPods(ns);
      if (!bound.ok()) {
        r_.error = "reading back " + ns + ": " + bound.status().ToString();
        return;
      }
      missing += n - *bound;
    }
    util::StatusOr<Families> scraped = cluster_->ScrapeMetrics();
    if (!scraped.ok()) {
      r_.error = "reading the scheduler's metrics: " + scraped.status().ToString();
      return;
    }
    const auto victims = static_cast<int64_t>(TakeHistogram(*scraped, kPreemptionVictimsFamily).sum);
    r_.victims_total = victims;
    r_.pods_evicted = missing;
    if (missing > victims) {
      for (const auto& [ns, n] : expected_) {
        util::StatusOr<int64_t> bound = cluster_->CountBoundPods(ns);
        r_.error += fmt::format("{}namespace {}: {} of {} pods have a node", r_.error.empty() ? "" : "; ", ns,
                                bound.ok() ? *bound : -1, n);
      }
      r_.error += fmt::format(" ({} preemption victims)", victims);
      return;
    }
    if (!churn_namespace_.empty()) {
      util::StatusOr<int64_t> bound = cluster_->CountBoundPods(churn_namespace_);
      if (bound.ok()) r_.churn_bound = *bound;
    }
    if (w_.UsesResourceClaims()) {
      // Bound is not enough for a pod with claims: each must be allocated on
      // its node, no device twice.
      util::StatusOr<ClaimCheck> claims = cluster_->CheckResourceClaims();
      if (!claims.ok()) {
        r_.error = "ResourceClaims: " + claims.status().message();
        return;
      }
      r_.pods_with_claims = claims->pods;
      r_.claims_allocated = claims->claims;
      r_.devices_allocated = claims->devices;
    }
    r_.verified = true;
  }

  const Workload& w_;
  const RunOptions& o_;
  WorkloadResult r_;
  std::unique_ptr<Cluster> cluster_;
  Namer namer_;
  std::set<std::string> namespaces_;
  std::map<std::string, int64_t> expected_;  // namespace -> pods created (not churn)
  // What createAny made, for allocResourceClaims and claims_from_templates.
  std::vector<json> slices_;
  std::map<std::string, std::vector<json>> claims_;    // by namespace, created order
  std::map<std::string, json> claim_templates_;        // "namespace/name"

  std::mutex churn_mu_;
  std::condition_variable churn_cv_;
  bool churn_stop_ = false;
  std::vector<std::thread> churn_threads_;
  std::atomic<int64_t> churn_created_{0};
  std::string churn_namespace_;  // written by the churn thread before it exits
};

}  // namespace

WorkloadResult RunWorkload(const Workload& workload, const RunOptions& options) {
  Run run(workload, options);
  return run.Go();
}

}  // namespace ksched::bench
