#include "pkg/informer/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "pkg/informer/indexers.h"
#include "pkg/informer/test_objects.h"
#include "pkg/util/heap_in_use.h"

namespace ksched::informer {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;
using testing::kNodeNameIndex;
using testing::NodeNameIndexFunc;

std::shared_ptr<const api::Pod> Pod(const std::string& ns, const std::string& name, const std::string& rv,
                                    const std::string& node = "") {
  auto pod = std::make_shared<api::Pod>();
  pod->metadata.namespace_ = ns;
  pod->metadata.name = name;
  pod->metadata.resource_version = rv;
  pod->spec.node_name = node;
  return pod;
}

std::shared_ptr<const api::Pod> WithUid(std::shared_ptr<const api::Pod> pod, const std::string& uid) {
  auto copy = std::make_shared<api::Pod>(*pod);
  copy->metadata.uid = uid;
  return copy;
}

// The only delta of an upsert.
Delta<api::Pod> One(std::vector<Delta<api::Pod>> deltas) {
  EXPECT_EQ(deltas.size(), 1u);
  return deltas.empty() ? Delta<api::Pod>{} : deltas[0];
}

std::vector<std::string> Names(std::vector<std::shared_ptr<const api::Pod>> pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->metadata.name);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(StoreTest, AddUpdateDeleteReturnDeltas) {
  Store<api::Pod> store;
  Delta<api::Pod> added = One(store.Add(Pod("ns", "a", "1")));
  EXPECT_EQ(added.type, DeltaType::kAdded);
  EXPECT_EQ(added.old_object, nullptr);
  EXPECT_EQ(store.Get("ns/a")->metadata.resource_version, "1");

  auto v2 = Pod("ns", "a", "2");
  Delta<api::Pod> updated = One(store.Update(v2));
  EXPECT_EQ(updated.type, DeltaType::kUpdated);
  EXPECT_EQ(updated.old_object->metadata.resource_version, "1");
  EXPECT_EQ(updated.object, v2);
  // Add of a present key is an update too (an ADDED replayed after a relist).
  EXPECT_EQ(One(store.Add(Pod("ns", "a", "3"))).type, DeltaType::kUpdated);
  // Update of an absent key is an add.
  EXPECT_EQ(One(store.Update(Pod("ns", "b", "4"))).type, DeltaType::kAdded);
  EXPECT_EQ(store.Size(), 2u);

  auto final_state = Pod("ns", "a", "5");
  std::optional<Delta<api::Pod>> deleted = store.Delete("ns/a", final_state);
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->type, DeltaType::kDeleted);
  EXPECT_EQ(deleted->object, final_state);
  EXPECT_FALSE(deleted->final_state_unknown);
  EXPECT_EQ(store.Get("ns/a"), nullptr);
  EXPECT_FALSE(store.Delete("ns/a").has_value());

  // Without a final state the last stored object is the tombstone.
  std::optional<Delta<api::Pod>> unknown = store.Delete("ns/b");
  ASSERT_TRUE(unknown.has_value());
  EXPECT_TRUE(unknown->final_state_unknown);
  EXPECT_EQ(unknown->object->metadata.resource_version, "4");
  EXPECT_EQ(store.Size(), 0u);
}

TEST(StoreTest, ChangedSinceNamesChangesFromItsFirstCallOn) {
  Store<api::Pod> store;
  store.Add(Pod("ns", "a", "1"));
  std::vector<std::string> keys;
  uint64_t first = 0;
  EXPECT_FALSE(store.ChangedSince(0, &keys, &first)) << "no keys were kept before the first call";
  EXPECT_TRUE(keys.empty());
  store.Update(Pod("ns", "a", "2"));
  store.Add(Pod("ns", "b", "3"));
  store.Delete("ns/a");
  store.Delete("ns/zz");  // absent: no change
  uint64_t now = 0;
  ASSERT_TRUE(store.ChangedSince(first, &keys, &now));
  EXPECT_THAT(keys, ElementsAre("ns/a", "ns/b", "ns/a"));
  EXPECT_EQ(now, first + 3);
  keys.clear();
  ASSERT_TRUE(store.ChangedSince(now, &keys, &now));
  EXPECT_TRUE(keys.empty());

  store.Replace({Pod("ns", "c", "4")}, "9");
  EXPECT_FALSE(store.ChangedSince(now, &keys, &now)) << "a relist may change anything";
  store.Add(Pod("ns", "d", "5"));
  keys.clear();
  const uint64_t after_replace = now;
  ASSERT_TRUE(store.ChangedSince(after_replace, &keys, &now));
  EXPECT_THAT(keys, ElementsAre("ns/d"));
}

