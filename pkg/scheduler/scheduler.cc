#include "pkg/scheduler/scheduler.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include <spdlog/spdlog.h>

#include "pkg/log/log.h"
#include "pkg/scheduler/queue/queueing_hint_map.h"
#include "pkg/util/seconds.h"
#include "pkg/util/thread_name.h"
#include "pkg/util/usable_cores.h"

namespace ksched::scheduler {

namespace rt = framework::runtime;

namespace {

// Drops the plugins of kube's default set (entries without an origin: the
// user did not write them) that this build does not register, warning once
// each, so a configuration written for kube-scheduler runs on a ksched that
// does not implement every default plugin (a registry built without some
// in-tree plugins, as in tests). A plugin the user enabled explicitly must exist: the
// framework rejects it.
config::KubeSchedulerProfile WithoutUnavailableDefaults(const config::KubeSchedulerProfile& profile,
                                                        const framework::Registry& registry) {
  config::KubeSchedulerProfile out = profile;
  std::set<std::string> dropped;
  for (config::ExtensionPoint point : config::kAllExtensionPoints) {
    std::vector<config::Plugin>& enabled = out.plugins.Get(point).enabled;
    std::erase_if(enabled, [&](const config::Plugin& p) {
      if (!p.origin.empty() || registry.Has(p.name)) return false;
      dropped.insert(p.name);
      return true;
    });
  }
  for (const std::string& name : dropped) {
    spdlog::warn("profile \"{}\": default plugin {} is not available in this build; running without it",
                 profile.scheduler_name.value_or(config::kDefaultSchedulerName), name);
  }
  return out;
}

}  // namespace

// The queue as the framework's PodNominator. Created before the queue;
// NominatedPodsForNode is only called during scheduling cycles, once the
// queue exists.
class Scheduler::Nominator final : public framework::PodNominator {
 public:
  explicit Nominator(Scheduler& s) : s_(s) {}
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view node_name) const override {
    if (s_.queue_ == nullptr) return {};
    return s_.queue_->NominatedPodsForNode(node_name);
  }
  bool HasNominatedPods() const override { return s_.queue_ != nullptr && s_.queue_->HasNominatedPods(); }

 private:
  Scheduler& s_;
};

class Scheduler::Activator final : public framework::PodActivator {
 public:
  explicit Activator(Scheduler& s) : s_(s) {}
  void Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods) override {
    if (s_.queue_ != nullptr) s_.queue_->Activate(pods);
  }

 private:
  Scheduler& s_;
};

