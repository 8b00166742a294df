#include "pkg/api/taints.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

Taint MakeTaint(std::string key, std::string value, std::string effect) {
  Taint t;
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

Toleration MakeToleration(std::string key, std::string op, std::string value, std::string effect) {
  Toleration t;
  t.key = std::move(key);
  t.operator_ = std::move(op);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

struct TolerateCase {
  const char* name;
  Toleration toleration;
  Taint taint;
  bool tolerated;
};

TEST(TaintTolerationTest, ToleratesTaint) {
  const Taint gpu = MakeTaint("gpu", "true", "NoSchedule");
  const TolerateCase cases[] = {
      {"equal key value effect", MakeToleration("gpu", "Equal", "true", "NoSchedule"), gpu, true},
      {"empty operator means Equal", MakeToleration("gpu", "", "true", "NoSchedule"), gpu, true},
      {"value differs", MakeToleration("gpu", "Equal", "false", "NoSchedule"), gpu, false},
      {"empty value vs set value", MakeToleration("gpu", "Equal", "", "NoSchedule"), gpu, false},
      {"key differs", MakeToleration("cpu", "Equal", "true", "NoSchedule"), gpu, false},
      {"effect differs", MakeToleration("gpu", "Equal", "true", "NoExecute"), gpu, false},
      {"empty effect matches all effects", MakeToleration("gpu", "Equal", "true", ""), gpu, true},
      {"exists ignores value", MakeToleration("gpu", "Exists", "", "NoSchedule"), gpu, true},
      {"exists still checks key", MakeToleration("cpu", "Exists", "", ""), gpu, false},
      {"exists still checks effect", MakeToleration("gpu", "Exists", "", "PreferNoSchedule"), gpu, false},
      {"empty key exists tolerates everything", MakeToleration("", "Exists", "", ""), gpu, true},
      {"empty key exists with effect", MakeToleration("", "Exists", "", "NoSchedule"), gpu, true},
      {"empty key exists other effect", MakeToleration("", "Exists", "", "NoExecute"), gpu, false},
      {"empty key equal compares value", MakeToleration("", "Equal", "true", ""), gpu, true},
      {"empty key equal other value", MakeToleration("", "Equal", "x", ""), gpu, false},
      {"operators are case-sensitive", MakeToleration("gpu", "exists", "", ""), gpu, false},
      {"unknown operator", MakeToleration("gpu", "Gt", "true", ""), gpu, false},
      {"empty value taint", MakeToleration("dedicated", "Equal", "", ""), MakeTaint("dedicated", "", "NoExecute"),
       true},
  };
  for (const auto& c : cases) EXPECT_EQ(ToleratesTaint(c.toleration, c.taint), c.tolerated) << c.name;
}

TEST(TaintTolerationTest, TolerationsTolerateTaint) {
  const Taint taint = MakeTaint("a", "1", "NoSchedule");
  EXPECT_FALSE(TolerationsTolerateTaint({}, taint));
  EXPECT_FALSE(TolerationsTolerateTaint({MakeToleration("b", "Exists", "", "")}, taint));
  EXPECT_TRUE(TolerationsTolerateTaint(
      {MakeToleration("b", "Exists", "", ""), MakeToleration("a", "Equal", "1", "")}, taint));
}

TEST(TaintTolerationTest, FindMatchingUntoleratedTaint) {
  const std::vector<Taint> taints = {
      MakeTaint("soft", "", "PreferNoSchedule"),
      MakeTaint("a", "1", "NoSchedule"),
      MakeTaint("b", "2", "NoExecute"),
  };
  const TaintFilter hard = IsNoScheduleOrNoExecute;

  const Taint* first = FindMatchingUntoleratedTaint(taints, {}, hard);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->key, "a");
  EXPECT_EQ(first, &taints[1]);

  const Taint* second = FindMatchingUntoleratedTaint(taints, {MakeToleration("a", "Exists", "", "")}, hard);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->key, "b");

  EXPECT_EQ(FindMatchingUntoleratedTaint(
                taints, {MakeToleration("a", "Exists", "", ""), MakeToleration("b", "Equal", "2", "NoExecute")}, hard),
            nullptr);
  // Without a filter the PreferNoSchedule taint counts too.
  const Taint* any = FindMatchingUntoleratedTaint(taints, {}, nullptr);
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->key, "soft");
  EXPECT_EQ(FindMatchingUntoleratedTaint(taints, {MakeToleration("", "Exists", "", "")}, nullptr), nullptr);
  EXPECT_EQ(FindMatchingUntoleratedTaint({}, {}, hard), nullptr);
}

TEST(TaintTolerationTest, PreferNoScheduleCount) {
  const std::vector<Taint> taints = {
      MakeTaint("x", "1", "PreferNoSchedule"),
      MakeTaint("y", "2", "PreferNoSchedule"),
      MakeTaint("z", "3", "NoSchedule"),  // not counted
  };
  EXPECT_EQ(CountIntolerableTaintsPreferNoSchedule(taints, {}), 2);
  EXPECT_EQ(CountIntolerableTaintsPreferNoSchedule(taints, {MakeToleration("x", "Exists", "", "")}), 1);
  EXPECT_EQ(CountIntolerableTaintsPreferNoSchedule(taints, {MakeToleration("x", "Exists", "", "PreferNoSchedule")}),
            1);
  // A toleration limited to another effect does not help scoring.
  EXPECT_EQ(CountIntolerableTaintsPreferNoSchedule(taints, {MakeToleration("x", "Exists", "", "NoSchedule")}), 2);
  EXPECT_EQ(CountIntolerableTaintsPreferNoSchedule(taints, {MakeToleration("", "Exists", "", "")}), 0);
}

TEST(TaintTolerationTest, FormattingAndIdentity) {
  EXPECT_EQ(TaintToString(MakeTaint("k", "v", "NoSchedule")), "k=v:NoSchedule");
  EXPECT_EQ(TaintToString(MakeTaint("k", "", "NoExecute")), "k:NoExecute");
  EXPECT_EQ(TaintToString(MakeTaint("k", "v", "")), "k=v:");
  EXPECT_EQ(TaintToString(MakeTaint("k", "", "")), "k");
  EXPECT_TRUE(TaintsMatch(MakeTaint("k", "a", "NoSchedule"), MakeTaint("k", "b", "NoSchedule")));
  EXPECT_FALSE(TaintsMatch(MakeTaint("k", "a", "NoSchedule"), MakeTaint("k", "a", "NoExecute")));
  EXPECT_TRUE(IsNoScheduleOrNoExecute(MakeTaint("k", "", "NoExecute")));
  EXPECT_FALSE(IsNoScheduleOrNoExecute(MakeTaint("k", "", "PreferNoSchedule")));
  EXPECT_EQ(kTaintNodeUnschedulable, "node.kubernetes.io/unschedulable");
}

}  // namespace
}  // namespace ksched::api