TEST(StoreTest, RevisionMovesOnEveryChange) {
  Store<api::Pod> store;
  const uint64_t empty = store.Revision();
  store.Add(Pod("ns", "a", "1"));
  const uint64_t added = store.Revision();
  EXPECT_NE(added, empty);
  store.Update(Pod("ns", "a", "2"));
  const uint64_t updated = store.Revision();
  EXPECT_NE(updated, added);
  store.Delete("ns/zz");  // absent: no change
  EXPECT_EQ(store.Revision(), updated);
  store.Delete("ns/a");
  const uint64_t deleted = store.Revision();
  EXPECT_NE(deleted, updated);
  store.Replace({}, "9");
  EXPECT_NE(store.Revision(), deleted) << "a relist may change anything";
}

TEST(StoreTest, ANewUidUnderTheSameKeyIsADeleteThenAnAdd) {
  Store<api::Pod> store;
  store.Add(WithUid(Pod("ns", "a", "1"), "uid-1"));
  std::vector<Delta<api::Pod>> deltas = store.Update(WithUid(Pod("ns", "a", "5"), "uid-2"));
  ASSERT_EQ(deltas.size(), 2u);
  EXPECT_EQ(deltas[0].type, DeltaType::kDeleted);
  EXPECT_EQ(deltas[0].object->metadata.uid, "uid-1");
  EXPECT_TRUE(deltas[0].final_state_unknown);
  EXPECT_EQ(deltas[1].type, DeltaType::kAdded);
  EXPECT_EQ(deltas[1].object->metadata.uid, "uid-2");
  EXPECT_EQ(store.Get("ns/a")->metadata.uid, "uid-2");

  deltas = store.Replace({WithUid(Pod("ns", "a", "9"), "uid-3")}, "9");
  ASSERT_EQ(deltas.size(), 2u);
  EXPECT_EQ(deltas[0].type, DeltaType::kDeleted);
  EXPECT_EQ(deltas[1].type, DeltaType::kAdded);
  // Same UID: a plain update.
  EXPECT_EQ(One(store.Update(WithUid(Pod("ns", "a", "10"), "uid-3"))).type, DeltaType::kUpdated);
}

TEST(StoreTest, ClusterScopedKeysHaveNoNamespace) {
  Store<api::Pod> store;
  store.Add(Pod("", "solo", "1"));
  EXPECT_THAT(store.ListKeys(), ElementsAre("solo"));
}

TEST(StoreTest, ReplaceUpsertsListedAndTombstonesVanished) {
  Store<api::Pod> store;
  store.Add(Pod("ns", "keep", "1"));
  store.Add(Pod("ns", "gone-b", "2"));
  store.Add(Pod("ns", "gone-a", "3"));

  std::vector<Delta<api::Pod>> deltas = store.Replace({Pod("ns", "keep", "1"), Pod("ns", "new", "7")}, "9");
  ASSERT_EQ(deltas.size(), 4u);
  // Unchanged objects are still reported as updates (handlers decide).
  EXPECT_EQ(deltas[0].type, DeltaType::kUpdated);
  EXPECT_EQ(deltas[0].old_object->metadata.resource_version, "1");
  EXPECT_EQ(deltas[1].type, DeltaType::kAdded);
  EXPECT_EQ(deltas[1].object->metadata.name, "new");
  EXPECT_EQ(deltas[2].type, DeltaType::kDeleted);
  EXPECT_EQ(deltas[2].object->metadata.name, "gone-a");
  EXPECT_TRUE(deltas[2].final_state_unknown);
  EXPECT_EQ(deltas[3].object->metadata.name, "gone-b");
  EXPECT_EQ(deltas[3].object->metadata.resource_version, "2");
  EXPECT_TRUE(deltas[3].final_state_unknown);

  EXPECT_THAT(store.ListKeys(), UnorderedElementsAre("ns/keep", "ns/new"));
  EXPECT_EQ(store.LastListResourceVersion(), "9");
}