// Preemption's writes go through the API writer (asynchronous, retried);
// its metrics to the scheduler's families. Eviction completions call back
// into the profiles' plugins, which the scheduler owns and the API writer
// may outlive: Close() (at Stop) makes later completions do nothing, and
// waits for one that is running. The guard is recursive because a
// completion may start the next eviction, whose completion can run at once
// on the same thread.
class Scheduler::Preemption final : public framework::PreemptionWriter {
 public:
  explicit Preemption(Scheduler& s) : s_(s), guard_(std::make_shared<Guard>()) {}
  void DeleteVictim(const api::Pod& victim, const api::Pod& preemptor, VictimDone done) override {
    std::string message = preemptor.spec.scheduler_name + ": preempting to accommodate a higher priority pod";
    if (s_.options_.api_writer == nullptr) {
      if (done) done(util::Status::Ok());
      return;
    }
    if (!done) {
      s_.options_.api_writer->DeleteVictim(victim, message);
      return;
    }
    s_.options_.api_writer->DeleteVictim(victim, message, [guard = guard_, done = std::move(done)](util::Status st) {
      std::lock_guard<std::recursive_mutex> l(guard->mu);
      if (guard->open) done(std::move(st));
    });
  }
  void RecordPreempted(const api::Pod& victim, const api::Pod& preemptor, std::string_view node_name,
                       bool in_memory) override {
    s_.RecordEvent(apiwriter::PreemptedEvent(victim, preemptor, preemptor.spec.scheduler_name, node_name, in_memory));
    if (s_.options_.observer != nullptr) s_.options_.observer->ObservePreemptionVictim(preemptor, victim, node_name);
  }
  void ClearNominatedNodeName(const api::Pod& pod) override {
    if (s_.options_.api_writer == nullptr || pod.status.nominated_node_name.empty()) return;
    apiwriter::PodStatusUpdate update;
    update.nominated_node_name = "";
    s_.options_.api_writer->UpdatePodStatus(pod, update);
  }
  void ObservePreemptionAttempt() override {
    if (s_.options_.metrics != nullptr) s_.options_.metrics->PreemptionAttempts().Increment();
  }
  void ObservePreemptionVictims(int victims) override {
    if (s_.options_.metrics != nullptr) s_.options_.metrics->PreemptionVictims().Observe(victims);
  }
  void ObservePreemptionGoroutine(bool success, util::Duration elapsed) override {
    if (s_.options_.metrics == nullptr) return;
    const auto r = success ? metrics::GoroutineResult::kSuccess : metrics::GoroutineResult::kError;
    if (prometheus::Histogram* h = s_.options_.metrics->PreemptionGoroutinesDuration(r)) {
      h->Observe(util::Seconds(elapsed));
    }
    s_.options_.metrics->PreemptionGoroutinesExecution(r).Increment();
  }
  void Close() {
    std::lock_guard<std::recursive_mutex> l(guard_->mu);
    guard_->open = false;
  }

 private:
  struct Guard {
    std::recursive_mutex mu;
    bool open = true;
  };
  Scheduler& s_;
  const std::shared_ptr<Guard> guard_;
};

Scheduler::Scheduler(SchedulerOptions options)
    : options_(std::move(options)),
      clock_(*options_.clock),
      cache_(cache::CacheOptions{.clock = options_.clock}),
      rng_(options_.seed != 0 ? options_.seed : std::random_device{}()) {}

util::StatusOr<std::unique_ptr<Scheduler>> Scheduler::New(const config::KubeSchedulerConfiguration& config,
                                                          const framework::Registry& registry,
                                                          SchedulerOptions options) {
  std::unique_ptr<Scheduler> s(new Scheduler(std::move(options)));
  util::Status st = s->Init(config, registry);
  if (!st.ok()) return st;
  return s;
}

