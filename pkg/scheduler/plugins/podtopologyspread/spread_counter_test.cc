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
    ExpectSlotsMatchLabels(counter, list);
  }
  // Every node is found at its position, with the ids of its own label
  // values (whether or not it contributes).
  void ExpectSlotsMatchLabels(const SpreadCounter& counter, const framework::NodeInfoList& list) {
    std::shared_ptr<const NodeSlots> slots = counter.slots();
    ASSERT_EQ(slots->num_slots(), list.size());
    for (size_t i = 0; i < list.size(); ++i) {
      ASSERT_EQ(slots->Find(list[i]), static_cast<int32_t>(i)) << list[i]->node_name();
      const api::StringMap& labels = list[i]->node()->metadata.labels;
      for (size_t c = 0; c < options_.constraints.size(); ++c) {
        auto it = labels.find(options_.constraints[c].topology_key);
        int32_t want = NodeSlots::kNoValue;
        if (it != labels.end()) want = options_.counted[c] ? counter.index(c)->Find(it->second) : NodeSlots::kNotInterned;
        if (it != labels.end() && options_.counted[c]) {
          EXPECT_GE(want, 0) << "the value of " << list[i]->node_name() << " is interned";
        }
        EXPECT_EQ(slots->value(static_cast<int32_t>(i), c), want) << list[i]->node_name() << " constraint " << c;
      }
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
  ExpectSlotsMatchLabels(counter, List());
  EXPECT_EQ(counter.slots()->value(1, 0), NodeSlots::kNoValue) << "b has no zone label";
}

TEST_F(SpreadCounterTest, SlotsOfNodesThatContributeNothing) {
  // Node b lacks "zone" (so, with every key required, it contributes to no
  // constraint) and node c is excluded by the taint policy of constraint 0:
  // both still carry the ids of the values they have.
  options_.constraints[0].honor_node_taints = true;
  AddNode("a", {{"zone", "z1"}, {"host", "a"}});
  AddNode("b", {{"host", "b"}});
  infos_.push_back(std::make_unique<framework::NodeInfo>(
      MakeNode("c", {{"zone", "z2"}, {"host", "c"}}, {api::Taint{"t", "", "NoSchedule", {}}})));
  SpreadCounter counter(options_, NodeInclusion(*PodBuilder().Obj()));
  counter.Sync(List(), parallelizer_);
  // (FromScratch knows no inclusion policies.)
  ExpectSlotsMatchLabels(counter, List());
  EXPECT_EQ(FromCounter(counter, 0), (Totals{{"z1", {1, 0}}})) << "z2 is interned but holds no eligible node";
  EXPECT_EQ(counter.slots()->value(2, 0), counter.index(0)->Find("z2"));
  EXPECT_EQ(counter.slots()->value(1, 1), counter.index(1)->Find("b"));
  EXPECT_EQ(counter.slots()->Find(nullptr), -1);
  framework::NodeInfo clone = infos_[0]->Clone();
  EXPECT_EQ(counter.slots()->Find(&clone), -1) << "a copy lives elsewhere";
}

TEST_F(SpreadCounterTest, PublishedSlotsNeverChange) {
  AddNode("a", {{"zone", "z1"}, {"host", "a"}});
  AddNode("b", {{"zone", "z2"}, {"host", "b"}});
  SpreadCounter counter(options_, NodeInclusion(*PodBuilder().Obj()));
  counter.Sync(List(), parallelizer_);
  std::shared_ptr<const NodeSlots> held = counter.slots();
  // New pods only: the slots stay valid, nothing is republished.
  infos_[0]->AddPod(PodBuilder("p").Node("a").Label("foo", "").Obj());
  counter.Sync(List(), parallelizer_);
  EXPECT_EQ(counter.slots(), held);
  // A label changes and a node joins: a new NodeSlots; the held one keeps
  // the old view.
  const framework::NodeInfo* a = infos_[0].get();
  infos_[0]->SetNode(MakeNode("a", {{"zone", "z3"}, {"host", "a"}}));
  AddNode("c", {{"zone", "z1"}, {"host", "c"}});
  counter.Sync(List(), parallelizer_);
  ExpectConsistent(counter);
  EXPECT_NE(counter.slots(), held);
  EXPECT_EQ(held->num_slots(), 2u);
  EXPECT_EQ(held->Find(infos_[2].get()), -1);
  EXPECT_EQ(held->value(held->Find(a), 0), counter.index(0)->Find("z1"));
  EXPECT_EQ(counter.slots()->value(counter.slots()->Find(a), 0), counter.index(0)->Find("z3"));
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
