// Test support for the scheduler's unit tests: fake plugins whose answers a
// test sets per node, a fake binding client, and a fixture that builds a
// Scheduler with one profile ("ksched") of those plugins, a FakeClock,
// in-memory listers and an ApiWriter over a FakeApiWriterClient.
//
// Thread-safety: the fakes are thread-safe (Filter/Score run in parallel,
// binding cycles on the binding pool).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/scheduler/apiwriter/api_writer.h"
#include "pkg/scheduler/apiwriter/fake_api_writer_client.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_signature.h"
#include "pkg/scheduler/framework/registry.h"
#include "pkg/metrics/scheduler_metrics.h"
#include "pkg/scheduler/framework/test_objects.h"
#include "pkg/scheduler/plugins/queuesort/priority_sort.h"
#include "pkg/scheduler/queue/metrics.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::testing {

using framework::Code;
using framework::Status;

inline constexpr char kProfile[] = "ksched";
inline constexpr char kFakeFilter[] = "FakeFilter";
inline constexpr char kFakePreFilter[] = "FakePreFilter";
inline constexpr char kFakeScore[] = "FakeScore";
inline constexpr char kFakeReserve[] = "FakeReserve";
inline constexpr char kFakeBinder[] = "FakeBinder";

// What the fake plugins answer; tests change it between cycles.
struct Behaviour {
  std::mutex mu;
  // Filter: node -> status (absent: Success).
  std::map<std::string, Status> filter;
  // PreFilter: status and node subset (unset: all nodes), and a hook it runs
  // first (under mu).
  Status pre_filter;
  std::optional<std::set<std::string, std::less<>>> pre_filter_nodes;
  std::function<void(framework::CycleState&)> on_pre_filter;
  // Score: node -> score (absent: 0).
  std::map<std::string, int64_t> score;
  Status reserve;
  // Permit: status and, for Wait, the timeout.
  Status permit;
  util::Duration permit_timeout = std::chrono::seconds(30);
  // PreBind (FakeReserve, when a test enables it there): PreBindPreFlight's
  // answer, and a hook PreBind runs first (with the pod).
  Status pre_bind_pre_flight = Status(Code::kSkip);
  std::function<void(const api::Pod&)> on_pre_bind;
  std::vector<std::string> pre_bound;  // "pod@node"
  // Events FakeFilter registers besides Node/Add and Pod/Delete (read when
  // the scheduler is built).
  std::vector<framework::ClusterEvent> extra_events;
  // Nodes Filter was called for, in call order ("pod@node").
  std::vector<std::string> filtered;
  std::vector<std::string> unreserved;

  Status FilterStatus(const std::string& node) {
    std::lock_guard<std::mutex> l(mu);
    auto it = filter.find(node);
    return it == filter.end() ? Status() : it->second;
  }
};

// PreFilter + Filter. Registers Node/Add and Pod/Delete without hints.
// Signs a pod by its labels (opportunistic batching).
class FakeFilterPlugin final : public framework::SignPlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::EnqueueExtensions {
 public:
  explicit FakeFilterPlugin(Behaviour& b) : b_(b) {}
  std::string_view Name() const override { return kFakeFilter; }
  Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override {
    out.push_back({framework::signer::kLabels, framework::StringMapSignature(pod.metadata.labels)});
    return Status();
  }
  std::pair<framework::PreFilterResult, Status> PreFilter(framework::CycleState& state, const api::Pod&,
                                                          const framework::NodeInfoList&) override {
    std::lock_guard<std::mutex> l(b_.mu);
    if (b_.on_pre_filter) b_.on_pre_filter(state);
    framework::PreFilterResult r;
    r.node_names = b_.pre_filter_nodes;
    return {r, b_.pre_filter};
  }
  Status Filter(framework::CycleState&, const api::Pod& pod, const framework::NodeInfo& ni) override {
    {
      std::lock_guard<std::mutex> l(b_.mu);
      b_.filtered.push_back(pod.metadata.name + "@" + ni.node_name());
    }
    return b_.FilterStatus(ni.node_name());
  }
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override {
    std::vector<framework::ClusterEventWithHint> out = {
        {framework::ClusterEvent(framework::resource::kNode, framework::ActionType::kAdd), nullptr},
        {framework::ClusterEvent(framework::resource::kPod, framework::ActionType::kDelete), nullptr},
    };
    std::lock_guard<std::mutex> l(b_.mu);
    for (const framework::ClusterEvent& e : b_.extra_events) out.push_back({e, nullptr});
    return out;
  }

 private:
  Behaviour& b_;
};

class FakeScorePlugin final : public framework::SignPlugin, public framework::ScorePlugin {
 public:
  explicit FakeScorePlugin(Behaviour& b) : b_(b) {}
  std::string_view Name() const override { return kFakeScore; }
  Status SignPod(const api::Pod&, std::vector<framework::SignFragment>&) const override { return Status(); }
  std::pair<int64_t, Status> Score(framework::CycleState&, const api::Pod&, const framework::NodeInfo& ni) override {
    std::lock_guard<std::mutex> l(b_.mu);
    auto it = b_.score.find(ni.node_name());
    return {it == b_.score.end() ? 0 : it->second, Status()};
  }