util::Status Scheduler::Init(const config::KubeSchedulerConfiguration& config, const framework::Registry& registry) {
  if (config.profiles.empty()) return util::InvalidArgument("the configuration has no profiles");
  listers_ = options_.listers != nullptr ? options_.listers : &empty_listers_;
  percentage_of_nodes_to_score_ = config.percentage_of_nodes_to_score.value_or(0);

  if (options_.metrics != nullptr) framework_metrics_ = std::make_unique<FrameworkMetrics>(*options_.metrics);
  queue_metrics_ = std::make_unique<QueueMetrics>(options_.metrics, options_.extra_queue_metrics);
  nominator_ = std::make_unique<Nominator>(*this);
  activator_ = std::make_unique<Activator>(*this);
  preemption_ = std::make_unique<Preemption>(*this);
  // kube-scheduler runs `parallelism` goroutines on GOMAXPROCS threads;
  // threads beyond the CPUs the process can use (its affinity mask and CPU
  // limit, as GOMAXPROCS counts them) only add switching.
  int parallelism = config.parallelism.value_or(16);
  parallelizer_ = std::make_unique<util::Parallelizer>(std::max(1, std::min(parallelism, util::UsableCores())));
  waiting_pods_ = std::make_shared<framework::WaitingPodsMap>();
  pods_in_pre_bind_ = std::make_shared<framework::PodsInPreBind>();

  for (const config::KubeSchedulerProfile& profile : config.profiles) {
    rt::FrameworkOptions fo;
    fo.snapshot_lister = &snapshot_;
    fo.parallelizer = parallelizer_.get();
    fo.clock = &clock_;
    fo.features = options_.features;
    fo.listers = listers_;
    fo.client = options_.binding_client;
    fo.nominator = nominator_.get();
    fo.activator = activator_.get();
    fo.preemption = preemption_.get();
    fo.waiting_pods = waiting_pods_;
    fo.pods_in_pre_bind = pods_in_pre_bind_;
    fo.metrics = framework_metrics_.get();
    fo.observer = options_.observer;
    util::StatusOr<std::unique_ptr<rt::Framework>> fwk =
        rt::Framework::New(registry, WithoutUnavailableDefaults(profile, registry), std::move(fo));
    std::string name = profile.scheduler_name.value_or(config::kDefaultSchedulerName);
    if (!fwk.ok()) {
      return util::Status(fwk.status().code(), "initializing profile \"" + name + "\": " + fwk.status().message());
    }
    if (profiles_.count(name) != 0) return util::InvalidArgument("duplicate profile \"" + name + "\"");
    profiles_.emplace(std::move(name), std::move(fwk).value());
  }

  // Batching follows the heap's tie-breaking; the lowest-name rule of
  // `ksched simulate --tie-break lowest-name` is not kube's and does not batch.
  const bool batching = options_.features.opportunistic_batching && options_.tie_break == HostTieBreak::kRandom;
  for (const auto& [name, fwk] : profiles_) {
    const config::Plugins lists = fwk->ListPlugins();
    for (const config::Plugin& p : lists.pre_bind.enabled) {
      framework::Plugin* plugin = fwk->GetPlugin(p.name);
      if (auto* w = dynamic_cast<framework::BindingWaitWaker*>(plugin)) binding_wait_wakers_.push_back(w);
      if (auto* c = dynamic_cast<framework::BindingWaitCanceller*>(plugin)) binding_wait_cancellers_.push_back(c);
    }
    if (!batching) continue;
    std::vector<std::pair<std::string_view, const framework::SignPlugin*>> signers;
    for (const config::PluginSet* set : {&lists.pre_filter, &lists.filter, &lists.pre_score, &lists.score}) {
      for (const config::Plugin& p : set->enabled) {
        framework::Plugin* plugin = fwk->GetPlugin(p.name);
        signers.emplace_back(plugin->Name(), dynamic_cast<const framework::SignPlugin*>(plugin));
      }
    }
    batching_.emplace(fwk.get(), std::make_unique<ProfileBatching>(ProfileBatching{
                                     framework::PodSigner(std::move(signers)),
                                     OpportunisticBatch(*fwk, clock_, options_.metrics)}));
  }

  const std::string first = config.profiles[0].scheduler_name.value_or(config::kDefaultSchedulerName);
  const rt::Framework& first_fwk = *profiles_.at(first);

  queue::PriorityQueueOptions qo;
  qo.clock = &clock_;
  qo.pod_initial_backoff = std::chrono::seconds(config.pod_initial_backoff_seconds.value_or(1));
  qo.pod_max_backoff = std::chrono::seconds(config.pod_max_backoff_seconds.value_or(10));
  qo.features = options_.features;
  qo.pod_max_in_unschedulable_pods_duration = options_.pod_max_in_unschedulable_pods_duration;
  qo.metrics = queue_metrics_.get();
  qo.metrics_seed = options_.seed;
  for (const auto& [name, fwk] : profiles_) {
    qo.pre_enqueue_plugins[name] = fwk->PreEnqueuePlugins();
    util::StatusOr<queue::QueueingHintMap> hints =
        queue::BuildQueueingHintMap(fwk->EnqueueExtensionPlugins(), options_.features);
    if (!hints.ok()) {
      return util::Status(hints.status().code(),
                          "building the queueing hints of profile \"" + name + "\": " + hints.status().message());
    }
    qo.queueing_hint_map.emplace(name, std::move(hints).value());
  }
  const framework::SharedListers* listers = listers_;
  qo.pod_lister = [listers](std::string_view ns, std::string_view name) { return listers->Pods().Get(ns, name); };
  qo.namespace_labels = [listers](std::string_view ns) -> std::optional<api::StringMap> {
    std::shared_ptr<const api::Namespace> n = listers->Namespaces().Get("", ns);
    if (n == nullptr) return std::nullopt;
    return n->metadata.labels;
  };
  queue_ = std::make_unique<queue::PriorityQueue>(first_fwk.QueueSort(), std::move(qo));
  binding_pool_ = std::make_unique<BindingPool>(options_.max_binding_threads);
  return util::Status();
}

