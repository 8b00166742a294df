#include "pkg/scheduler/plugins/nodevolumelimits/csi_translation.h"

#include <optional>
#include <set>
#include <vector>

namespace ksched::scheduler::plugins::nodevolumelimits {

namespace {

constexpr std::string_view kAWSEBSDriverName = "ebs.csi.aws.com";
constexpr std::string_view kGCEPDDriverName = "pd.csi.storage.gke.io";
constexpr std::string_view kAzureDiskDriverName = "disk.csi.azure.com";
constexpr std::string_view kCinderDriverName = "cinder.csi.openstack.org";
constexpr std::string_view kPortworxDriverName = "pxd.portworx.com";
constexpr std::string_view kAzureFileDriverName = "file.csi.azure.com";
constexpr std::string_view kVSphereDriverName = "csi.vsphere.vmware.com";

constexpr std::string_view kLabelZoneBeta = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kLabelZone = "topology.kubernetes.io/zone";
// Several zones in one zone label value (regional disks).
constexpr std::string_view kMultiZoneDelimiter = "__";
constexpr std::string_view kUnspecified = "UNSPECIFIED";

std::vector<std::string> Split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  while (true) {
    const size_t at = s.find(sep);
    if (at == std::string_view::npos) {
      out.emplace_back(s);
      return out;
    }
    out.emplace_back(s.substr(0, at));
    s.remove_prefix(at + sep.size());
  }
}

// The region of zones "{locale}-{region}-{zone}", which must all share it.
util::StatusOr<std::string> GCERegionOfZones(const std::vector<std::string>& zones) {
  std::set<std::string> regions;
  for (const std::string& zone : zones) {
    const std::vector<std::string> parts = Split(zone, "-");
    if (parts.size() != 3) {
      return util::InvalidArgument("zone in unexpected format, expected: {locale}-{region}-{zone}, got: " + zone);
    }
    regions.insert(parts[0] + "-" + parts[1]);
  }
  if (regions.size() != 1) {
    std::string list;
    for (const std::string& r : regions) list += (list.empty() ? "" : " ") + r;
    return util::InvalidArgument("multiple or no regions gotten from zones, got: [" + list + "]");
  }
  return *regions.begin();
}

std::string GCEZonalHandle(std::string_view zone, std::string_view pd_name) {
  return "projects/" + std::string(kUnspecified) + "/zones/" + std::string(zone) + "/disks/" + std::string(pd_name);
}

util::Status CheckAzureDiskKind(const api::AzureDiskVolumeSource& disk) {
  if (!disk.kind) return util::Status();
  // The kind is compared case-insensitively.
  const std::string& k = *disk.kind;
  static constexpr std::string_view kManaged = "managed";
  bool managed = k.size() == kManaged.size();
  for (size_t i = 0; managed && i < k.size(); ++i) {
    const char c = (k[i] >= 'A' && k[i] <= 'Z') ? static_cast<char>(k[i] - 'A' + 'a') : k[i];
    managed = c == kManaged[i];
  }
  if (managed) return util::Status();
  return util::InvalidArgument("kind(" + k + ") is not supported in csi migration");
}

util::StatusOr<CSIVolume> TranslateEBS(const api::AWSElasticBlockStoreVolumeSource& ebs) {
  util::StatusOr<std::string> id = EBSVolumeID(ebs.volume_id);
  if (!id.ok()) {
    return util::InvalidArgument("failed to translate Kubernetes ID to EBS Volume ID " + id.status().message());
  }
  return CSIVolume{std::string(kAWSEBSDriverName), std::move(id).value()};
}

}  // namespace

std::string_view InTreePluginName(const api::Volume& volume) {
  if (volume.gce_persistent_disk) return kGCEPDInTreePluginName;
  if (volume.aws_elastic_block_store) return kAWSEBSInTreePluginName;
  if (volume.cinder) return kCinderInTreePluginName;
  if (volume.azure_disk) return kAzureDiskInTreePluginName;
  if (volume.portworx_volume) return kPortworxInTreePluginName;
  if (volume.other_source == "azureFile") return kAzureFileInTreePluginName;
  if (volume.other_source == "vsphereVolume") return kVSphereInTreePluginName;
  return {};
}

