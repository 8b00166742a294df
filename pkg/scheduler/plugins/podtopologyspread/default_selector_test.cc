#include "pkg/scheduler/plugins/podtopologyspread/default_selector.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "pkg/scheduler/framework/in_memory_listers.h"

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

// kube's TestDefaultSelector cases, plus the edges of each source.
class DefaultSelectorTest : public ::testing::Test {
 protected:
  void AddService(std::string name, std::string ns, std::optional<api::StringMap> selector) {
    auto s = std::make_shared<api::Service>();
    s->metadata.name = std::move(name);
    s->metadata.namespace_ = std::move(ns);
    s->spec.selector = std::move(selector);
    listers_.services.Set(s);
  }
  void AddReplicaSet(std::string name, std::optional<api::LabelSelector> selector) {
    auto rs = std::make_shared<api::ReplicaSet>();
    rs->metadata.name = std::move(name);
    rs->metadata.namespace_ = "test";
    rs->spec.selector = std::move(selector);
    listers_.replica_sets.Set(rs);
  }
  static api::LabelSelector Labels(api::StringMap m) {
    api::LabelSelector s;
    s.match_labels = std::move(m);
    return s;
  }
  static api::Pod Pod(std::string owner_api_version = "", std::string owner_kind = "", std::string owner = "") {
    api::Pod p;
    p.metadata.name = "test-pod";
    p.metadata.namespace_ = "test";
    p.metadata.labels = {{"podLabelKey", "podLabelVal"}};
    if (!owner.empty()) {
      api::OwnerReference ref;
      ref.api_version = std::move(owner_api_version);
      ref.kind = std::move(owner_kind);
      ref.name = std::move(owner);
      ref.controller = true;
      p.metadata.owner_references.push_back(ref);
    }
    return p;
  }
  std::string Of(const api::Pod& pod) const { return DefaultSelector(pod, listers_).ToString(); }

  framework::InMemorySharedListers listers_;
};

TEST_F(DefaultSelectorTest, NothingSelectsThePod) { EXPECT_TRUE(DefaultSelector(Pod(), listers_).Empty()); }

TEST_F(DefaultSelectorTest, ServicesOfTheNamespaceThatSelectThePod) {
  AddService("test-service", "test", api::StringMap{{"podLabelKey", "podLabelVal"}});
  AddService("other-namespace", "elsewhere", api::StringMap{{"x", "1"}});
  AddService("not-selecting", "test", api::StringMap{{"podLabelKey", "other"}});
  AddService("headless", "test", std::nullopt);       // selects nothing
  AddService("everything", "test", api::StringMap{});  // selects every pod, adds nothing
  EXPECT_EQ(Of(Pod()), "podLabelKey=podLabelVal");
}

TEST_F(DefaultSelectorTest, ReplicaSetRequirementsAreAdded) {
  AddService("test-service", "test", api::StringMap{{"podLabelKey", "podLabelVal"}});
  AddReplicaSet("test-replicaset", Labels({{"replicaSetLabelKey", "replicaSetLabelVal"}}));
  EXPECT_EQ(Of(Pod("apps/v1", "ReplicaSet", "test-replicaset")),
            "podLabelKey=podLabelVal,replicaSetLabelKey=replicaSetLabelVal");
  api::LabelSelector expr;
  expr.match_expressions.push_back(api::LabelSelectorRequirement{"tier", "In", {"a", "b"}});
  AddReplicaSet("with-expression", expr);
  EXPECT_EQ(Of(Pod("apps/v1", "ReplicaSet", "with-expression")), "podLabelKey=podLabelVal,tier in (a,b)");
}

TEST_F(DefaultSelectorTest, ReplicationControllerSelectorIsMerged) {
  AddService("test-service", "test", api::StringMap{{"podLabelKey", "podLabelVal"}});
  auto rc = std::make_shared<api::ReplicationController>();
  rc->metadata.name = "test-replicationcontroller";
  rc->metadata.namespace_ = "test";
  rc->spec.selector = {{"replicationLabelKey", "replicationLabelVal"}};
  listers_.replication_controllers.Set(rc);
  EXPECT_EQ(Of(Pod("v1", "ReplicationController", "test-replicationcontroller")),
            "podLabelKey=podLabelVal,replicationLabelKey=replicationLabelVal");
}

TEST_F(DefaultSelectorTest, StatefulSetRequirementsAreAdded) {
  AddService("test-service", "test", api::StringMap{{"podLabelKey", "podLabelVal"}});
  auto ss = std::make_shared<api::StatefulSet>();
  ss->metadata.name = "test-statefulset";
  ss->metadata.namespace_ = "test";
  ss->spec.selector = Labels({{"statefulSetLabelKey", "statefulSetLabelVal"}});
  listers_.stateful_sets.Set(ss);
  EXPECT_EQ(Of(Pod("apps/v1", "StatefulSet", "test-statefulset")),
            "podLabelKey=podLabelVal,statefulSetLabelKey=statefulSetLabelVal");
}

TEST_F(DefaultSelectorTest, ControllersThatContributeNothing) {
  AddReplicaSet("rs", Labels({{"app", "web"}}));
  AddReplicaSet("unset", std::nullopt);
  api::LabelSelector invalid;
  invalid.match_expressions.push_back(api::LabelSelectorRequirement{"k", "Bogus", {}});
  AddReplicaSet("invalid", invalid);
  EXPECT_TRUE(DefaultSelector(Pod("apps/v1", "ReplicaSet", "missing"), listers_).Empty());
  EXPECT_TRUE(DefaultSelector(Pod("apps/v1", "ReplicaSet", "unset"), listers_).Empty());
  EXPECT_TRUE(DefaultSelector(Pod("apps/v1", "ReplicaSet", "invalid"), listers_).Empty());
  // Same name, other kinds or versions: not looked up as a ReplicaSet.
  EXPECT_TRUE(DefaultSelector(Pod("batch/v1", "Job", "rs"), listers_).Empty());
  EXPECT_TRUE(DefaultSelector(Pod("extensions/v1beta1", "ReplicaSet", "rs"), listers_).Empty());
  // An owner that is not the controller does not count.
  api::Pod not_controller = Pod("apps/v1", "ReplicaSet", "rs");
  not_controller.metadata.owner_references[0].controller = false;
  EXPECT_TRUE(DefaultSelector(not_controller, listers_).Empty());
  EXPECT_EQ(Of(Pod("apps/v1", "ReplicaSet", "rs")), "app=web");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
