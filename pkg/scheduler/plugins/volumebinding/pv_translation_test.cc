#include "pkg/scheduler/plugins/volumebinding/pv_translation.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::plugins::volumebinding {
namespace {

constexpr char kAnn[] = "storage.alpha.kubernetes.io/migrated-plugins";

std::shared_ptr<api::CSINode> Migrated(const std::string& plugins) {
  auto n = std::make_shared<api::CSINode>();
  n->metadata.name = "n";
  n->metadata.annotations[kAnn] = plugins;
  return n;
}

std::shared_ptr<api::PersistentVolume> EBS() {
  auto pv = std::make_shared<api::PersistentVolume>();
  pv->metadata.name = "pv";
  pv->spec.aws_elastic_block_store.emplace();
  pv->spec.aws_elastic_block_store->volume_id = "vol-1";
  return pv;
}

api::NodeSelectorTerm Term(std::vector<api::NodeSelectorRequirement> reqs) {
  api::NodeSelectorTerm t;
  t.match_expressions = std::move(reqs);
  return t;
}

// The requirements of every term, "key op v1,v2" each.
std::vector<std::vector<std::string>> Affinity(const api::PersistentVolume& pv) {
  std::vector<std::vector<std::string>> out;
  if (!pv.spec.node_affinity || !pv.spec.node_affinity->required) return out;
  for (const auto& t : pv.spec.node_affinity->required->node_selector_terms) {
    std::vector<std::string> term;
    for (const auto& r : t.match_expressions) {
      std::string vals;
      for (const auto& v : r.values) vals += (vals.empty() ? "" : ",") + v;
      term.push_back(r.key + " " + r.operator_ + " " + vals);
    }
    out.push_back(term);
  }
  return out;
}

using Terms = std::vector<std::vector<std::string>>;

TEST(TranslatePVForNodeTest, OnlyWhereTheNodeMigratedThePlugin) {
  auto pv = EBS();
  pv->metadata.labels["topology.kubernetes.io/zone"] = "z1";
  std::shared_ptr<const api::PersistentVolume> in(pv);
  EXPECT_EQ(*TranslatePVForNode(in, nullptr), in);
  EXPECT_EQ(*TranslatePVForNode(in, Migrated("kubernetes.io/gce-pd").get()), in);
  EXPECT_EQ(*TranslatePVForNode(in, Migrated("kubernetes.io/aws-ebs2").get()), in);  // whole names only
  auto out = TranslatePVForNode(in, Migrated("kubernetes.io/gce-pd,kubernetes.io/aws-ebs").get());
  ASSERT_TRUE(out.ok());
  EXPECT_NE(*out, in);
  EXPECT_EQ(Affinity(**out), (Terms{{"topology.ebs.csi.aws.com/zone In z1"}}));
  EXPECT_FALSE(in->spec.node_affinity.has_value());  // the input is not changed
}

TEST(TranslatePVForNodeTest, ZonesMoveToTheDriversKey) {
  // From the node affinity (GA key), every term; other keys stay.
  auto pv = EBS();
  pv->spec.node_affinity = api::VolumeNodeAffinity{api::NodeSelector{
      {Term({{"topology.kubernetes.io/zone", "In", {"z1"}}, {"disk", "In", {"ssd"}}}),
       Term({{"topology.kubernetes.io/zone", "In", {"z2"}}})}}};
  pv->metadata.labels["topology.kubernetes.io/zone"] = "ignored";
  auto out = TranslatePVForNode(pv, Migrated("kubernetes.io/aws-ebs").get());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Affinity(**out),
            (Terms{{"topology.ebs.csi.aws.com/zone In z1", "disk In ssd"}, {"topology.ebs.csi.aws.com/zone In z2"}}));

  // Beta zone and region in the node affinity: the zone to the driver's
  // key, the region to the GA key.
  auto beta = std::make_shared<api::PersistentVolume>();
  beta->spec.cinder.emplace();
  beta->spec.cinder->volume_id = "v";
  beta->spec.node_affinity = api::VolumeNodeAffinity{api::NodeSelector{
      {Term({{"failure-domain.beta.kubernetes.io/zone", "In", {"z1"}},
             {"failure-domain.beta.kubernetes.io/region", "In", {"r"}}})}}};
  out = TranslatePVForNode(beta, Migrated("kubernetes.io/cinder").get());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Affinity(**out),
            (Terms{{"topology.cinder.csi.openstack.org/zone In z1", "topology.kubernetes.io/region In r"}}));

  // From a multi-zone label: trimmed, deduplicated, sorted, added to every
  // existing term.
  auto gce = std::make_shared<api::PersistentVolume>();
  gce->spec.gce_persistent_disk.emplace();
  gce->spec.gce_persistent_disk->pd_name = "pd";
  gce->metadata.labels["failure-domain.beta.kubernetes.io/zone"] = "us-east1-c__us-east1-b__us-east1-c";
  gce->spec.node_affinity =
      api::VolumeNodeAffinity{api::NodeSelector{{Term({{"kubernetes.io/hostname", "In", {"h"}}})}}};
  out = TranslatePVForNode(gce, Migrated("kubernetes.io/gce-pd").get());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Affinity(**out), (Terms{{"kubernetes.io/hostname In h", "topology.gke.io/zone In us-east1-b,us-east1-c"}}));

  // A blank label adds nothing.
  auto blank = EBS();
  blank->metadata.labels["topology.kubernetes.io/zone"] = " ";
  out = TranslatePVForNode(blank, Migrated("kubernetes.io/aws-ebs").get());
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(Affinity(**out).empty());
}

TEST(TranslatePVForNodeTest, AzureDiskAndPortworxKeepTheirAffinity) {
  auto azure = std::make_shared<api::PersistentVolume>();
  azure->spec.azure_disk.emplace();
  azure->spec.azure_disk->data_disk_uri = "uri";
  azure->metadata.labels["topology.kubernetes.io/zone"] = "z1";
  std::shared_ptr<const api::PersistentVolume> in(azure);
  EXPECT_EQ(*TranslatePVForNode(in, Migrated("kubernetes.io/azure-disk").get()), in);
  auto px = std::make_shared<api::PersistentVolume>();
  px->spec.portworx_volume.emplace();
  px->spec.portworx_volume->volume_id = "v";
  px->metadata.labels["topology.kubernetes.io/zone"] = "z1";
  std::shared_ptr<const api::PersistentVolume> pin(px);
  EXPECT_EQ(*TranslatePVForNode(pin, Migrated("kubernetes.io/portworx-volume").get()), pin);
}

TEST(TranslatePVForNodeTest, TranslationErrors) {
  auto bad = EBS();
  bad->spec.aws_elastic_block_store->volume_id = "aws://%zz/vol-1";
  EXPECT_FALSE(TranslatePVForNode(bad, Migrated("kubernetes.io/aws-ebs").get()).ok());
  EXPECT_TRUE(TranslatePVForNode(bad, Migrated("kubernetes.io/gce-pd").get()).ok());  // not migrated: not translated
  auto shared = std::make_shared<api::PersistentVolume>();
  shared->spec.azure_disk.emplace();
  shared->spec.azure_disk->kind = "Shared";
  auto s = TranslatePVForNode(shared, Migrated("kubernetes.io/azure-disk").get());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "could not translate pv: kind(Shared) is not supported in csi migration");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::volumebinding