 private:
  Behaviour& b_;
};

// Reserve + Permit + PreBind.
class FakeReservePlugin final : public framework::ReservePlugin,
                                public framework::PermitPlugin,
                                public framework::PreBindPlugin,
                                public framework::EnqueueExtensions {
 public:
  explicit FakeReservePlugin(Behaviour& b) : b_(b) {}
  std::string_view Name() const override { return kFakeReserve; }
  Status Reserve(framework::CycleState&, const api::Pod&, std::string_view) override {
    std::lock_guard<std::mutex> l(b_.mu);
    return b_.reserve;
  }
  void Unreserve(framework::CycleState&, const api::Pod& pod, std::string_view node) override {
    std::lock_guard<std::mutex> l(b_.mu);
    b_.unreserved.push_back(pod.metadata.name + "@" + std::string(node));
  }
  std::pair<Status, util::Duration> Permit(framework::CycleState&, const api::Pod&, std::string_view) override {
    std::lock_guard<std::mutex> l(b_.mu);
    return {b_.permit, b_.permit_timeout};
  }
  Status PreBindPreFlight(framework::CycleState&, const api::Pod&, std::string_view) override {
    std::lock_guard<std::mutex> l(b_.mu);
    return b_.pre_bind_pre_flight;
  }
  Status PreBind(framework::CycleState&, const api::Pod& pod, std::string_view node) override {
    if (b_.on_pre_bind) b_.on_pre_bind(pod);
    std::lock_guard<std::mutex> l(b_.mu);
    b_.pre_bound.push_back(pod.metadata.name + "@" + std::string(node));
    return Status();
  }
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override {
    return std::vector<framework::ClusterEventWithHint>{
        {framework::ClusterEvent(framework::resource::kNode, framework::ActionType::kAdd), nullptr}};
  }

 private:
  Behaviour& b_;
};

// The DefaultBinder's behaviour: POST the binding through Handle::Client().
class FakeBinderPlugin final : public framework::BindPlugin {
 public:
  explicit FakeBinderPlugin(framework::Handle& h) : h_(h) {}
  std::string_view Name() const override { return kFakeBinder; }
  Status Bind(framework::CycleState&, const api::Pod& pod, std::string_view node) override {
    util::Status s = h_.Client()->Bind(pod, node);
    return s.ok() ? Status() : Status::FromError(s);
  }

 private:
  framework::Handle& h_;
};

class FakeBindingClient final : public framework::BindingClient {
 public:
  util::Status Bind(const api::Pod& pod, std::string_view node) override {
    std::lock_guard<std::mutex> l(mu_);
    if (throw_for_.count(pod.metadata.name) != 0) throw std::runtime_error("binder bug");
    binds_.push_back(pod.metadata.name + "@" + std::string(node));
    auto it = errors_.find(pod.metadata.name);
    if (it != errors_.end()) return it->second;
    return util::Status();
  }
  void FailBinding(const std::string& pod_name, util::Status s) {
    std::lock_guard<std::mutex> l(mu_);
    errors_[pod_name] = std::move(s);
  }
  // Bind throws for the pod (a bug in a binder).
  void ThrowOnBind(const std::string& pod_name) {
    std::lock_guard<std::mutex> l(mu_);
    throw_for_.insert(pod_name);
  }
  std::vector<std::string> Binds() {
    std::lock_guard<std::mutex> l(mu_);
    return binds_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> binds_;
  std::map<std::string, util::Status> errors_;
  std::set<std::string> throw_for_;
};

inline framework::Registry FakeRegistry(Behaviour& b) {
  framework::Registry r;
  using framework::Handle;
  using framework::Plugin;
  using PluginPtr = util::StatusOr<std::shared_ptr<Plugin>>;
  (void)r.Register(std::string(plugins::queuesort::kName),
                   [](const config::PluginArgs&, Handle&) -> PluginPtr {
                     return std::shared_ptr<Plugin>(plugins::queuesort::New());
                   });
  (void)r.Register(kFakeFilter, [&b](const config::PluginArgs&, Handle&) -> PluginPtr {
    return std::shared_ptr<Plugin>(std::make_shared<FakeFilterPlugin>(b));
  });
  (void)r.Register(kFakeScore, [&b](const config::PluginArgs&, Handle&) -> PluginPtr {
    return std::shared_ptr<Plugin>(std::make_shared<FakeScorePlugin>(b));
  });
  (void)r.Register(kFakeReserve, [&b](const config::PluginArgs&, Handle&) -> PluginPtr {
    return std::shared_ptr<Plugin>(std::make_shared<FakeReservePlugin>(b));
  });
  (void)r.Register(kFakeBinder, [](const config::PluginArgs&, Handle& h) -> PluginPtr {
    return std::shared_ptr<Plugin>(std::make_shared<FakeBinderPlugin>(h));
  });
  return r;
}

inline config::Plugin P(const char* name) { return config::Plugin{name, std::nullopt, ""}; }

// One profile "ksched": PrioritySort, FakeFilter (PreFilter+Filter),
// FakeScore (unless `with_score` is false), FakeReserve (Reserve+Permit;
// tests may enable its PreBind), FakeBinder.
inline config::KubeSchedulerConfiguration FakeConfig(bool with_score = true) {
  config::KubeSchedulerConfiguration c;
  c.parallelism = 4;
  c.percentage_of_nodes_to_score = 0;
  c.pod_initial_backoff_seconds = 1;
  c.pod_max_backoff_seconds = 10;
  config::KubeSchedulerProfile p;
  p.scheduler_name = kProfile;
  p.plugins.queue_sort.enabled = {P(plugins::queuesort::kName.data())};
  p.plugins.pre_filter.enabled = {P(kFakeFilter)};
  p.plugins.filter.enabled = {P(kFakeFilter)};
  if (with_score) p.plugins.score.enabled = {P(kFakeScore)};
  p.plugins.reserve.enabled = {P(kFakeReserve)};
  p.plugins.permit.enabled = {P(kFakeReserve)};
  p.plugins.bind.enabled = {P(kFakeBinder)};
  c.profiles.push_back(std::move(p));
  return c;
}

// A Scheduler over the fakes. Pods must be added to `listers.pods` (the
// "informer") for the failure handler to requeue them.
class SchedulerFixture {
 public:
  // `registry` empty: the fakes' (FakeRegistry).
  explicit SchedulerFixture(config::KubeSchedulerConfiguration config = FakeConfig(),
                            framework::FeatureGates features = {},
                            std::vector<framework::ClusterEvent> extra_events = {},
                            std::optional<framework::Registry> registry = std::nullopt,
                            framework::CycleObserver* observer = nullptr)
      : writer_client_(clock_),
        writer_(writer_client_, clock_),
        registry_(registry ? std::move(*registry) : FakeRegistry(behaviour_)) {
    behaviour_.extra_events = std::move(extra_events);
    SchedulerOptions o;
    o.clock = &clock_;
    o.features = features;
    o.binding_client = &binding_client_;
    o.api_writer = &writer_;
    o.listers = &listers_;
    o.extra_queue_metrics = &queue_metrics_;
    o.metrics = &metrics_;
    o.seed = 42;
    o.observer = observer;
    auto s = Scheduler::New(config, registry_, std::move(o));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (s.ok()) sched_ = std::move(s).value();
  }
  ~SchedulerFixture() {
    if (sched_) sched_->Stop();
    writer_.Stop();
  }

