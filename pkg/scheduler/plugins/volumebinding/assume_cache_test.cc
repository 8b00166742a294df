#include "pkg/scheduler/plugins/volumebinding/assume_cache.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/in_memory_listers.h"

namespace ksched::scheduler::plugins::volumebinding {
namespace {

std::shared_ptr<api::PersistentVolume> PV(const std::string& name, const std::string& rv) {
  auto pv = std::make_shared<api::PersistentVolume>();
  pv->metadata.name = name;
  pv->metadata.resource_version = rv;
  return pv;
}

TEST(AssumeCacheTest, ServesAssumedObjectsUntilTheInformerCatchesUp) {
  framework::InMemoryLister<api::PersistentVolume> lister;
  PVAssumeCache cache(lister, "v1.PersistentVolume");
  EXPECT_EQ(cache.Get("", "pv").status().message(), "could not find v1.PersistentVolume \"pv\"");
  EXPECT_EQ(cache.Assume(PV("pv", "1")).code(), util::StatusCode::kNotFound);

  lister.Set(PV("pv", "5"));
  auto assumed = PV("pv", "5");
  assumed->spec.storage_class_name = "assumed";
  ASSERT_TRUE(cache.Assume(assumed).ok());
  EXPECT_EQ((*cache.Get("", "pv"))->spec.storage_class_name, "assumed");
  EXPECT_EQ((*cache.GetAPIObj("", "pv"))->spec.storage_class_name, "");
  ASSERT_EQ(cache.List().size(), 1u);
  EXPECT_EQ(cache.List()[0]->spec.storage_class_name, "assumed");
  // An older version cannot be assumed over it.
  EXPECT_EQ(cache.Assume(PV("pv", "4")).code(), util::StatusCode::kConflict);

  // A resync with the same version keeps the assumption; a newer informer
  // version replaces it.
  lister.Set(PV("pv", "5"));
  EXPECT_EQ((*cache.Get("", "pv"))->spec.storage_class_name, "assumed");
  auto written = PV("pv", "6");
  written->spec.storage_class_name = "written";
  lister.Set(written);
  EXPECT_EQ((*cache.Get("", "pv"))->spec.storage_class_name, "written");
  EXPECT_FALSE(cache.IsAssumed("", "pv"));
}

TEST(AssumeCacheTest, RestoreDropsTheAssumptionAndDeletionsWin) {
  framework::InMemoryLister<api::PersistentVolumeClaim> lister;
  PVCAssumeCache cache(lister, "v1.PersistentVolumeClaim");
  auto pvc = std::make_shared<api::PersistentVolumeClaim>();
  pvc->metadata.namespace_ = "ns";
  pvc->metadata.name = "c";
  lister.Set(pvc);
  auto assumed = std::make_shared<api::PersistentVolumeClaim>(*pvc);
  assumed->metadata.annotations["k"] = "v";
  ASSERT_TRUE(cache.Assume(assumed).ok());
  EXPECT_TRUE(cache.IsAssumed("ns", "c"));
  EXPECT_EQ((*cache.Get("ns", "c"))->metadata.annotations.count("k"), 1u);
  cache.Restore("ns", "c");
  EXPECT_EQ((*cache.Get("ns", "c"))->metadata.annotations.count("k"), 0u);
  cache.Restore("ns", "c");  // idempotent

  ASSERT_TRUE(cache.Assume(assumed).ok());
  lister.Delete("ns", "c");
  EXPECT_EQ(cache.Get("ns", "c").status().code(), util::StatusCode::kNotFound);
  EXPECT_TRUE(cache.List().empty());
}

// What a write returned stands until the informer delivers that version:
// the informer's copy is then served (and listed) and the overlay is empty.
TEST(AssumeCacheTest, AWrittenObjectStandsUntilItsVersionArrives) {
  framework::InMemoryLister<api::PersistentVolume> lister;
  PVAssumeCache cache(lister, "v1.PersistentVolume");
  lister.Set(PV("pv", "5"));
  auto written = PV("pv", "6");
  ASSERT_TRUE(cache.AssumeWritten(written).ok());
  EXPECT_EQ(*cache.Get("", "pv"), written);
  auto delivered = PV("pv", "6");
  lister.Set(delivered);
  EXPECT_EQ(cache.List(), (std::vector<PVAssumeCache::Ptr>{delivered}));
  EXPECT_FALSE(cache.IsAssumed("", "pv"));
}

// ChangedSince names the informer's changes and the assumptions made and
// dropped; GetByKey reads what it names.
TEST(AssumeCacheTest, ChangedSinceNamesWhatTheServedObjectsMayHaveChangedBy) {
  framework::InMemoryLister<api::PersistentVolume> lister;
  PVAssumeCache cache(lister, "v1.PersistentVolume");
  PVAssumeCache::Revision start;
  std::vector<std::string> keys;
  ASSERT_TRUE(cache.ChangedSince(PVAssumeCache::Revision{}, &keys, &start)) << "nothing happened yet";
  EXPECT_TRUE(keys.empty());
  lister.Set(PV("a", "1"));
  lister.Set(PV("b", "1"));
  ASSERT_TRUE(cache.Assume(PV("a", "2")).ok());
  PVAssumeCache::Revision now;
  ASSERT_TRUE(cache.ChangedSince(start, &keys, &now));
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b", "a"}));
  EXPECT_EQ((*cache.GetByKey("a"))->metadata.resource_version, "2");
  EXPECT_EQ(cache.GetByKey("c").status().code(), util::StatusCode::kNotFound);

  keys.clear();
  cache.Restore("", "a");
  cache.Restore("", "b");  // nothing assumed: no change
  PVAssumeCache::Revision later;
  ASSERT_TRUE(cache.ChangedSince(now, &keys, &later));
  EXPECT_EQ(keys, std::vector<std::string>{"a"});
  keys.clear();
  ASSERT_TRUE(cache.ChangedSince(later, &keys, &later));
  EXPECT_TRUE(keys.empty());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::volumebinding