std::string_view InTreePluginName(const api::PersistentVolume& pv) {
  const api::PersistentVolumeSpec& s = pv.spec;
  if (s.gce_persistent_disk) return kGCEPDInTreePluginName;
  if (s.aws_elastic_block_store) return kAWSEBSInTreePluginName;
  if (s.cinder) return kCinderInTreePluginName;
  if (s.azure_disk) return kAzureDiskInTreePluginName;
  if (s.portworx_volume) return kPortworxInTreePluginName;
  if (s.other_source == "azureFile") return kAzureFileInTreePluginName;
  if (s.other_source == "vsphereVolume") return kVSphereInTreePluginName;
  return {};
}

std::string_view CSIDriverForInTreePlugin(std::string_view plugin_name) {
  if (plugin_name == kAWSEBSInTreePluginName) return kAWSEBSDriverName;
  if (plugin_name == kGCEPDInTreePluginName) return kGCEPDDriverName;
  if (plugin_name == kAzureDiskInTreePluginName) return kAzureDiskDriverName;
  if (plugin_name == kCinderInTreePluginName) return kCinderDriverName;
  if (plugin_name == kPortworxInTreePluginName) return kPortworxDriverName;
  if (plugin_name == kAzureFileInTreePluginName) return kAzureFileDriverName;
  if (plugin_name == kVSphereInTreePluginName) return kVSphereDriverName;
  return {};
}

bool IsCSIMigrationOn(const api::CSINode* csi_node, std::string_view plugin_name, bool portworx_migrated) {
  if (csi_node == nullptr || plugin_name.empty()) return false;
  if (plugin_name == kAWSEBSInTreePluginName || plugin_name == kGCEPDInTreePluginName ||
      plugin_name == kAzureDiskInTreePluginName || plugin_name == kCinderInTreePluginName) {
    return true;
  }
  // Portworx migration (the CSIMigrationPortworx gate, on by default) holds
  // only where the node says its kubelet migrated the plugin.
  if (plugin_name != kPortworxInTreePluginName) return false;
  if (portworx_migrated) return true;
  auto it = csi_node->metadata.annotations.find(std::string(kAnnMigratedPlugins));
  if (it == csi_node->metadata.annotations.end()) return false;
  for (const std::string& name : Split(it->second, ",")) {
    if (name == plugin_name) return true;
  }
  return false;
}

util::StatusOr<std::string> EBSVolumeID(std::string_view kubernetes_id) {
  static constexpr std::string_view kScheme = "aws://";
  if (kubernetes_id.substr(0, kScheme.size()) != kScheme) return std::string(kubernetes_id);
  // As Go's url.Parse: the fragment and the query are not the path; the
  // host and the path must be well escaped, and the path is decoded.
  std::string_view rest = kubernetes_id.substr(kScheme.size());
  rest = rest.substr(0, rest.find('#'));
  rest = rest.substr(0, rest.find('?'));
  const size_t slash = rest.find('/');
  const std::string_view host = rest.substr(0, slash);
  std::string_view raw_path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  auto value = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  auto bad_escape = [&](std::string_view s) -> std::optional<std::string> {
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '%') continue;
      if (i + 2 >= s.size() || !hex(s[i + 1]) || !hex(s[i + 2])) return std::string(s.substr(i, 3));
      i += 2;
    }
    return std::nullopt;
  };
  for (std::string_view part : {host, raw_path}) {
    if (std::optional<std::string> esc = bad_escape(part)) {
      return util::InvalidArgument("Invalid disk name (" + std::string(kubernetes_id) + "): parse \"" + std::string(kubernetes_id) +
                                   "\": invalid URL escape \"" + *esc + "\"");
    }
  }
  std::string path;
  for (size_t i = 0; i < raw_path.size(); ++i) {
    if (raw_path[i] == '%') {
      path.push_back(static_cast<char>(value(raw_path[i + 1]) * 16 + value(raw_path[i + 2])));
      i += 2;
    } else {
      path.push_back(raw_path[i]);
    }
  }
  std::string_view id = path;
  while (!id.empty() && id.front() == '/') id.remove_prefix(1);
  while (!id.empty() && id.back() == '/') id.remove_suffix(1);
  const bool valid = id.substr(0, 4) == "vol-" && id.find('/') == std::string_view::npos;
  if (!valid) return util::InvalidArgument("Invalid format for AWS volume (" + std::string(kubernetes_id) + ")");
  return std::string(id);
}

