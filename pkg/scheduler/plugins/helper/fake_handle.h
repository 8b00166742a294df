// FakeHandle: a framework::Handle for plugin tests, backed by a snapshot
// and in-memory listers that the test fills. Test-only.
//
// Thread-safety: as the Snapshot and listers it serves (tests fill them
// before running the plugin).
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/cache/snapshot.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/util/clock.h"
#include "pkg/util/parallelizer.h"

namespace ksched::scheduler::plugins::helper::testing {

// A Handle whose snapshot, binding client and clock are set by the test
// (by default: empty, none, the real clock). It runs no plugins: the Run*
// methods report an error, since the plugins tested with it never call them.
class FakeHandle final : public framework::Handle {
 public:
  explicit FakeHandle(framework::FeatureGates features = {}) : parallelizer_(2), features_(features) {}

  void SetSnapshot(std::unique_ptr<cache::Snapshot> snapshot) {
    snapshot_ = std::move(snapshot);
    lister_ = snapshot_.get();
  }
  // Serves `lister` (owned by the caller) instead of the snapshot.
  void SetLister(const framework::SharedLister* lister) { lister_ = lister; }
  // Client() returns `client` (owned by the caller; may be null).
  void SetClient(framework::BindingClient* client) { client_ = client; }
  // Clock() returns `clock` (owned by the caller) instead of the real one.
  void SetClock(const util::Clock* clock) { clock_ = clock; }
  cache::Snapshot& snapshot() { return *snapshot_; }
  framework::InMemorySharedListers& listers() { return listers_; }

  std::string_view ProfileName() const override { return "default-scheduler"; }
  const framework::SharedLister& SnapshotSharedLister() const override { return *lister_; }
  const framework::SharedListers& Listers() const override { return listers_; }
  util::Parallelizer& Parallelizer() const override { return parallelizer_; }
  const util::Clock& Clock() const override { return *clock_; }
  const framework::FeatureGates& Features() const override { return features_; }
  framework::BindingClient* Client() const override { return client_; }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view) const override { return {}; }
  void Activate(const std::vector<std::shared_ptr<const api::Pod>>&) override {}
  std::shared_ptr<framework::WaitingPod> GetWaitingPod(std::string_view) const override { return nullptr; }
  void IterateOverWaitingPods(const std::function<void(framework::WaitingPod&)>&) const override {}
  bool RejectWaitingPod(std::string_view) override { return false; }
  framework::Status RunPreFilterExtensionAddPod(framework::CycleState&, const api::Pod&, const framework::PodInfoPtr&,
                                                const framework::NodeInfo&) override {
    return NoPlugins();
  }
  framework::Status RunPreFilterExtensionRemovePod(framework::CycleState&, const api::Pod&,
                                                   const framework::PodInfoPtr&, const framework::NodeInfo&) override {
    return NoPlugins();
  }
  framework::Status RunFilterPlugins(framework::CycleState&, const api::Pod&, const framework::NodeInfo&) override {
    return NoPlugins();
  }
  framework::Status RunFilterPluginsWithNominatedPods(framework::CycleState&, const api::Pod&,
                                                      const framework::NodeInfo&) override {
    return NoPlugins();
  }

 private:
  static framework::Status NoPlugins() { return framework::Status::Error("FakeHandle runs no plugins"); }

  mutable util::Parallelizer parallelizer_;
  framework::FeatureGates features_;
  framework::InMemorySharedListers listers_;
  std::unique_ptr<cache::Snapshot> snapshot_ = std::make_unique<cache::Snapshot>();
  const framework::SharedLister* lister_ = snapshot_.get();
  framework::BindingClient* client_ = nullptr;
  const util::Clock* clock_ = &util::RealClock::Get();
};

}  // namespace ksched::scheduler::plugins::helper::testing
