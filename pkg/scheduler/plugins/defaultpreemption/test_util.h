// A real framework around DefaultPreemption for its tests: the in-tree
// filters (NodeResourcesFit, NodeUnschedulable, InterPodAffinity) on a
// snapshot, a fake nominator, and a PreemptionWriter that records calls.
// Test-only.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pkg/scheduler/cache/snapshot.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/framework/runtime/framework.h"
#include "pkg/scheduler/framework/test_objects.h"
#include "pkg/scheduler/plugins/defaultpreemption/default_preemption.h"
#include "pkg/scheduler/plugins/registry.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::plugins::defaultpreemption::testing {

class FakeNominator final : public framework::PodNominator {
 public:
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view node) const override {
    auto it = pods.find(std::string(node));
    return it == pods.end() ? std::vector<framework::PodInfoPtr>{} : it->second;
  }
  bool HasNominatedPods() const override { return !pods.empty(); }
  std::map<std::string, std::vector<framework::PodInfoPtr>> pods;
};

// Evictions with a completion (asynchronous preemption) complete at once
// with `result`, unless `hold` is set: then they wait in `held` until the
// test calls Complete.
class RecordingWriter final : public framework::PreemptionWriter {
 public:
  void DeleteVictim(const api::Pod& victim, const api::Pod& preemptor, VictimDone done) override {
    util::Status r;
    {
      std::lock_guard<std::mutex> l(mu);
      deleted.push_back(victim.metadata.name);
      deleted_for.push_back(preemptor.metadata.name);
      if (!done) return;
      if (hold) {
        held.emplace_back(victim.metadata.name, std::move(done));
        return;
      }
      r = result;
    }
    done(r);
  }
  // Completes the held eviction of `victim` with `s`; false if none.
  bool Complete(const std::string& victim, util::Status s = util::Status::Ok()) {
    VictimDone done;
    {
      std::lock_guard<std::mutex> l(mu);
      for (auto it = held.begin(); it != held.end(); ++it) {
        if (it->first != victim) continue;
        done = std::move(it->second);
        held.erase(it);
        break;
      }
    }
    if (!done) return false;
    done(std::move(s));
    return true;
  }
  void ObservePreemptionGoroutine(bool success, util::Duration elapsed) override {
    std::lock_guard<std::mutex> l(mu);
    goroutines.emplace_back(success, elapsed);
  }
  void RecordPreempted(const api::Pod& victim, const api::Pod&, std::string_view node, bool in_memory) override {
    std::lock_guard<std::mutex> l(mu);
    events.push_back(victim.metadata.name + "@" + std::string(node) + (in_memory ? " (in memory)" : ""));
  }
  void ClearNominatedNodeName(const api::Pod& pod) override {
    std::lock_guard<std::mutex> l(mu);
    cleared.push_back(pod.metadata.name);
  }
  void ObservePreemptionAttempt() override { ++attempts; }
  void ObservePreemptionVictims(int n) override { victims_observed.push_back(n); }

  std::mutex mu;
  bool hold = false;
  util::Status result;
  std::vector<std::pair<std::string, VictimDone>> held;
  std::vector<std::pair<bool, util::Duration>> goroutines;
  std::vector<std::string> deleted, deleted_for, events, cleared;
  int attempts = 0;
  std::vector<int> victims_observed;
};

class RecordingActivator final : public framework::PodActivator {
 public:
  void Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods) override {
    std::lock_guard<std::mutex> l(mu);
    for (const auto& p : pods) activated.push_back(p->metadata.name);
  }
  std::vector<std::string> Activated() {
    std::lock_guard<std::mutex> l(mu);
    return activated;
  }

 private:
  std::mutex mu;
  std::vector<std::string> activated;
};

