// Randomized model test: random sequences of Add/Update/Delete/Pop/fail/
// succeed/events/activation/clock steps run against two queues in lockstep,
// one with the indexed unschedulable pool and one that walks every pod as
// kube-scheduler does. After every step:
// - both queues hold every pod in the same place with the same record;
// - a known pod is in exactly one place (in flight counts as a place; with
//   hints off kube may also requeue an in-flight pod on update);
// - a deleted pod is in no queue;
// - gauges match the real sizes;
// - Pop returns the highest-priority pod of activeQ.
// At the end every in-flight pod is returned, gates are lifted, time passes
// and flushes run: then every remaining pod must be poppable (nothing lost),
// in priority order.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "pkg/scheduler/plugins/queuesort/priority_sort.h"
#include "pkg/scheduler/plugins/schedulinggates/scheduling_gates.h"
#include "pkg/scheduler/queue/priority_queue.h"
#include "pkg/scheduler/queue/queue_test_util.h"

namespace ksched::scheduler::queue {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::EventObject;
using framework::QueuedPodInfoPtr;
using framework::QueueingHint;
using testing::FakePlugin;
using testing::FakePreEnqueue;
using testing::kProfile;
using PodPtr = std::shared_ptr<const api::Pod>;
using namespace std::chrono_literals;

constexpr int kPodNames = 24;

// Deterministic "hash" so hints are pure functions of their inputs.
uint32_t Mix(const std::string& a, const std::string& b) {
  uint32_t h = 2166136261u;
  for (char c : a + "|" + b) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

std::string NameOf(const EventObject& o) { return o.meta() ? o.meta()->name : ""; }

struct InFlight {
  std::string name;
  QueuedPodInfoPtr indexed, naive;
};

struct PodModel {
  PodPtr current;
  bool known = false;
};

class World {
 public:
  World(bool hints, bool pop_backoff) : mode_hints_(hints), pop_backoff_(pop_backoff) {
    framework::FeatureGates gates;
    gates.scheduler_queueing_hints = hints;
    gates.scheduler_pop_from_backoff_q = pop_backoff;
    scheduling_gates_ = plugins::schedulinggates::New(gates);
    auto fit_hint = [](const api::Pod& pod, const EventObject& o,
                       const EventObject& n) -> util::StatusOr<QueueingHint> {
      std::string node = NameOf(n.empty() ? o : n);
      if (node == "err") return util::Internal("broken hint");
      return Mix(pod.metadata.name, node) % 3 != 0 ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
    };
    auto spread_hint = [](const api::Pod& pod, const EventObject& o,
                          const EventObject& n) -> util::StatusOr<QueueingHint> {
      std::string other = NameOf(n.empty() ? o : n);
      return Mix(other, pod.metadata.name) % 2 == 0 ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
    };
    auto pend_hint = [](const api::Pod& pod, const EventObject& o,
                        const EventObject& n) -> util::StatusOr<QueueingHint> {
      return Mix(NameOf(n.empty() ? o : n), pod.metadata.name) % 4 == 0 ? QueueingHint::kQueue
                                                                         : QueueingHint::kQueueSkip;
    };
    fit_ = std::make_unique<FakePlugin>(
        "Fit", std::vector<framework::ClusterEventWithHint>{
                   {ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeAllocatable),
                    fit_hint}});
    spread_ = std::make_unique<FakePlugin>(
        "Spread", std::vector<framework::ClusterEventWithHint>{
                      {ClusterEvent(framework::resource::kPod, ActionType::kDelete | ActionType::kUpdatePodLabel),
                       spread_hint}});
    pend_ = std::make_unique<FakePlugin>(
        "Pend", std::vector<framework::ClusterEventWithHint>{
                    {ClusterEvent(framework::resource::kNode, ActionType::kAdd), pend_hint},
                    {ClusterEvent(framework::resource::kPersistentVolume, ActionType::kAdd), nullptr}});
    silent_ = std::make_unique<FakePlugin>("Silent");
    gate2_ = std::make_unique<FakePreEnqueue>(
        "Gate2", std::vector<framework::ClusterEventWithHint>{
                     {ClusterEvent(framework::resource::kPersistentVolume, ActionType::kAdd), nullptr}});
    auto map = BuildQueueingHintMap(
        {scheduling_gates_.get(), fit_.get(), spread_.get(), pend_.get(), silent_.get(), gate2_.get()}, gates);
    EXPECT_TRUE(map.ok());
    for (bool indexed : {true, false}) {
      PriorityQueueOptions opts;
      opts.clock = &clock_;
      opts.features = gates;
      opts.metrics = indexed ? &metrics_indexed_ : &metrics_naive_;
      opts.queueing_hint_map.emplace(kProfile, *map);
      opts.pre_enqueue_plugins[kProfile] = {scheduling_gates_.get(), gate2_.get()};
      opts.index_unschedulable_pods = indexed;
      (indexed ? indexed_ : naive_) = std::make_unique<PriorityQueue>(sort_, std::move(opts));
    }
    // Unique priorities make Pop deterministic whatever the insertion order.
    std::vector<int32_t> prios(kPodNames);
    for (int i = 0; i < kPodNames; ++i) prios[i] = i * 7 - 50;
    std::shuffle(prios.begin(), prios.end(), std::mt19937(1234));
    for (int i = 0; i < kPodNames; ++i) {
      std::string name = (i % 8 == 7 ? "o" : "p") + std::to_string(i);
      names_.push_back(name);
      priority_[name] = prios[i];
    }
  }

  void Run(uint32_t seed, int steps) {
    rng_.seed(seed);
    for (int i = 0; i < steps && !::testing::Test::HasFailure(); ++i) {
      Step();
      Check();
    }
    if (!::testing::Test::HasFailure()) Drain();
  }

 private:
  int Rand(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }
  bool Chance(int percent) { return Rand(100) < percent; }
  const std::string& RandomName() { return names_[Rand(kPodNames)]; }

  void Both(const std::function<void(PriorityQueue&)>& fn) {
    fn(*indexed_);
    fn(*naive_);
  }

  std::shared_ptr<api::Pod> NewPod(const std::string& name) {
    auto p = testing::MakePod(name, priority_[name]);
    p->metadata.uid = name + "-" + std::to_string(++uid_counter_);
    if (name[0] == 'o') p->spec.scheduler_name = "other-profile";
    if (Chance(20)) p->spec.scheduling_gates.push_back({"gate"});
    return p;
  }

  void Step() {
    int op = Rand(100);
    if (op < 14) {
      OpAdd();
    } else if (op < 26) {
      OpUpdate();
    } else if (op < 31) {
      OpDelete();
    } else if (op < 48) {
      OpPop();
    } else if (op < 62) {
      OpFail();
    } else if (op < 67) {
      OpSucceed();
    } else if (op < 80) {
      OpEvent();
    } else if (op < 84) {
      OpActivate();
    } else if (op < 86) {
      std::string n = RandomName();
      if (gate2_->gated.count(n)) {
        gate2_->gated.erase(n);
      } else {
        gate2_->gated.insert(n);
      }
    } else {
      OpClock();
    }
  }

  void OpAdd() {
    const std::string& name = RandomName();
    PodModel& m = pods_[name];
    if (m.known) return;
    m.current = NewPod(name);
    m.known = true;
    Both([&](PriorityQueue& q) { q.Add(m.current); });
  }

  void OpUpdate() {
    const std::string& name = RandomName();
    PodModel& m = pods_[name];
    if (!m.known) return;
    auto next = std::make_shared<api::Pod>(*m.current);
    next->metadata.resource_version = std::to_string(++uid_counter_);
    switch (Rand(4)) {
      case 0:
        next->metadata.labels["v"] = std::to_string(Rand(3));
        break;
      case 1:
        next->spec.scheduling_gates.clear();
        break;
      case 2:
        next->spec.tolerations.push_back(api::Toleration{"k", "Exists", "", "", std::nullopt});
        break;
      default:
        next->status.conditions.push_back(api::PodCondition{"PodScheduled", "False"});
        break;
    }
    PodPtr old = m.current;
    m.current = next;
    Both([&](PriorityQueue& q) { q.Update(old, next); });
  }

  void OpDelete() {
    const std::string& name = RandomName();
    PodModel& m = pods_[name];
    if (!m.known) return;
    m.known = false;
    Both([&](PriorityQueue& q) { q.Delete(*m.current); });
  }

  bool Poppable() {
    if (!indexed_->PodsInActiveQ().empty()) return true;
    if (!pop_backoff_) return false;
    for (const PodPtr& p : indexed_->PodsInBackoffQ()) {
      auto info = indexed_->GetPod(p->metadata.name, p->metadata.namespace_);
      if (info && info->HasRejectors()) return true;
    }
    return false;
  }

  void OpPop() {
    if (!Poppable()) return;
    std::vector<PodPtr> active = indexed_->PodsInActiveQ();
    QueuedPodInfoPtr a = indexed_->Pop();
    QueuedPodInfoPtr b = naive_->Pop();
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    ASSERT_EQ(a->pod().metadata.uid, b->pod().metadata.uid);
    EXPECT_EQ(a->attempts, b->attempts);
    if (!active.empty()) {
      int32_t best = INT32_MIN;
      for (const PodPtr& p : active) best = std::max(best, p->spec.priority.value_or(0));
      EXPECT_EQ(a->pod().spec.priority.value_or(0), best) << "pop order violates PrioritySort";
    }
    in_flight_.push_back(InFlight{a->pod().metadata.name, a, b});
  }

  void OpFail() {
    if (in_flight_.empty()) return;
    size_t i = static_cast<size_t>(Rand(static_cast<int>(in_flight_.size())));
    InFlight f = in_flight_[i];
    in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(i));
    const PodModel& m = pods_[f.name];
    if (!m.known || m.current->metadata.uid != f.indexed->pod().metadata.uid) {
      // The failure handler finds the pod gone: no requeue.
      Both([&](PriorityQueue& q) { q.Done(f.indexed->pod().metadata.uid); });
      return;
    }
    static const char* kPlugins[] = {"Fit", "Spread", "Silent"};
    std::vector<std::string> unsched;
    std::vector<std::string> pending;
    int kind = Rand(10);
    if (kind < 2) {
      // an error: no rejectors
    } else if (kind < 4) {
      pending.push_back("Pend");
      if (Chance(50)) unsched.push_back(kPlugins[Rand(3)]);
    } else {
      unsched.push_back(kPlugins[Rand(3)]);
      if (Chance(30)) unsched.push_back(kPlugins[Rand(3)]);
    }
    for (const QueuedPodInfoPtr& info : {f.indexed, f.naive}) {
      info->pod_info.Update(m.current);  // the handler refreshes from the informer
      for (auto& s : unsched) info->unschedulable_plugins.Insert(s);
      for (auto& s : pending) info->pending_plugins.Insert(s);
    }
    util::Status si = indexed_->AddUnschedulableIfNotPresent(f.indexed, indexed_->SchedulingCycle());
    util::Status sn = naive_->AddUnschedulableIfNotPresent(f.naive, naive_->SchedulingCycle());
    EXPECT_EQ(si.ok(), sn.ok());
    if (mode_hints_) {
      EXPECT_TRUE(si.ok()) << si.ToString();
    }
  }

