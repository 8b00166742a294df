#include "pkg/scheduler/plugins/volumebinding/pv_translation.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/scheduler/plugins/nodevolumelimits/csi_translation.h"

namespace ksched::scheduler::plugins::volumebinding {

namespace nvl = nodevolumelimits;

namespace {

constexpr std::string_view kLabelZone = "topology.kubernetes.io/zone";
constexpr std::string_view kLabelZoneBeta = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kLabelRegion = "topology.kubernetes.io/region";
constexpr std::string_view kLabelRegionBeta = "failure-domain.beta.kubernetes.io/region";

// Migration of the plugin's volumes is on in kube-scheduler v1.34's default
// gates.
bool MigrationOn(std::string_view plugin) {
  return plugin == nvl::kAWSEBSInTreePluginName || plugin == nvl::kGCEPDInTreePluginName ||
         plugin == nvl::kAzureDiskInTreePluginName || plugin == nvl::kCinderInTreePluginName ||
         plugin == nvl::kPortworxInTreePluginName;
}

bool MigratedOnNode(std::string_view plugin, const api::CSINode* csi_node) {
  if (csi_node == nullptr) return false;
  auto it = csi_node->metadata.annotations.find(std::string(nvl::kAnnMigratedPlugins));
  if (it == csi_node->metadata.annotations.end()) return false;
  std::string_view list = it->second;
  while (true) {
    const size_t comma = list.find(',');
    if (list.substr(0, comma) == plugin) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

// The CSI topology key of the plugin's zones; "" when its translation keeps
// the node affinity as it is.
std::string_view TopologyKey(std::string_view plugin) {
  if (plugin == nvl::kAWSEBSInTreePluginName) return "topology.ebs.csi.aws.com/zone";
  if (plugin == nvl::kGCEPDInTreePluginName) return "topology.gke.io/zone";
  if (plugin == nvl::kCinderInTreePluginName) return "topology.cinder.csi.openstack.org/zone";
  return "";
}

bool HasTerms(const api::PersistentVolume& pv) {
  return pv.spec.node_affinity && pv.spec.node_affinity->required &&
         !pv.spec.node_affinity->required->node_selector_terms.empty();
}

bool AffinityHasKey(const api::PersistentVolume& pv, std::string_view key) {
  if (!HasTerms(pv)) return false;
  for (const api::NodeSelectorTerm& t : pv.spec.node_affinity->required->node_selector_terms) {
    for (const api::NodeSelectorRequirement& r : t.match_expressions) {
      if (r.key == key) return true;
    }
  }
  return false;
}

// Renames the key in every term's requirements.
void ReplaceKey(api::PersistentVolume& pv, std::string_view from, std::string_view to) {
  if (!HasTerms(pv)) return;
  for (api::NodeSelectorTerm& t : pv.spec.node_affinity->required->node_selector_terms) {
    for (api::NodeSelectorRequirement& r : t.match_expressions) {
      if (r.key == from) r.key = std::string(to);
    }
  }
}

// Adds `key In zones` (trimmed, deduplicated, sorted, blanks dropped) to
// every term, creating one when there is none; nothing when no zone is left.
void AddZones(api::PersistentVolume& pv, std::string_view key, const std::string& label) {
  std::set<std::string> zones;
  std::string_view rest = label;
  while (true) {
    const size_t at = rest.find("__");
    std::string_view z = rest.substr(0, at);
    while (!z.empty() && (z.front() == ' ' || z.front() == '\t' || z.front() == '\n' || z.front() == '\r')) {
      z.remove_prefix(1);
    }
    while (!z.empty() && (z.back() == ' ' || z.back() == '\t' || z.back() == '\n' || z.back() == '\r')) {
      z.remove_suffix(1);
    }
    if (!z.empty()) zones.emplace(z);
    if (at == std::string_view::npos) break;
    rest.remove_prefix(at + 2);
  }
  if (zones.empty()) return;
  if (!pv.spec.node_affinity) pv.spec.node_affinity.emplace();
  if (!pv.spec.node_affinity->required) pv.spec.node_affinity->required.emplace();
  auto& terms = pv.spec.node_affinity->required->node_selector_terms;
  if (terms.empty()) terms.emplace_back();
  for (api::NodeSelectorTerm& t : terms) {
    t.match_expressions.push_back(
        api::NodeSelectorRequirement{std::string(key), "In", std::vector<std::string>(zones.begin(), zones.end())});
  }
}

// The zone and region labels the PV uses: GA or beta, from its node
// affinity first, then from its labels; GA when neither says.
std::pair<std::string_view, std::string_view> TopologyLabels(const api::PersistentVolume& pv) {
  if (AffinityHasKey(pv, kLabelZone)) return {kLabelZone, kLabelRegion};
  if (AffinityHasKey(pv, kLabelZoneBeta)) return {kLabelZoneBeta, kLabelRegionBeta};
  const auto& labels = pv.metadata.labels;
  if (labels.count(std::string(kLabelZone)) > 0) return {kLabelZone, kLabelRegion};
  if (labels.count(std::string(kLabelZoneBeta)) > 0) return {kLabelZoneBeta, kLabelRegionBeta};
  return {kLabelZone, kLabelRegion};
}

void TranslateTopology(api::PersistentVolume& pv, std::string_view csi_key) {
  const auto [zone_label, region_label] = TopologyLabels(pv);
  if (AffinityHasKey(pv, zone_label)) {
    ReplaceKey(pv, zone_label, csi_key);
  } else if (auto it = pv.metadata.labels.find(std::string(zone_label)); it != pv.metadata.labels.end()) {
    AddZones(pv, csi_key, it->second);
  }
  if (region_label == kLabelRegionBeta) ReplaceKey(pv, kLabelRegionBeta, kLabelRegion);
}

}  // namespace

util::StatusOr<std::shared_ptr<const api::PersistentVolume>> TranslatePVForNode(
    const std::shared_ptr<const api::PersistentVolume>& pv, const api::CSINode* csi_node) {
  const std::string_view plugin = nvl::InTreePluginName(*pv);
  if (plugin.empty() || !MigrationOn(plugin) || !MigratedOnNode(plugin, csi_node)) return pv;
  util::StatusOr<nvl::CSIVolume> translated = nvl::TranslatePersistentVolume(*pv);
  if (!translated.ok()) return util::InvalidArgument("could not translate pv: " + translated.status().message());
  const std::string_view key = TopologyKey(plugin);
  if (key.empty()) return pv;
  auto out = std::make_shared<api::PersistentVolume>(*pv);
  TranslateTopology(*out, key);
  return std::shared_ptr<const api::PersistentVolume>(std::move(out));
}

}  // namespace ksched::scheduler::plugins::volumebinding
