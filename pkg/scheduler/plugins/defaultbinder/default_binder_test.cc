#include "pkg/scheduler/plugins/defaultbinder/default_binder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/scheduler/framework/in_memory_listers.h"

namespace ksched::scheduler::plugins::defaultbinder {
namespace {

using framework::Code;

class FakeBindingClient final : public framework::BindingClient {
 public:
  util::Status Bind(const api::Pod& pod, std::string_view node_name) override {
    calls.emplace_back(api::KeyOf(pod.metadata), std::string(node_name));
    return result;
  }
  std::vector<std::pair<std::string, std::string>> calls;
  util::Status result;
};

// The parts of Handle DefaultBinder uses; the rest are never called.
class FakeHandle final : public framework::Handle {
 public:
  std::string_view ProfileName() const override { return "default-scheduler"; }
  const framework::SharedLister& SnapshotSharedLister() const override { std::abort(); }
  const framework::SharedListers& Listers() const override { return listers_; }
  util::Parallelizer& Parallelizer() const override { std::abort(); }
  const util::Clock& Clock() const override { return util::RealClock::Get(); }
  const framework::FeatureGates& Features() const override { return features_; }
  framework::BindingClient* Client() const override { return client; }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view) const override { return {}; }
  void Activate(const std::vector<std::shared_ptr<const api::Pod>>&) override {}
  std::shared_ptr<framework::WaitingPod> GetWaitingPod(std::string_view) const override { return nullptr; }
  void IterateOverWaitingPods(const std::function<void(framework::WaitingPod&)>&) const override {}
  bool RejectWaitingPod(std::string_view) override { return false; }
  framework::Status RunPreFilterExtensionAddPod(framework::CycleState&, const api::Pod&, const framework::PodInfoPtr&,
                                                const framework::NodeInfo&) override {
    return {};
  }
  framework::Status RunPreFilterExtensionRemovePod(framework::CycleState&, const api::Pod&,
                                                   const framework::PodInfoPtr&, const framework::NodeInfo&) override {
    return {};
  }
  framework::Status RunFilterPlugins(framework::CycleState&, const api::Pod&, const framework::NodeInfo&) override {
    return {};
  }
  framework::Status RunFilterPluginsWithNominatedPods(framework::CycleState&, const api::Pod&,
                                                      const framework::NodeInfo&) override {
    return {};
  }

  framework::BindingClient* client = nullptr;

 private:
  framework::InMemorySharedListers listers_;
  framework::FeatureGates features_;
};

api::Pod MakePod() {
  api::Pod p;
  p.metadata.namespace_ = "ns";
  p.metadata.name = "foo";
  p.metadata.uid = "foo-uid";
  return p;
}

TEST(DefaultBinderTest, Bind) {
  FakeBindingClient client;
  FakeHandle handle;
  handle.client = &client;
  auto pl = New(handle);
  EXPECT_EQ(pl->Name(), "DefaultBinder");
  framework::CycleState state;
  framework::Status s = pl->Bind(state, MakePod(), "foohost.kubernetes.mydomain.com");
  EXPECT_TRUE(s.IsSuccess()) << s.ToString();
  ASSERT_EQ(client.calls.size(), 1u);
  EXPECT_EQ(client.calls[0].first, "ns/foo");
  EXPECT_EQ(client.calls[0].second, "foohost.kubernetes.mydomain.com");
}

TEST(DefaultBinderTest, BindErrorKeepsTheCause) {
  FakeBindingClient client;
  client.result = util::Status(util::StatusCode::kConflict, "pod ns/foo is already assigned to node \"other\"");
  FakeHandle handle;
  handle.client = &client;
  auto pl = New(handle);
  framework::CycleState state;
  framework::Status s = pl->Bind(state, MakePod(), "node");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.error().code(), util::StatusCode::kConflict);
  EXPECT_NE(s.Message().find("already assigned"), std::string::npos) << s.Message();
}

TEST(DefaultBinderTest, NoClientIsError) {
  FakeHandle handle;
  auto pl = New(handle);
  framework::CycleState state;
  EXPECT_EQ(pl->Bind(state, MakePod(), "node").code(), Code::kError);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::defaultbinder