  Scheduler& sched() { return *sched_; }
  Behaviour& behaviour() { return behaviour_; }
  util::FakeClock& clock() { return clock_; }
  FakeBindingClient& binding_client() { return binding_client_; }
  apiwriter::testing::FakeApiWriterClient& writer_client() { return writer_client_; }
  apiwriter::ApiWriter& writer() { return writer_; }
  framework::InMemorySharedListers& listers() { return listers_; }
  queue::CountingQueueMetrics& queue_metrics() { return queue_metrics_; }
  metrics::SchedulerMetrics& metrics() { return metrics_; }

  void AddNode(const std::shared_ptr<const api::Node>& n) { sched_->Cache().AddNode(n); }
  // Adds the pod to the "informer" and to the queue.
  void AddPod(const std::shared_ptr<const api::Pod>& p) {
    listers_.pods.Set(p);
    sched_->Queue().Add(p);
  }
  // Runs one scheduling cycle and waits for its binding cycle.
  void ScheduleOne() {
    sched_->ScheduleOne();
    sched_->WaitForBindingCycles();
  }
  // The Events created so far, once there are at least `at_least` (the
  // writer sends them asynchronously).
  std::vector<api::Event> CreatedEvents(size_t at_least) {
    using Kind = apiwriter::testing::FakeApiWriterClient::Kind;
    while (writer_client_.CallsOf(Kind::kCreateEvent).size() < at_least) {
      if (!writer_client_.WaitForCalls(writer_client_.Calls().size() + 1)) {
        ADD_FAILURE() << "fewer than " << at_least << " Events were created";
        break;
      }
    }
    std::vector<api::Event> out;
    for (const auto& c : writer_client_.CallsOf(Kind::kCreateEvent)) out.push_back(c.event);
    return out;
  }

 private:
  util::FakeClock clock_;
  Behaviour behaviour_;
  FakeBindingClient binding_client_;
  apiwriter::testing::FakeApiWriterClient writer_client_;
  apiwriter::ApiWriter writer_;
  framework::InMemorySharedListers listers_;
  queue::CountingQueueMetrics queue_metrics_;
  metrics::SchedulerMetrics metrics_;
  framework::Registry registry_;
  std::unique_ptr<Scheduler> sched_;
};

inline std::shared_ptr<const api::Node> Node(const std::string& name) {
  return framework::testing::MakeNode(name).Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj();
}

inline std::shared_ptr<const api::Pod> Pod(const std::string& name) {
  return framework::testing::MakePod(name).SchedulerName(kProfile).Req({{"cpu", "100m"}}).Obj();
}

}  // namespace ksched::scheduler::testing
