// Fixture for PriorityQueue tests: a queue wired with PrioritySort,
// SchedulingGates and fake plugins whose hints the tests control.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/queuesort/priority_sort.h"
#include "pkg/scheduler/plugins/schedulinggates/scheduling_gates.h"
#include "pkg/scheduler/queue/priority_queue.h"
#include "pkg/scheduler/queue/queue_test_util.h"

namespace ksched::scheduler::queue::testing {

using framework::ActionType;
using framework::ClusterEvent;
using framework::EventObject;
using framework::QueuedPodInfoPtr;
using framework::QueueingHint;
using PodPtr = std::shared_ptr<const api::Pod>;
using namespace std::chrono_literals;

struct Mode {
  bool hints;
  bool pop_from_backoff;
  std::string Name() const {
    return std::string(hints ? "hints" : "nohints") + (pop_from_backoff ? "+popbackoff" : "");
  }
};
inline const Mode kAllModes[] = {{true, true}, {true, false}, {false, true}, {false, false}};

// Events the fake plugins register.
inline const ClusterEvent kNodeAdd(framework::resource::kNode, ActionType::kAdd);
inline const ClusterEvent kNodeAllocatable(framework::resource::kNode, ActionType::kUpdateNodeAllocatable);
inline const ClusterEvent kPodDelete(framework::resource::kPod, ActionType::kDelete);
inline const ClusterEvent kAssignedPodDelete = framework::kEventAssignedPodDelete;
inline const ClusterEvent kPvAdd(framework::resource::kPersistentVolume, ActionType::kAdd);

class PriorityQueueTest : public ::testing::Test {
 protected:
  // Plugins: "Fit" (Node/Add|UpdateNodeAllocatable, hint fit_hint_),
  // "Spread" (Pod/Delete|UpdatePodLabel, hint spread_hint_), "Pend" (Node/Add, hint
  // pend_hint_), "Silent" (registers nothing), SchedulingGates (PreEnqueue),
  // and "Gate2", a PreEnqueue gate registered for PV/Add.
  void Build(Mode mode, std::function<void(PriorityQueueOptions&)> tweak = nullptr) {
    queue_.reset();
    mode_ = mode;
    fit_hint_ = spread_hint_ = pend_hint_ = QueueingHint::kQueue;
    hint_error_ = false;
    hint_busy_ = util::Duration::zero();
    fit_calls_ = spread_calls_ = pend_calls_ = 0;
    last_hint_pod_.clear();
    last_old_ = last_new_ = EventObject();
    clock_ = std::make_unique<util::FakeClock>();
    metrics_ = std::make_unique<CountingQueueMetrics>();
    framework::FeatureGates gates;
    gates.scheduler_queueing_hints = mode.hints;
    gates.scheduler_pop_from_backoff_q = mode.pop_from_backoff;
    scheduling_gates_ = plugins::schedulinggates::New(gates);
    auto hint = [this](QueueingHint* h, int* calls) -> framework::QueueingHintFn {
      return [this, h, calls](const api::Pod& pod, const EventObject& o,
                              const EventObject& n) -> util::StatusOr<QueueingHint> {
        ++*calls;
        last_hint_pod_ = pod.metadata.name;
        last_old_ = o;
        last_new_ = n;
        // Real time, spent inside the hint: what its duration metric measures.
        const auto until = std::chrono::steady_clock::now() + hint_busy_;
        while (std::chrono::steady_clock::now() < until) {
        }
        if (hint_error_) return util::Internal("hint failed");
        return *h;
      };
    };
    fit_ = std::make_unique<FakePlugin>(
        "Fit", std::vector<framework::ClusterEventWithHint>{
                   {ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeAllocatable),
                    hint(&fit_hint_, &fit_calls_)}});
    spread_ = std::make_unique<FakePlugin>(
        "Spread", std::vector<framework::ClusterEventWithHint>{
                      {ClusterEvent(framework::resource::kPod, ActionType::kDelete | ActionType::kUpdatePodLabel),
                       hint(&spread_hint_, &spread_calls_)}});
    pend_ = std::make_unique<FakePlugin>(
        "Pend", std::vector<framework::ClusterEventWithHint>{{kNodeAdd, hint(&pend_hint_, &pend_calls_)}});
    silent_ = std::make_unique<FakePlugin>("Silent");
    gate2_ = std::make_unique<FakePreEnqueue>("Gate2",
                                              std::vector<framework::ClusterEventWithHint>{{kPvAdd, nullptr}});
    auto map = BuildQueueingHintMap(
        {scheduling_gates_.get(), fit_.get(), spread_.get(), pend_.get(), silent_.get(), gate2_.get()},
        gates);
    ASSERT_TRUE(map.ok()) << map.status().ToString();
    PriorityQueueOptions opts;
    opts.clock = clock_.get();
    opts.features = gates;
    opts.metrics = metrics_.get();
    opts.queueing_hint_map.emplace(kProfile, std::move(map).value());
    opts.pre_enqueue_plugins[kProfile] = {scheduling_gates_.get(), gate2_.get()};
    if (tweak) tweak(opts);
    queue_ = std::make_unique<PriorityQueue>(sort_, std::move(opts));
  }