  void OpSucceed() {
    if (in_flight_.empty()) return;
    size_t i = static_cast<size_t>(Rand(static_cast<int>(in_flight_.size())));
    InFlight f = in_flight_[i];
    in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(i));
    Both([&](PriorityQueue& q) { q.Done(f.indexed->pod().metadata.uid); });
    PodModel& m = pods_[f.name];
    if (m.known && m.current->metadata.uid == f.indexed->pod().metadata.uid) {
      // Bound: the pod is no longer pending, the informer deletes it from the queue.
      m.known = false;
      Both([&](PriorityQueue& q) { q.Delete(*m.current); });
    }
  }

  void OpEvent() {
    static const char* kNodes[] = {"n1", "n2", "n3", "err"};
    auto node = std::make_shared<api::Node>();
    node->metadata.name = kNodes[Rand(4)];
    auto assigned = testing::MakePod("a" + std::to_string(Rand(5)));
    assigned->spec.node_name = "n1";
    EventObject none;
    switch (Rand(7)) {
      case 0:
        Both([&](PriorityQueue& q) {
          q.MoveAllToActiveOrBackoffQueue(ClusterEvent(framework::resource::kNode, ActionType::kAdd), none,
                                          EventObject(node));
        });
        break;
      case 1:
        Both([&](PriorityQueue& q) {
          q.MoveAllToActiveOrBackoffQueue(
              ClusterEvent(framework::resource::kNode, ActionType::kUpdateNodeAllocatable), EventObject(node),
              EventObject(node));
        });
        break;
      case 2:
        Both([&](PriorityQueue& q) {
          q.MoveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, EventObject(assigned), none);
        });
        break;
      case 3:
        Both([&](PriorityQueue& q) {
          q.MoveAllToActiveOrBackoffQueue(ClusterEvent(framework::resource::kPersistentVolume, ActionType::kAdd),
                                          none, EventObject(std::make_shared<const api::PersistentVolume>()));
        });
        break;
      case 4:
        Both([&](PriorityQueue& q) {
          q.MoveAllToActiveOrBackoffQueue(ClusterEvent(framework::resource::kCSIDriver, ActionType::kAdd), none,
                                          none);
        });
        break;
      case 5: {
        const PodModel& m = pods_[RandomName()];
        EventObject target = m.current ? EventObject(m.current) : EventObject();
        Both([&](PriorityQueue& q) { q.MoveAllToActiveOrBackoffQueue(framework::kEventForceActivate, none, target); });
        break;
      }
      default: {
        // A pre-checked event: only even-priority pods.
        auto check = [](const api::Pod& p) { return p.spec.priority.value_or(0) % 2 == 0; };
        Both([&](PriorityQueue& q) {
          q.MoveAllToActiveOrBackoffQueue(ClusterEvent(framework::resource::kNode, ActionType::kAdd), none,
                                          EventObject(node), check);
        });
        break;
      }
    }
  }

  void OpActivate() {
    std::vector<PodPtr> pods;
    for (int i = Rand(3); i >= 0; --i) {
      const PodModel& m = pods_[RandomName()];
      if (m.current) pods.push_back(m.current);
    }
    Both([&](PriorityQueue& q) { q.Activate(pods); });
  }

  void OpClock() {
    if (Chance(10)) {
      clock_.Step(std::chrono::seconds(60 + Rand(300)));
      Both([](PriorityQueue& q) { q.FlushUnschedulablePodsLeftover(); });
    } else {
      clock_.Step(std::chrono::milliseconds(Rand(2500)));
    }
    Both([](PriorityQueue& q) { q.FlushBackoffQCompleted(); });
  }

  // uid -> places ("active", "backoff", "unschedulable", "inflight").
  static std::map<std::string, std::vector<std::string>> Places(PriorityQueue& q) {
    std::map<std::string, std::vector<std::string>> out;
    for (const PodPtr& p : q.PodsInActiveQ()) out[p->metadata.uid].push_back("active");
    for (const PodPtr& p : q.PodsInBackoffQ()) out[p->metadata.uid].push_back("backoff");
    for (const PodPtr& p : q.UnschedulablePods()) out[p->metadata.uid].push_back("unschedulable");
    for (const PodPtr& p : q.InFlightPods()) out[p->metadata.uid].push_back("inflight");
    for (auto& [uid, v] : out) std::sort(v.begin(), v.end());
    return out;
  }

  void Check() {
    auto pi = Places(*indexed_);
    auto pn = Places(*naive_);
    ASSERT_EQ(pi, pn) << "indexed and naive queues diverged";
    std::set<std::string> in_flight_uids;
    for (const InFlight& f : in_flight_) in_flight_uids.insert(f.indexed->pod().metadata.uid);
    size_t queued = 0;
    for (const auto& [uid, places] : pi) {
      size_t queues = std::count_if(places.begin(), places.end(), [](const std::string& s) { return s != "inflight"; });
      queued += queues;
      ASSERT_LE(queues, 1u) << uid << " is in several queues";
      if (mode_hints_ && in_flight_uids.count(uid)) {
        ASSERT_EQ(queues, 0u) << uid << " queued while in flight";
      }
    }
    for (const auto& [name, m] : pods_) {
      if (!m.current) continue;
      const std::string& uid = m.current->metadata.uid;
      auto it = pi.find(uid);
      size_t queues = 0;
      if (it != pi.end()) {
        queues = std::count_if(it->second.begin(), it->second.end(), [](const std::string& s) { return s != "inflight"; });
      }
      if (!m.known) {
        ASSERT_EQ(queues, 0u) << name << " was deleted but is still queued";
      } else if (!in_flight_uids.count(uid)) {
        ASSERT_EQ(queues, 1u) << name << " is known but lost";
      }
      if (queues == 1) {
        auto a = indexed_->GetPod(m.current->metadata.name, m.current->metadata.namespace_);
        auto b = naive_->GetPod(m.current->metadata.name, m.current->metadata.namespace_);
        ASSERT_TRUE(a && b);
        EXPECT_EQ(a->attempts, b->attempts);
        EXPECT_EQ(a->timestamp, b->timestamp);
        EXPECT_EQ(a->unschedulable_plugins, b->unschedulable_plugins);
        EXPECT_EQ(a->pending_plugins, b->pending_plugins);
        EXPECT_EQ(a->gating_plugin, b->gating_plugin);
        EXPECT_EQ(a->pod_ptr(), b->pod_ptr());
      }
    }
    if (mode_hints_) {
      ASSERT_EQ(in_flight_uids.size(), indexed_->InFlightPods().size());
    }
    PendingPodsSummary si = indexed_->PendingPods();
    EXPECT_EQ(si.summary, naive_->PendingPods().summary);
    EXPECT_EQ(si.pods.size(), queued);
    for (CountingQueueMetrics* m : {&metrics_indexed_, &metrics_naive_}) {
      EXPECT_EQ(m->PendingPods(QueueName::kActive), static_cast<int64_t>(indexed_->PodsInActiveQ().size()));
      EXPECT_EQ(m->PendingPods(QueueName::kBackoff), static_cast<int64_t>(indexed_->PodsInBackoffQ().size()));
      EXPECT_EQ(m->PendingPods(QueueName::kUnschedulable) + m->PendingPods(QueueName::kGated),
                static_cast<int64_t>(indexed_->NumUnschedulablePods()));
    }
    for (QueueName qn : {QueueName::kActive, QueueName::kBackoff, QueueName::kUnschedulable}) {
      EXPECT_EQ(metrics_indexed_.IncomingPods(qn), metrics_naive_.IncomingPods(qn));
    }
    EXPECT_EQ(metrics_indexed_.PendingPods(QueueName::kGated), metrics_naive_.PendingPods(QueueName::kGated));
  }

  void Drain() {
    // Return every in-flight pod.
    while (!in_flight_.empty()) {
      OpFail();
      Check();
      if (::testing::Test::HasFailure()) return;
    }
    if (mode_hints_) {
      EXPECT_EQ(indexed_->InFlightListSize(), 0u);
      EXPECT_EQ(naive_->InFlightListSize(), 0u);
    }
    // Lift every gate.
    gate2_->gated.clear();
    for (auto& [name, m] : pods_) {
      if (!m.known || m.current->spec.scheduling_gates.empty()) continue;
      auto next = std::make_shared<api::Pod>(*m.current);
      next->spec.scheduling_gates.clear();
      PodPtr old = m.current;
      m.current = next;
      Both([&](PriorityQueue& q) { q.Update(old, next); });
    }
    Both([](PriorityQueue& q) {
      q.MoveAllToActiveOrBackoffQueue(ClusterEvent(framework::resource::kPersistentVolume, ActionType::kAdd), {}, {});
    });
    for (int i = 0; i < 2; ++i) {
      clock_.Step(6min);
      Both([](PriorityQueue& q) {
        q.FlushUnschedulablePodsLeftover();
        q.FlushBackoffQCompleted();
      });
      clock_.Step(12s);
      Both([](PriorityQueue& q) { q.FlushBackoffQCompleted(); });
    }
    Check();
    size_t known = 0;
    for (auto& [name, m] : pods_) known += m.known ? 1 : 0;
    ASSERT_EQ(indexed_->PodsInActiveQ().size(), known) << "pending pods were lost";
    ASSERT_EQ(naive_->PodsInActiveQ().size(), known);
    int32_t last = INT32_MAX;
    for (size_t i = 0; i < known; ++i) {
      QueuedPodInfoPtr a = indexed_->Pop();
      QueuedPodInfoPtr b = naive_->Pop();
      ASSERT_TRUE(a && b);
      ASSERT_EQ(a->pod().metadata.uid, b->pod().metadata.uid);
      int32_t prio = a->pod().spec.priority.value_or(0);
      EXPECT_LT(prio, last);
      last = prio;
    }
    EXPECT_EQ(indexed_->PendingPods().summary, "activeQ:0; backoffQ:0; unschedulablePods:0");
  }

  bool mode_hints_;
  bool pop_backoff_;
  util::FakeClock clock_;
  plugins::queuesort::PrioritySort sort_;
  std::unique_ptr<plugins::schedulinggates::SchedulingGates> scheduling_gates_;
  std::unique_ptr<FakePlugin> fit_, spread_, pend_, silent_;
  std::unique_ptr<FakePreEnqueue> gate2_;
  CountingQueueMetrics metrics_indexed_, metrics_naive_;
  std::unique_ptr<PriorityQueue> indexed_, naive_;
  std::mt19937 rng_;
  std::vector<std::string> names_;
  std::map<std::string, int32_t> priority_;
  std::map<std::string, PodModel> pods_;
  std::vector<InFlight> in_flight_;
  int uid_counter_ = 0;
};

struct ModelParam {
  bool hints;
  bool pop_backoff;
};

class PriorityQueueModelTest : public ::testing::TestWithParam<ModelParam> {};

TEST_P(PriorityQueueModelTest, RandomSequencesKeepInvariants) {
  const ModelParam p = GetParam();
  for (uint32_t seed = 1; seed <= 500 && !HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    World w(p.hints, p.pop_backoff);
    w.Run(seed, 120);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, PriorityQueueModelTest,
                         ::testing::Values(ModelParam{true, true}, ModelParam{true, false}, ModelParam{false, true},
                                           ModelParam{false, false}),
                         [](const ::testing::TestParamInfo<ModelParam>& info) {
                           return std::string(info.param.hints ? "Hints" : "NoHints") +
                                  (info.param.pop_backoff ? "PopFromBackoffQ" : "");
                         });

}  // namespace
}  // namespace ksched::scheduler::queue