Scheduler::~Scheduler() { Stop(); }

rt::Framework* Scheduler::Profile(std::string_view scheduler_name) const {
  auto it = profiles_.find(scheduler_name);
  return it == profiles_.end() ? nullptr : it->second.get();
}

std::vector<std::string> Scheduler::ProfileNames() const {
  std::vector<std::string> out;
  for (const auto& [name, fwk] : profiles_) out.push_back(name);
  return out;
}

void Scheduler::Run() {
  std::lock_guard<std::mutex> l(run_mu_);
  if (running_ || stopping_) return;
  running_ = true;
  queue_->Run();
  loop_thread_ = std::thread([this] {
    util::NameThisThread("sched-loop");
    Loop();
  });
  if (options_.metrics != nullptr) {
    metrics_thread_ = std::thread([this] {
      util::NameThisThread("sched-metrics");
      MetricsLoop();
    });
  }
}

void Scheduler::Loop() {
  while (!stopping_.load()) {
    if (options_.max_binding_backlog > 0) binding_pool_->WaitForBacklogBelow(options_.max_binding_backlog);
    ScheduleOne();
  }
}

void Scheduler::MetricsLoop() {
  std::unique_lock<std::mutex> l(run_mu_);
  while (!stopping_.load()) {
    l.unlock();
    options_.metrics->CacheSize(metrics::CacheType::kNodes).Set(static_cast<double>(cache_.NodeCount()));
    options_.metrics->CacheSize(metrics::CacheType::kPods).Set(static_cast<double>(cache_.PodCount()));
    options_.metrics->CacheSize(metrics::CacheType::kAssumedPods).Set(static_cast<double>(cache_.AssumedPodCount()));
    l.lock();
    const util::TimePoint deadline = clock_.Now() + std::chrono::seconds(1);
    while (!stopping_.load() && clock_.Now() < deadline) clock_.WaitUntil(l, run_cv_, deadline);
  }
}

void Scheduler::Stop() {
  {
    std::lock_guard<std::mutex> l(run_mu_);
    if (stopping_.exchange(true)) return;
  }
  run_cv_.notify_all();
  // Asynchronous preemptions still under way end without the scheduler.
  if (preemption_ != nullptr) preemption_->Close();
  // Wake a Pop blocked on an empty queue. Close also ends the flights of
  // popped pods; their cycles still finish below.
  if (queue_ != nullptr) queue_->Close();
  if (binding_pool_ != nullptr) binding_pool_->StopBacklogWaits();
  if (loop_thread_.joinable()) loop_thread_.join();
  if (metrics_thread_.joinable()) metrics_thread_.join();
  // Pods parked at Permit could hold binding threads for minutes.
  if (waiting_pods_ != nullptr) {
    waiting_pods_->Iterate([](framework::WaitingPod& wp) { wp.Reject("", "scheduler is shutting down"); });
  }
  // PreBind waits (volume binding) would otherwise hold binding threads for
  // up to their own timeouts.
  for (framework::BindingWaitCanceller* c : binding_wait_cancellers_) c->CancelBindingWaits();
  if (binding_pool_ != nullptr) {
    if (!binding_pool_->WaitIdle(clock_, clock_.Now() + options_.binding_drain_timeout)) {
      spdlog::warn("{} binding cycles still running after {}s; {}", binding_pool_->Pending(),
                   std::chrono::duration_cast<std::chrono::seconds>(options_.binding_drain_timeout).count(),
                   options_.on_binding_drain_timeout ? "cancelling their writes" : "waiting for them to end");
      if (options_.on_binding_drain_timeout) options_.on_binding_drain_timeout();
    }
    binding_pool_->Shutdown();
  }
}

