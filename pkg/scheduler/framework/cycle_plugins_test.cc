#include "pkg/scheduler/framework/cycle_plugins.h"

#include <gtest/gtest.h>

#include <deque>

#include "pkg/scheduler/framework/test_objects.h"

namespace ksched::scheduler::framework {
namespace {

using Names = std::set<std::string, std::less<>>;

TEST(PreFilterResultTest, MergeIntersects) {
  PreFilterResult all;
  PreFilterResult ab = PreFilterResult::Nodes({"a", "b"});
  PreFilterResult bc = PreFilterResult::Nodes({"b", "c"});
  EXPECT_TRUE(all.Merge(all).AllNodes());
  EXPECT_EQ(all.Merge(ab), ab);
  EXPECT_EQ(ab.Merge(all), ab);
  EXPECT_EQ(*ab.Merge(bc).node_names, (Names{"b"}));
  EXPECT_TRUE(ab.Merge(PreFilterResult::Nodes({"z"})).node_names->empty());
  EXPECT_TRUE(all.Allows("anything"));
  EXPECT_TRUE(ab.Allows("a"));
  EXPECT_FALSE(ab.Allows("c"));
}

class FakeLister final : public NodeInfoLister {
 public:
  explicit FakeLister(std::vector<std::string> names) {
    for (auto& n : names) infos_.emplace_back(testing::MakeNode(n).Obj());
    for (auto& ni : infos_) list_.push_back(&ni);
  }
  const NodeInfoList& List() const override { return list_; }
  const NodeInfoList& HavePodsWithAffinityList() const override { return empty_; }
  const NodeInfoList& HavePodsWithRequiredAntiAffinityList() const override { return empty_; }
  util::StatusOr<const NodeInfo*> Get(std::string_view name) const override {
    for (const NodeInfo* ni : list_) {
      if (ni->node_name() == name) return ni;
    }
    return util::NotFound("nodeinfo not found");
  }

 private:
  std::deque<NodeInfo> infos_;
  NodeInfoList list_;
  NodeInfoList empty_;
};

std::vector<std::string> NamesOf(const NodeInfoList& l) {
  std::vector<std::string> out;
  for (const NodeInfo* ni : l) out.push_back(ni->node_name());
  return out;
}

TEST(NodeToStatusTest, ExplicitAndAbsentStatuses) {
  NodeToStatus m;
  EXPECT_EQ(m.Get("x").code(), Code::kUnschedulableAndUnresolvable);
  m.Set("a", Status(Code::kUnschedulable, "Insufficient cpu"));
  m.Set("b", Status(Code::kUnschedulableAndUnresolvable, "node(s) had untolerated taint"));
  EXPECT_EQ(m.Len(), 2u);
  EXPECT_EQ(m.Get("a").Message(), "Insufficient cpu");

  FakeLister lister({"a", "b", "c", "d"});
  EXPECT_EQ(NamesOf(m.NodesForStatusCode(lister, Code::kUnschedulable)), (std::vector<std::string>{"a"}));
  // Absent nodes (c, d) carry the default UnschedulableAndUnresolvable.
  EXPECT_EQ(NamesOf(m.NodesForStatusCode(lister, Code::kUnschedulableAndUnresolvable)),
            (std::vector<std::string>{"b", "c", "d"}));
  m.SetAbsentNodesStatus(Status(Code::kUnschedulable, "didn't satisfy plugin X"));
  EXPECT_EQ(NamesOf(m.NodesForStatusCode(lister, Code::kUnschedulable)),
            (std::vector<std::string>{"a", "c", "d"}));
}

TEST(PostFilterResultTest, ModeDefaultsToNoop) {
  PostFilterResult r;
  EXPECT_EQ(r.Mode(), NominatingMode::kNoop);
  r.nominating_info = NominatingInfo{NominatingMode::kOverride, "n1"};
  EXPECT_EQ(r.Mode(), NominatingMode::kOverride);
}

}  // namespace
}  // namespace ksched::scheduler::framework
