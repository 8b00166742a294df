#include "pkg/scheduler/plugins/podtopologyspread/spread_counter.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/scheduler/plugins/podtopologyspread/test_util.h"
#include "pkg/util/parallelizer.h"

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

using testing::Exists;
using testing::MakeNode;
using testing::PodBuilder;

// value -> {eligible nodes, pods}, for domains with at least one node.
using Totals = std::map<std::string, std::pair<int32_t, int64_t>>;

Totals FromCounter(const SpreadCounter& counter, size_t c) {
  Totals out;
  auto index = counter.index(c);
  for (int32_t d = 0; d < index->size(); ++d) {
    if (counter.domain_nodes(c)[d] > 0) out[index->Value(d)] = {counter.domain_nodes(c)[d], counter.domain_pods(c)[d]};
  }
  return out;
}

Totals FromScratch(const SpreadCounter::Options& o, size_t c, const framework::NodeInfoList& nodes) {
  Totals out;
  for (const framework::NodeInfo* ni : nodes) {
    const api::StringMap& labels = ni->node()->metadata.labels;
    if (o.require_all_topology_keys && !NodeHasAllTopologyKeys(labels, o.constraints)) continue;
    auto it = labels.find(o.constraints[c].topology_key);
    std::string value = it == labels.end() ? "" : it->second;
    auto& t = out[value];
    t.first += 1;
    t.second += CountMatchingPods(ni->pods(), o.constraints[c], o.namespace_);
  }
  return out;
}

class SpreadCounterTest : public ::testing::Test {
 protected:
  SpreadCounterTest() : parallelizer_(2) {
    Constraint zone;
    zone.topology_key = "zone";
    zone.selector = *api::Selector::FromLabelSelector(Exists("foo"));
    Constraint host = zone;
    host.topology_key = "host";
    options_.constraints = {zone, host};
    options_.counted = {true, true};
  }

  void AddNode(const std::string& name, api::StringMap labels) {
    infos_.push_back(std::make_unique<framework::NodeInfo>(MakeNode(name, std::move(labels))));
  }
  framework::NodeInfoList List() const {
    framework::NodeInfoList out;
    for (const auto& ni : infos_) out.push_back(ni.get());
    return out;
  }
  void ExpectConsistent(const SpreadCounter& counter) {
    framework::NodeInfoList list = List();
    for (size_t c = 0; c < options_.constraints.size(); ++c) {
      EXPECT_EQ(FromCounter(counter, c), FromScratch(options_, c, list)) << "constraint " << c;
    }
  }

  util::Parallelizer parallelizer_;
  SpreadCounter::Options options_;
  std::vector<std::unique_ptr<framework::NodeInfo>> infos_;
};

TEST_F(SpreadCounterTest, IncrementalSyncMatchesRecount) {
  for (int i = 0; i < 300; ++i) {
    std::string name = "n" + std::to_string(i);
    AddNode(name, {{"zone", "z" + std::to_string(i % 3)}, {"host", name}});
    for (int k = 0; k < i % 4; ++k) {
      infos_.back()->AddPod(PodBuilder(name + "-" + std::to_string(k)).Node(name).Label(k % 2 ? "foo" : "bar", "").Obj());
    }
  }
  AddNode("no-zone", {{"host", "no-zone"}});
  SpreadCounter counter(options_, NodeInclusion(*PodBuilder().Obj()));
  counter.Sync(List(), parallelizer_);
  EXPECT_EQ(counter.last_recounted(), 301u);
  ExpectConsistent(counter);

  // Nothing changed: nothing is re-counted.
  counter.Sync(List(), parallelizer_);
  EXPECT_EQ(counter.last_recounted(), 0u);

  // One pod added, one removed.
  infos_[5]->AddPod(PodBuilder("new").Node("n5").Label("foo", "").Obj());
  ASSERT_TRUE(infos_[7]->RemovePod(infos_[7]->pods()[0]->pod()).ok());
  counter.Sync(List(), parallelizer_);
  EXPECT_EQ(counter.last_recounted(), 2u);
  ExpectConsistent(counter);

  // A node changes zone; another loses its zone label.
  infos_[10]->SetNode(MakeNode("n10", {{"zone", "z9"}, {"host", "n10"}}));
  infos_[11]->SetNode(MakeNode("n11", {{"host", "n11"}}));
  counter.Sync(List(), parallelizer_);
  ExpectConsistent(counter);

  // Nodes removed from the middle (every later position shifts) and added.
  infos_.erase(infos_.begin() + 20, infos_.begin() + 25);
  AddNode("late", {{"zone", "z1"}, {"host", "late"}});
  infos_.back()->AddPod(PodBuilder("late-0").Node("late").Label("foo", "").Obj());
  counter.Sync(List(), parallelizer_);
  ExpectConsistent(counter);

  // The list shrinks.
  infos_.resize(50);
  counter.Sync(List(), parallelizer_);
  ExpectConsistent(counter);
}