void Scheduler::WaitForBindingCycles() { binding_pool_->WaitIdle(); }

std::vector<std::shared_ptr<framework::WaitingPod>> Scheduler::SettleBindingCycles() {
  for (;;) {
    // Only a scheduling cycle adds waiting pods, and none runs meanwhile:
    // with none waiting every cycle in flight ends by itself.
    if (waiting_pods_->size() == 0) {
      binding_pool_->WaitIdle();
      return {};
    }
    // Every undecided waiting pod has a cycle of its own in the pool, and
    // only a running cycle (or this thread) can decide one. Counting the
    // cycles first makes "no more cycles than undecided pods" mean that
    // none was running at the count, so none can run later.
    const size_t in_flight = binding_pool_->Pending();
    std::vector<std::shared_ptr<framework::WaitingPod>> undecided;
    waiting_pods_->Iterate([&](framework::WaitingPod& wp) {
      // Get: the map hands out references; a pod gone meanwhile was decided.
      std::shared_ptr<framework::WaitingPod> held = waiting_pods_->Get(wp.pod()->metadata.uid);
      if (held != nullptr && !held->TryGet().has_value()) undecided.push_back(std::move(held));
    });
    if (in_flight <= undecided.size()) return undecided;
    // A released cycle is on its way (a decision wakes it at once, a passed
    // deadline within the clock's poll slice); no one signal covers both.
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void Scheduler::ForgetPendingPod(const api::Pod& pod) {
  {
    std::lock_guard<std::mutex> l(failures_mu_);
    last_failures_.erase(pod.metadata.uid);
  }
  if (options_.api_writer != nullptr) options_.api_writer->ForgetPod(pod.metadata.namespace_, pod.metadata.name);
}

std::vector<PendingPodDebug> Scheduler::PendingPodsDebug() const {
  std::vector<PendingPodDebug> out;
  auto add = [&](const std::vector<queue::PriorityQueue::PodPtr>& pods, std::string_view which) {
    for (const auto& pod : pods) {
      PendingPodDebug d;
      d.pod = pod;
      d.queue = std::string(which);
      std::optional<framework::QueuedPodInfo> info = queue_->GetPod(pod->metadata.name, pod->metadata.namespace_);
      if (info) {
        d.attempts = info->attempts;
        d.backoff_expiration = info->backoff_expiration;
        d.unschedulable_plugins = info->unschedulable_plugins.names();
        d.pending_plugins = info->pending_plugins.names();
        d.gating_plugin = info->gating_plugin;
        if (which == "unschedulable" && info->Gated()) d.queue = "gated";
      }
      {
        std::lock_guard<std::mutex> l(failures_mu_);
        auto it = last_failures_.find(pod->metadata.uid);
        if (it != last_failures_.end()) d.last_failure_message = it->second;
      }
      out.push_back(std::move(d));
    }
  };
  add(queue_->PodsInActiveQ(), "active");
  add(queue_->PodsInBackoffQ(), "backoff");
  add(queue_->UnschedulablePods(), "unschedulable");
  add(queue_->InFlightPods(), "inFlight");
  return out;
}

double Scheduler::SecondsSince(util::TimePoint t) const {
  return util::Seconds(clock_.Since(t));
}

void Scheduler::ObserveAttempt(metrics::Result result, std::string_view profile, util::TimePoint start) {
  if (options_.metrics != nullptr) options_.metrics->ObserveSchedulingAttempt(result, profile, SecondsSince(start));
}

void Scheduler::RecordEvent(const apiwriter::EventRecord& record) {
  if (options_.api_writer != nullptr) options_.api_writer->RecordEvent(record);
}

}  // namespace ksched::scheduler