  PriorityQueue& q() { return *queue_; }

  // Where the pod is: "active", "backoff", "unschedulable", "gated",
  // "inflight", "none", or "a+b" when in several places.
  std::string Where(const api::Pod& pod) {
    std::vector<std::string> places;
    auto in = [&](const std::vector<PodPtr>& v) {
      return std::any_of(v.begin(), v.end(), [&](const PodPtr& p) { return p->metadata.uid == pod.metadata.uid; });
    };
    if (in(q().PodsInActiveQ())) places.push_back("active");
    if (in(q().PodsInBackoffQ())) places.push_back("backoff");
    if (in(q().UnschedulablePods())) {
      auto info = q().GetPod(pod.metadata.name, pod.metadata.namespace_);
      places.push_back(info && info->Gated() ? "gated" : "unschedulable");
    }
    if (in(q().InFlightPods())) places.push_back("inflight");
    if (places.empty()) return "none";
    std::string out = places[0];
    for (size_t i = 1; i < places.size(); ++i) out += "+" + places[i];
    return out;
  }

  // Pops without risking a hang: fails the test if nothing is poppable.
  QueuedPodInfoPtr PopNow() {
    bool poppable = !q().PodsInActiveQ().empty() || (mode_.pop_from_backoff && !q().PodsInBackoffQ().empty());
    EXPECT_TRUE(poppable) << "nothing to pop";
    if (!poppable) return nullptr;
    return q().Pop();
  }

  // Fails a popped pod with the given rejectors, as the failure handler does.
  void Fail(const QueuedPodInfoPtr& info, std::initializer_list<std::string_view> unschedulable,
            std::initializer_list<std::string_view> pending = {}) {
    ASSERT_NE(info, nullptr);
    for (auto p : unschedulable) info->unschedulable_plugins.Insert(p);
    for (auto p : pending) info->pending_plugins.Insert(p);
    util::Status s = q().AddUnschedulableIfNotPresent(info, q().SchedulingCycle());
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Adds `pod`, pops it and fails it with `plugins`.
  QueuedPodInfoPtr AddPopFail(const PodPtr& pod, std::initializer_list<std::string_view> plugins,
                              std::initializer_list<std::string_view> pending = {}) {
    q().Add(pod);
    QueuedPodInfoPtr info = PopNow();
    EXPECT_NE(info, nullptr);
    if (info == nullptr) return nullptr;
    EXPECT_EQ(info->pod().metadata.uid, pod->metadata.uid);
    Fail(info, plugins, pending);
    return info;
  }

  void MoveAll(const ClusterEvent& e, EventObject old_obj = {}, EventObject new_obj = {},
               PreEnqueueCheck check = nullptr) {
    q().MoveAllToActiveOrBackoffQueue(e, old_obj, new_obj, check);
  }

  Mode mode_{true, true};
  std::unique_ptr<util::FakeClock> clock_;
  std::unique_ptr<CountingQueueMetrics> metrics_;
  plugins::queuesort::PrioritySort sort_;
  std::unique_ptr<plugins::schedulinggates::SchedulingGates> scheduling_gates_;
  std::unique_ptr<FakePlugin> fit_, spread_, pend_, silent_;
  std::unique_ptr<FakePreEnqueue> gate2_;
  QueueingHint fit_hint_ = QueueingHint::kQueue;
  QueueingHint spread_hint_ = QueueingHint::kQueue;
  QueueingHint pend_hint_ = QueueingHint::kQueue;
  bool hint_error_ = false;
  util::Duration hint_busy_{};  // how long each hint runs
  int fit_calls_ = 0, spread_calls_ = 0, pend_calls_ = 0;
  std::string last_hint_pod_;
  EventObject last_old_, last_new_;
  std::unique_ptr<PriorityQueue> queue_;
};

}  // namespace ksched::scheduler::queue::testing