util::StatusOr<CSIVolume> TranslateInlineVolume(const api::Volume& volume) {
  if (volume.aws_elastic_block_store) return TranslateEBS(*volume.aws_elastic_block_store);
  if (volume.gce_persistent_disk) {
    // An inline disk names neither project nor zone.
    return CSIVolume{std::string(kGCEPDDriverName), GCEZonalHandle(kUnspecified, volume.gce_persistent_disk->pd_name)};
  }
  if (volume.azure_disk) {
    if (util::Status s = CheckAzureDiskKind(*volume.azure_disk); !s.ok()) return s;
    return CSIVolume{std::string(kAzureDiskDriverName), volume.azure_disk->data_disk_uri};
  }
  if (volume.cinder) return CSIVolume{std::string(kCinderDriverName), volume.cinder->volume_id};
  if (volume.portworx_volume) return CSIVolume{std::string(kPortworxDriverName), volume.portworx_volume->volume_id};
  const std::string_view driver = CSIDriverForInTreePlugin(InTreePluginName(volume));
  if (driver.empty()) return util::InvalidArgument("could not find in-tree plugin translation logic for \"" + volume.name + "\"");
  // azureFile and vsphereVolume: their handles are not modelled (never counted).
  return CSIVolume{std::string(driver), ""};
}

util::StatusOr<CSIVolume> TranslatePersistentVolume(const api::PersistentVolume& pv) {
  const api::PersistentVolumeSpec& s = pv.spec;
  if (s.aws_elastic_block_store) return TranslateEBS(*s.aws_elastic_block_store);
  if (s.gce_persistent_disk) {
    const auto& labels = pv.metadata.labels;
    std::string zones_label;
    if (auto it = labels.find(std::string(kLabelZoneBeta)); it != labels.end()) zones_label = it->second;
    if (zones_label.empty()) {
      if (auto it = labels.find(std::string(kLabelZone)); it != labels.end()) zones_label = it->second;
    }
    const std::vector<std::string> zones = Split(zones_label, kMultiZoneDelimiter);
    const std::string& pd = s.gce_persistent_disk->pd_name;
    if (zones.size() == 1) return CSIVolume{std::string(kGCEPDDriverName), GCEZonalHandle(zones[0].empty() ? kUnspecified : zones[0], pd)};
    util::StatusOr<std::string> region = GCERegionOfZones(zones);
    if (!region.ok()) return util::InvalidArgument("failed to get region from zones: " + region.status().message());
    return CSIVolume{std::string(kGCEPDDriverName),
                     "projects/" + std::string(kUnspecified) + "/regions/" + *region + "/disks/" + pd};
  }
  if (s.azure_disk) {
    if (util::Status st = CheckAzureDiskKind(*s.azure_disk); !st.ok()) return st;
    return CSIVolume{std::string(kAzureDiskDriverName), s.azure_disk->data_disk_uri};
  }
  if (s.cinder) return CSIVolume{std::string(kCinderDriverName), s.cinder->volume_id};
  if (s.portworx_volume) return CSIVolume{std::string(kPortworxDriverName), s.portworx_volume->volume_id};
  const std::string_view driver = CSIDriverForInTreePlugin(InTreePluginName(pv));
  if (driver.empty()) {
    return util::InvalidArgument("could not find in-tree plugin translation logic for \"" + pv.metadata.name + "\"");
  }
  return CSIVolume{std::string(driver), ""};
}

}  // namespace ksched::scheduler::plugins::nodevolumelimits