TEST(StoreTest, IndexesFollowEveryChange) {
  Store<api::Pod> store;
  ASSERT_TRUE(store.AddIndexer(kNodeNameIndex, NodeNameIndexFunc).ok());
  store.Add(Pod("ns", "a", "1", "node-1"));
  store.Add(Pod("ns", "b", "1", "node-1"));
  store.Add(Pod("ns", "c", "1"));  // unassigned: not indexed
  EXPECT_THAT(Names(store.ByIndex(kNodeNameIndex, "node-1").value()), ElementsAre("a", "b"));
  EXPECT_THAT(store.ListIndexValues(kNodeNameIndex).value(), ElementsAre("node-1"));

  store.Update(Pod("ns", "b", "2", "node-2"));
  store.Update(Pod("ns", "c", "2", "node-2"));
  EXPECT_THAT(Names(store.ByIndex(kNodeNameIndex, "node-1").value()), ElementsAre("a"));
  EXPECT_THAT(Names(store.ByIndex(kNodeNameIndex, "node-2").value()), ElementsAre("b", "c"));

  store.Delete("ns/a");
  EXPECT_TRUE(store.ByIndex(kNodeNameIndex, "node-1").value().empty());
  EXPECT_THAT(store.ListIndexValues(kNodeNameIndex).value(), ElementsAre("node-2"));

  store.Replace({Pod("ns", "b", "3", "node-3")}, "3");
  EXPECT_TRUE(store.ByIndex(kNodeNameIndex, "node-2").value().empty());
  EXPECT_THAT(Names(store.ByIndex(kNodeNameIndex, "node-3").value()), ElementsAre("b"));
}

TEST(StoreTest, AddIndexerIndexesExistingObjects) {
  Store<api::Pod> store;
  store.Add(Pod("ns1", "a", "1"));
  store.Add(Pod("ns2", "b", "1"));
  ASSERT_TRUE(store.AddIndexer(kNamespaceIndex, NamespaceIndexFunc<api::Pod>).ok());
  EXPECT_THAT(Names(store.ByIndex(kNamespaceIndex, "ns2").value()), ElementsAre("b"));
  EXPECT_EQ(store.AddIndexer(kNamespaceIndex, NamespaceIndexFunc<api::Pod>).code(),
            util::StatusCode::kAlreadyExists);
  EXPECT_EQ(store.ByIndex("nope", "x").status().code(), util::StatusCode::kNotFound);
  EXPECT_EQ(store.ListIndexValues("nope").status().code(), util::StatusCode::kNotFound);
}

// An index points at the store's keys: the namespace index of a store of
// pods costs a set entry per pod, not another copy of its key.
TEST(StoreTest, AnIndexKeepsNoCopyOfTheKeys) {
  if (!util::kHeapBytesCounted) GTEST_SKIP() << "the sanitizer's allocator owns the heap";
  constexpr int kPods = 10000;
  Store<api::Pod> store;
  for (int i = 0; i < kPods; ++i) {
    store.Add(Pod("namespace-" + std::to_string(i % 4), "pod-" + std::to_string(i), "1"));
  }
  const size_t before = util::HeapBytesInUse();
  ASSERT_TRUE(store.AddIndexer(kNamespaceIndex, NamespaceIndexFunc<api::Pod>).ok());
  const size_t per_pod = (util::HeapBytesInUse() - before) / kPods;
  EXPECT_LE(per_pod, 64u);  // 112 with a copy of each key
  std::printf("index bytes per pod: %zu\n", per_pod);
  store.Delete("namespace-1/pod-1");
  EXPECT_EQ(store.ByIndex(kNamespaceIndex, "namespace-1").value().size(), size_t{kPods / 4 - 1});
}

}  // namespace
}  // namespace ksched::informer