// Filters every node for `pod` as the scheduling cycle would, then runs
// DefaultPreemption's PostFilter.
class PreemptionFixture {
 public:
  PreemptionFixture(std::vector<std::shared_ptr<const api::Node>> nodes,
                    std::vector<std::shared_ptr<const api::Pod>> pods, DefaultPreemptionArgs args = {},
                    int offset = 0, framework::FeatureGates features = {})
      : parallelizer_(2), snapshot_(cache::Snapshot::FromObjects(pods, nodes)) {
    for (const auto& p : pods) listers_.pods.Set(p);
    auto reg = InTreeRegistry();
    EXPECT_TRUE(reg.ok());
    config::KubeSchedulerProfile profile;
    profile.scheduler_name = "default-scheduler";
    for (const char* name : {"PrioritySort", "NodeUnschedulable", "NodeResourcesFit", "InterPodAffinity",
                             "DefaultBinder"}) {
      profile.plugins.multi_point.enabled.push_back(config::Plugin{name, std::nullopt, ""});
    }
    framework::runtime::FrameworkOptions o;
    o.snapshot_lister = snapshot_.get();
    o.parallelizer = &parallelizer_;
    o.clock = &clock_;
    o.listers = &listers_;
    o.nominator = &nominator_;
    o.preemption = &writer_;
    o.activator = &activator_;
    o.features = features;
    o.waiting_pods = waiting_pods_;
    auto f = framework::runtime::Framework::New(*reg, profile, o);
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    fwk_ = std::move(f).value();
    plugin_ = std::make_unique<DefaultPreemption>(args, *fwk_, [offset](int n) { return offset % n; });
  }

  void AddPDB(std::shared_ptr<const api::PodDisruptionBudget> pdb) { listers_.pod_disruption_budgets.Set(pdb); }
  void Nominate(const std::string& node, std::shared_ptr<const api::Pod> pod) {
    nominator_.pods[node].push_back(std::make_shared<const framework::PodInfo>(std::move(pod)));
  }

  // PreFilter + Filter on every node, then PostFilter.
  std::pair<framework::PostFilterResult, framework::Status> Run(const std::shared_ptr<const api::Pod>& pod) {
    listers_.pods.Set(pod);
    framework::CycleState state;
    framework::runtime::PreFilterOutcome pre = fwk_->RunPreFilterPlugins(state, *pod);
    EXPECT_TRUE(pre.status.IsSuccess()) << pre.status.Message();
    framework::NodeToStatus statuses;
    for (const framework::NodeInfo* ni : snapshot_->List()) {
      framework::Status s = fwk_->RunFilterPluginsWithNominatedPods(state, *pod, *ni);
      if (!s.IsSuccess()) statuses.Set(ni->node_name(), s);
    }
    return plugin_->PostFilter(state, *pod, statuses);
  }

  DefaultPreemption& plugin() { return *plugin_; }
  framework::runtime::Framework& fwk() { return *fwk_; }
  // Holds `pod` at Permit (one waiting plugin, a minute's timeout).
  std::shared_ptr<framework::WaitingPod> HoldAtPermit(std::shared_ptr<const api::Pod> pod) {
    auto wp = std::make_shared<framework::WaitingPod>(
        std::move(pod), std::map<std::string, util::Duration>{{"Gate", std::chrono::minutes(1)}}, clock_);
    waiting_pods_->Add(wp);
    return wp;
  }
  RecordingWriter& writer() { return writer_; }
  RecordingActivator& activator() { return activator_; }
  util::FakeClock& clock() { return clock_; }
  // The "informer": tests replace or remove pods to show a victim's fate.
  framework::InMemorySharedListers& listers() { return listers_; }

 private:
  util::FakeClock clock_;
  std::shared_ptr<framework::WaitingPodsMap> waiting_pods_ = std::make_shared<framework::WaitingPodsMap>();
  util::Parallelizer parallelizer_;
  std::unique_ptr<cache::Snapshot> snapshot_;
  framework::InMemorySharedListers listers_;
  FakeNominator nominator_;
  RecordingWriter writer_;
  RecordingActivator activator_;
  std::unique_ptr<framework::runtime::Framework> fwk_;
  std::unique_ptr<DefaultPreemption> plugin_;
};

}  // namespace ksched::scheduler::plugins::defaultpreemption::testing