TEST_F(SpreadCounterTest, RequireAllKeysAndUncountedConstraints) {
  options_.require_all_topology_keys = false;
  options_.counted = {true, false};
  AddNode("a", {{"zone", "z1"}, {"host", "a"}});
  AddNode("b", {{"host", "b"}});
  infos_[1]->AddPod(PodBuilder("p").Node("b").Label("foo", "").Obj());
  SpreadCounter counter(options_, NodeInclusion(*PodBuilder().Obj()));
  counter.Sync(List(), parallelizer_);
  // A missing key counts as the value "".
  EXPECT_EQ(FromCounter(counter, 0), (Totals{{"", {1, 1}}, {"z1", {1, 0}}}));
  EXPECT_TRUE(FromCounter(counter, 1).empty());
}

TEST_F(SpreadCounterTest, NamespaceAndInclusion) {
  options_.namespace_ = "ns";
  options_.constraints[0].honor_node_taints = true;
  AddNode("a", {{"zone", "z1"}, {"host", "a"}});
  infos_.push_back(std::make_unique<framework::NodeInfo>(
      MakeNode("b", {{"zone", "z1"}, {"host", "b"}}, {api::Taint{"t", "", "NoSchedule", {}}})));
  infos_[0]->AddPod(PodBuilder("p1").Namespace("ns").Node("a").Label("foo", "").Obj());
  infos_[0]->AddPod(PodBuilder("p2").Namespace("other").Node("a").Label("foo", "").Obj());
  infos_[1]->AddPod(PodBuilder("p3").Namespace("ns").Node("b").Label("foo", "").Obj());
  SpreadCounter counter(options_, NodeInclusion(*PodBuilder().Obj()));
  counter.Sync(List(), parallelizer_);
  EXPECT_EQ(FromCounter(counter, 0), (Totals{{"z1", {1, 1}}})) << "tainted node b excluded";
  EXPECT_EQ(FromCounter(counter, 1), (Totals{{"a", {1, 1}}, {"b", {1, 1}}}));
}

TEST_F(SpreadCounterTest, PublishedIndexNeverChanges) {
  AddNode("a", {{"zone", "z1"}, {"host", "a"}});
  SpreadCounter counter(options_, NodeInclusion(*PodBuilder().Obj()));
  counter.Sync(List(), parallelizer_);
  std::shared_ptr<const ValueIndex> held = counter.index(0);
  AddNode("b", {{"zone", "z2"}, {"host", "b"}});
  counter.Sync(List(), parallelizer_);
  EXPECT_EQ(held->Find("z2"), -1);
  EXPECT_EQ(held->size(), 1);
  EXPECT_NE(counter.index(0)->Find("z2"), -1);
  EXPECT_EQ(counter.index(0)->Find("z1"), held->Find("z1")) << "ids are stable";
}

TEST_F(SpreadCounterTest, NeedsRebuildAfterNodeChurn) {
  for (int i = 0; i < 1500; ++i) AddNode("old" + std::to_string(i), {{"zone", "z1"}, {"host", "old" + std::to_string(i)}});
  SpreadCounter counter(options_, NodeInclusion(*PodBuilder().Obj()));
  counter.Sync(List(), parallelizer_);
  EXPECT_FALSE(counter.NeedsRebuild());
  // Every node replaced: the old hostnames stay interned but are dead.
  infos_.clear();
  for (int i = 0; i < 100; ++i) AddNode("new" + std::to_string(i), {{"zone", "z1"}, {"host", "new" + std::to_string(i)}});
  counter.Sync(List(), parallelizer_);
  ExpectConsistent(counter);
  EXPECT_TRUE(counter.NeedsRebuild());
}

TEST(ValueIndexTest, InternFindCopy) {
  ValueIndex idx;
  EXPECT_EQ(idx.Find("a"), -1);
  EXPECT_EQ(idx.Intern("a"), 0);
  EXPECT_EQ(idx.Intern("b"), 1);
  EXPECT_EQ(idx.Intern("a"), 0);
  ValueIndex copy(idx);
  EXPECT_EQ(copy.Intern("c"), 2);
  EXPECT_EQ(idx.size(), 2);
  EXPECT_EQ(copy.Value(1), "b");
  EXPECT_EQ(copy.Find("c"), 2);
  EXPECT_EQ(idx.Find(std::string_view("b")), 1);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
