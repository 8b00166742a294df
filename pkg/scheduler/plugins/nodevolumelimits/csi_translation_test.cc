#include "pkg/scheduler/plugins/nodevolumelimits/csi_translation.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ksched::scheduler::plugins::nodevolumelimits {
namespace {

api::Volume EBSVolume(const std::string& id) {
  api::Volume v;
  v.name = "ebs";
  v.aws_elastic_block_store = api::AWSElasticBlockStoreVolumeSource{id, "ext4", 0, false};
  return v;
}

api::CSINode CSINodeWithAnnotation(const std::string& value) {
  api::CSINode n;
  n.metadata.name = "node";
  if (!value.empty()) n.metadata.annotations[std::string(kAnnMigratedPlugins)] = value;
  return n;
}

TEST(CSITranslationTest, PluginNamesAndDrivers) {
  api::Volume v;
  EXPECT_EQ(InTreePluginName(v), "");
  v.other_source = "emptyDir";
  EXPECT_EQ(InTreePluginName(v), "");
  v.other_source = "vsphereVolume";
  EXPECT_EQ(InTreePluginName(v), kVSphereInTreePluginName);
  v.other_source = "azureFile";
  EXPECT_EQ(InTreePluginName(v), kAzureFileInTreePluginName);
  EXPECT_EQ(InTreePluginName(EBSVolume("vol-1")), kAWSEBSInTreePluginName);
  api::Volume cinder;
  cinder.cinder = api::CinderVolumeSource{"c-1", "", false};
  EXPECT_EQ(InTreePluginName(cinder), kCinderInTreePluginName);

  api::PersistentVolume pv;
  EXPECT_EQ(InTreePluginName(pv), "");
  pv.spec.gce_persistent_disk = api::GCEPersistentDiskVolumeSource{"pd", "", 0, false};
  EXPECT_EQ(InTreePluginName(pv), kGCEPDInTreePluginName);

  EXPECT_EQ(CSIDriverForInTreePlugin(kAWSEBSInTreePluginName), "ebs.csi.aws.com");
  EXPECT_EQ(CSIDriverForInTreePlugin(kGCEPDInTreePluginName), "pd.csi.storage.gke.io");
  EXPECT_EQ(CSIDriverForInTreePlugin(kAzureDiskInTreePluginName), "disk.csi.azure.com");
  EXPECT_EQ(CSIDriverForInTreePlugin(kCinderInTreePluginName), "cinder.csi.openstack.org");
  EXPECT_EQ(CSIDriverForInTreePlugin(kPortworxInTreePluginName), "pxd.portworx.com");
  EXPECT_EQ(CSIDriverForInTreePlugin(kVSphereInTreePluginName), "csi.vsphere.vmware.com");
  EXPECT_EQ(CSIDriverForInTreePlugin("ebs.csi.aws.com"), "");
  EXPECT_EQ(CSIDriverForInTreePlugin("kubernetes.io/host-path"), "");
}

TEST(CSITranslationTest, IsCSIMigrationOn) {
  const api::CSINode bare = CSINodeWithAnnotation("");
  EXPECT_FALSE(IsCSIMigrationOn(nullptr, kAWSEBSInTreePluginName));
  EXPECT_FALSE(IsCSIMigrationOn(&bare, ""));
  // Completed migrations do not need the annotation.
  for (std::string_view plugin :
       {kAWSEBSInTreePluginName, kGCEPDInTreePluginName, kAzureDiskInTreePluginName, kCinderInTreePluginName}) {
    EXPECT_TRUE(IsCSIMigrationOn(&bare, plugin)) << plugin;
  }
  // Portworx needs the node to list it.
  EXPECT_FALSE(IsCSIMigrationOn(&bare, kPortworxInTreePluginName));
  const api::CSINode listed = CSINodeWithAnnotation("kubernetes.io/aws-ebs,kubernetes.io/portworx-volume");
  EXPECT_TRUE(IsCSIMigrationOn(&listed, kPortworxInTreePluginName));
  const api::CSINode prefix_only = CSINodeWithAnnotation("kubernetes.io/portworx-volume-x");
  EXPECT_FALSE(IsCSIMigrationOn(&prefix_only, kPortworxInTreePluginName));
  // From kube 1.36 Portworx counts as migrated everywhere, but still needs
  // a CSINode; the others are unchanged.
  EXPECT_TRUE(IsCSIMigrationOn(&bare, kPortworxInTreePluginName, true));
  EXPECT_FALSE(IsCSIMigrationOn(nullptr, kPortworxInTreePluginName, true));
  EXPECT_FALSE(IsCSIMigrationOn(&bare, kVSphereInTreePluginName, true));
  // vSphere and Azure File are never counted, listed or not.
  const api::CSINode all = CSINodeWithAnnotation("kubernetes.io/vsphere-volume,kubernetes.io/azure-file");
  EXPECT_FALSE(IsCSIMigrationOn(&all, kVSphereInTreePluginName));
  EXPECT_FALSE(IsCSIMigrationOn(&all, kAzureFileInTreePluginName));
  EXPECT_FALSE(IsCSIMigrationOn(&all, "kubernetes.io/host-path"));
}

TEST(CSITranslationTest, EBSVolumeID) {
  // kube's KubernetesVolumeIDToEBSVolumeID cases.
  EXPECT_EQ(*EBSVolumeID("vol-0a1b2c3d"), "vol-0a1b2c3d");
  EXPECT_EQ(*EBSVolumeID("aws://us-east-1a/vol-0a1b2c3d"), "vol-0a1b2c3d");
  EXPECT_EQ(*EBSVolumeID("aws:///vol-0a1b2c3d"), "vol-0a1b2c3d");
  EXPECT_EQ(*EBSVolumeID("something-bare"), "something-bare");
  util::StatusOr<std::string> bad = EBSVolumeID("aws://us-east-1a/snap-1");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Invalid format for AWS volume (aws://us-east-1a/snap-1)");
  EXPECT_FALSE(EBSVolumeID("aws://us-east-1a").ok());
  EXPECT_FALSE(EBSVolumeID("aws://us-east-1a/vol-1/extra").ok());
  // As Go's url.Parse, which the translation calls: bad escapes in the host
  // or the path are errors, the path is decoded, and the query and the
  // fragment are not part of it.
  util::StatusOr<std::string> esc = EBSVolumeID("aws://%zz/vol-4");
  ASSERT_FALSE(esc.ok());
  EXPECT_EQ(esc.status().message(),
            "Invalid disk name (aws://%zz/vol-4): parse \"aws://%zz/vol-4\": invalid URL escape \"%zz\"");
  EXPECT_FALSE(EBSVolumeID("aws://z/vol-4%2").ok());
  EXPECT_EQ(*EBSVolumeID("aws://z/vol-%34"), "vol-4");
  EXPECT_FALSE(EBSVolumeID("aws://z/vol-4%2Fx").ok());  // a decoded slash
  EXPECT_EQ(*EBSVolumeID("aws://z/vol-4?x=1#f"), "vol-4");
}

TEST(CSITranslationTest, InlineVolumes) {
  util::StatusOr<CSIVolume> ebs = TranslateInlineVolume(EBSVolume("aws://us-east-1a/vol-7"));
  ASSERT_TRUE(ebs.ok());
  EXPECT_EQ(ebs->driver, "ebs.csi.aws.com");
  EXPECT_EQ(ebs->handle, "vol-7");
  util::StatusOr<CSIVolume> bad = TranslateInlineVolume(EBSVolume("aws://z/x"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (aws://z/x)");

  api::Volume gce;
  gce.gce_persistent_disk = api::GCEPersistentDiskVolumeSource{"disk-1", "", 0, false};
  EXPECT_EQ(TranslateInlineVolume(gce)->handle, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk-1");

  api::Volume azure;
  azure.azure_disk = api::AzureDiskVolumeSource{"d", "/subscriptions/s/disks/d", std::nullopt, std::nullopt};
  EXPECT_EQ(TranslateInlineVolume(azure)->handle, "/subscriptions/s/disks/d");
  azure.azure_disk->kind = "MANAGED";
  EXPECT_TRUE(TranslateInlineVolume(azure).ok());
  azure.azure_disk->kind = "Shared";
  util::StatusOr<CSIVolume> shared = TranslateInlineVolume(azure);
  ASSERT_FALSE(shared.ok());
  EXPECT_EQ(shared.status().message(), "kind(Shared) is not supported in csi migration");

  api::Volume portworx;
  portworx.portworx_volume = api::PortworxVolumeSource{"px-1", "", false};
  EXPECT_EQ(TranslateInlineVolume(portworx)->driver, "pxd.portworx.com");
  EXPECT_EQ(TranslateInlineVolume(portworx)->handle, "px-1");
}

TEST(CSITranslationTest, GCEPersistentVolumeHandles) {
  api::PersistentVolume pv;
  pv.metadata.name = "pv";
  pv.spec.gce_persistent_disk = api::GCEPersistentDiskVolumeSource{"disk", "", 0, false};
  EXPECT_EQ(TranslatePersistentVolume(pv)->handle, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk");
  pv.metadata.labels["topology.kubernetes.io/zone"] = "us-central1-a";
  EXPECT_EQ(TranslatePersistentVolume(pv)->handle, "projects/UNSPECIFIED/zones/us-central1-a/disks/disk");
  // The beta label wins.
  pv.metadata.labels["failure-domain.beta.kubernetes.io/zone"] = "us-central1-b";
  EXPECT_EQ(TranslatePersistentVolume(pv)->handle, "projects/UNSPECIFIED/zones/us-central1-b/disks/disk");
  pv.metadata.labels["failure-domain.beta.kubernetes.io/zone"] = "us-central1-a__us-central1-c";
  EXPECT_EQ(TranslatePersistentVolume(pv)->handle, "projects/UNSPECIFIED/regions/us-central1/disks/disk");
  pv.metadata.labels["failure-domain.beta.kubernetes.io/zone"] = "us-central1-a__europe-west1-b";
  EXPECT_FALSE(TranslatePersistentVolume(pv).ok());
  pv.metadata.labels["failure-domain.beta.kubernetes.io/zone"] = "a__b";
  EXPECT_FALSE(TranslatePersistentVolume(pv).ok());

  api::PersistentVolume cinder;
  cinder.spec.cinder = api::CinderVolumeSource{"c-9", "", false};
  EXPECT_EQ(TranslatePersistentVolume(cinder)->driver, "cinder.csi.openstack.org");
  EXPECT_EQ(TranslatePersistentVolume(cinder)->handle, "c-9");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodevolumelimits
