#include "pkg/api/resource_list.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/resource_helpers.h"
#include "pkg/api/types.h"

namespace ksched::api {
namespace {

Quantity Qty(std::string_view s) { return Quantity::MustParse(s); }

std::vector<std::string> Names(const ResourceList& list) {
  std::vector<std::string> out;
  for (const auto& [name, quantity] : list) out.push_back(name);
  return out;
}

std::string Entries(const ResourceList& list) {
  std::string out;
  for (const auto& [name, q] : list) out += (out.empty() ? "" : ",") + name + "=" + q.ToString();
  return out;
}

TEST(FlatResourceList, IteratesInStdMapOrder) {
  // Byte order: uppercase before lowercase, a prefix before its extensions,
  // bytes above 0x7f last, as std::map<std::string, ...> orders them.
  const std::vector<std::string> names = {"pods", "memory", "cpu", "nvidia.com/gpu", "hugepages-2Mi", "cpu2",
                                          "hugepages-1Gi", "Cpu", "", "\xc3\xa9t\xc3\xa9", "ephemeral-storage"};
  ResourceList list;
  std::map<std::string, Quantity> reference;
  for (size_t i = 0; i < names.size(); ++i) {
    list[names[i]] = Quantity::FromInt(static_cast<int64_t>(i));
    reference[names[i]] = Quantity::FromInt(static_cast<int64_t>(i));
  }
  ASSERT_EQ(list.size(), reference.size());
  auto want = reference.begin();
  for (const auto& [name, quantity] : list) {
    EXPECT_EQ(name, want->first);
    EXPECT_EQ(quantity, want->second);
    ++want;
  }
}

TEST(FlatResourceList, LookingUpAMissingNameChangesNothing) {
  const ResourceList list = {{"cpu", Qty("1")}, {"memory", Qty("1Gi")}};
  EXPECT_EQ(list.find("pods"), list.end());
  EXPECT_EQ(list.find("cpu0"), list.end());  // after "cpu", before "memory"
  EXPECT_EQ(list.find(""), list.end());
  EXPECT_EQ(list.find("zzz"), list.end());
    EXPECT_EQ(list.count("pods"), 0u);
  EXPECT_THROW(list.at("pods"), std::out_of_range);
  EXPECT_EQ(list.size(), 2u);

  EXPECT_EQ(list.find("memory")->second, Qty("1Gi"));
    EXPECT_EQ(list.count(std::string("cpu")), 1u);
  EXPECT_EQ(list.at("cpu"), Qty("1"));
}

TEST(FlatResourceList, InsertsInTheMiddle) {
  ResourceList list = {{"cpu", Qty("1")}, {"pods", Qty("10")}};
  EXPECT_TRUE(list["memory"].IsZero());  // inserted as zero
  EXPECT_EQ(Names(list), (std::vector<std::string>{"cpu", "memory", "pods"}));
  list["memory"] = Qty("2Gi");
  EXPECT_EQ(Entries(list), "cpu=1,memory=2Gi,pods=10");

  auto [it, inserted] = list.emplace("ephemeral-storage", Qty("1Gi"));
  EXPECT_TRUE(inserted);
  EXPECT_EQ(it->first, "ephemeral-storage");
  EXPECT_EQ(Entries(list), "cpu=1,ephemeral-storage=1Gi,memory=2Gi,pods=10");

  // emplace keeps a present quantity, as std::map's does.
  auto [same, again] = list.emplace("memory", Qty("5Gi"));
  EXPECT_FALSE(again);
  EXPECT_EQ(same->second, Qty("2Gi"));
  EXPECT_EQ(list.size(), 4u);

  list.clear();
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.begin(), list.end());
}

TEST(FlatResourceList, InitializerListKeepsTheFirstOfARepeatedName) {
  const ResourceList list = {{"memory", Qty("1Gi")}, {"cpu", Qty("1")}, {"memory", Qty("2Gi")}};
  EXPECT_EQ(Entries(list), "cpu=1,memory=1Gi");
}

TEST(FlatResourceList, EqualityIsEntryByEntry) {
  ResourceList a = {{"cpu", Qty("100m")}, {"memory", Qty("1Gi")}};
  ResourceList b;
  b["memory"] = Qty("1Gi");
  b["cpu"] = Qty("0.1");  // equal by value to 100m
  EXPECT_EQ(a, b);
  b["pods"] = Qty("1");
  EXPECT_NE(a, b);
  a["pods"] = Qty("2");
  EXPECT_NE(a, b);
  EXPECT_EQ(ResourceList(), ResourceList{});
}

// The helpers iterate one list while inserting into another; given the same
// list twice nothing is inserted, so iteration stays valid.
TEST(FlatResourceList, AddAndMaxOfAListIntoItself) {
  ResourceList list = {{"cpu", Qty("1")}, {"memory", Qty("1Gi")}, {"pods", Qty("3")}};
  AddResourceList(&list, list);
  EXPECT_EQ(Entries(list), "cpu=2,memory=2Gi,pods=6");
  MaxResourceList(&list, list);
  EXPECT_EQ(Entries(list), "cpu=2,memory=2Gi,pods=6");
}

// Names absent from the target are inserted before, between and after the
// present ones while the source is walked.
TEST(FlatResourceList, AddAndMaxInsertAroundPresentNames) {
  ResourceList list = {{"memory", Qty("1Gi")}};
  AddResourceList(&list, {{"cpu", Qty("1")}, {"memory", Qty("1Gi")}, {"nvidia.com/gpu", Qty("1")}, {"pods", Qty("2")}});
  EXPECT_EQ(Entries(list), "cpu=1,memory=2Gi,nvidia.com/gpu=1,pods=2");
  MaxResourceList(&list, {{"a", Qty("1")}, {"cpu", Qty("3")}, {"memory", Qty("1Gi")}, {"z", Qty("1")}});
  EXPECT_EQ(Entries(list), "a=1,cpu=3,memory=2Gi,nvidia.com/gpu=1,pods=2,z=1");
}

// Pod-level requests overwrite the containers' sum through operator[] while
// the pod-level list is walked.
TEST(FlatResourceList, PodLevelValuesReplaceTheAggregate) {
  Pod pod;
  Container c;
  c.name = "a";
  c.resources.requests = {{"cpu", Qty("1")}, {"example.com/foo", Qty("1")}};
  pod.spec.containers.push_back(c);
  pod.spec.resources.emplace();
  pod.spec.resources->requests = {{"cpu", Qty("2")}, {"hugepages-2Mi", Qty("4Mi")}, {"memory", Qty("1Gi")}};
  EXPECT_EQ(Entries(PodRequests(pod)), "cpu=2,example.com/foo=1,hugepages-2Mi=4Mi,memory=1Gi");
}

TEST(FlatResourceList, DecodesInNameOrder) {
  // Out of order: inserted in place.
  auto node = FromJsonText<Node>(
      R"({"metadata":{"name":"n"},"status":{"allocatable":{"pods":"110","cpu":"4","memory":"8Gi","cpu2":"1"}}})");
  ASSERT_TRUE(node.ok()) << node.status().message();
  EXPECT_EQ(Entries(*node->status.allocatable), "cpu=4,cpu2=1,memory=8Gi,pods=110");

  // A name given twice: the last value, as the parsed object keeps it.
  node = FromJsonText<Node>(R"({"metadata":{"name":"n"},"status":{"allocatable":{"cpu":"4","cpu":"8","memory":"1Gi"}}})");
  ASSERT_TRUE(node.ok()) << node.status().message();
  EXPECT_EQ(Entries(*node->status.allocatable), "cpu=8,memory=1Gi");

  // null leaves the list unset; a null quantity is zero.
  node = FromJsonText<Node>(R"({"metadata":{"name":"n"},"status":{"allocatable":null}})");
  ASSERT_TRUE(node.ok()) << node.status().message();
  EXPECT_FALSE(node->status.allocatable);
  node = FromJsonText<Node>(R"({"metadata":{"name":"n"},"status":{"allocatable":{"cpu":null}}})");
  ASSERT_TRUE(node.ok()) << node.status().message();
  EXPECT_EQ(Entries(*node->status.allocatable), "cpu=0");
}

TEST(FlatResourceList, EncodesInNameOrder) {
  Node node;
  node.metadata.name = "n";
  ResourceList& allocatable = node.status.allocatable.Mutable();
  allocatable["pods"] = Qty("110");
  allocatable["cpu"] = Qty("4");
  allocatable["memory"] = Qty("8Gi");
  const std::string text = ToJsonText(node);
  EXPECT_NE(text.find(R"("allocatable":{"cpu":"4","memory":"8Gi","pods":"110"})"), std::string::npos) << text;
  EXPECT_EQ(ToJson(node)["status"]["allocatable"].dump(), R"({"cpu":"4","memory":"8Gi","pods":"110"})");
  auto back = FromJsonText<Node>(text);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->status.allocatable, node.status.allocatable);
}

}  // namespace
}  // namespace ksched::api
