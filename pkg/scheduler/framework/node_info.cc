#include "pkg/scheduler/framework/node_info.h"

#include <atomic>
#include <utility>

#include "pkg/api/pod_helpers.h"
#include "spdlog/fmt/fmt.h"

namespace ksched::scheduler::framework {

namespace {

std::atomic<int64_t> g_generation{0};

std::string_view SanitizeIP(std::string_view ip) { return ip.empty() ? api::kDefaultBindAllHostIP : ip; }
std::string_view SanitizeProtocol(std::string_view p) { return p.empty() ? api::kProtocolTCP : p; }

// Removes the entry with the pod's UID by swapping it with the last one.
bool RemoveByUID(std::vector<PodInfoPtr>& pods, std::string_view uid) {
  for (size_t i = 0; i < pods.size(); ++i) {
    if (pods[i]->pod().metadata.uid == uid) {
      if (i != pods.size() - 1) pods[i] = std::move(pods.back());
      pods.pop_back();
      return true;
    }
  }
  return false;
}

std::string ResourceString(const Resource& r) {
  std::string out = fmt::format("{{MilliCPU:{} Memory:{} EphemeralStorage:{} AllowedPodNumber:{}", r.milli_cpu,
                                r.memory, r.ephemeral_storage, r.allowed_pod_number);
  for (const auto& [name, v] : r.scalar_resources) out += fmt::format(" {}:{}", name, v);
  return out + "}";
}

}  // namespace

int64_t NextGeneration() { return g_generation.fetch_add(1, std::memory_order_relaxed) + 1; }

bool PodHasAffinity(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && (a->pod_affinity || a->pod_anti_affinity);
}

bool PodHasRequiredAntiAffinity(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && a->pod_anti_affinity && !a->pod_anti_affinity->required_during_scheduling_ignored_during_execution.empty();
}

std::string NamespacedName(std::string_view namespace_, std::string_view name) {
  std::string out;
  out.reserve(namespace_.size() + 1 + name.size());
  out.append(namespace_).append("/").append(name);
  return out;
}

// ---------------------------------------------------------------- HostPortInfo

void HostPortInfo::Add(std::string_view ip, std::string_view protocol, int32_t port) {
  if (port <= 0) return;
  ip = SanitizeIP(ip);
  auto it = ports_.find(ip);
  if (it == ports_.end()) it = ports_.emplace(std::string(ip), std::set<ProtocolPort>{}).first;
  it->second.insert(ProtocolPort{std::string(SanitizeProtocol(protocol)), port});
}

void HostPortInfo::Remove(std::string_view ip, std::string_view protocol, int32_t port) {
  if (port <= 0) return;
  auto it = ports_.find(SanitizeIP(ip));
  if (it == ports_.end()) return;
  it->second.erase(ProtocolPort{std::string(SanitizeProtocol(protocol)), port});
  if (it->second.empty()) ports_.erase(it);
}

size_t HostPortInfo::Len() const {
  size_t n = 0;
  for (const auto& [ip, set] : ports_) n += set.size();
  return n;
}

bool HostPortInfo::CheckConflict(std::string_view ip, std::string_view protocol, int32_t port) const {
  if (port <= 0) return false;
  ip = SanitizeIP(ip);
  ProtocolPort pp{std::string(SanitizeProtocol(protocol)), port};
  if (ip == api::kDefaultBindAllHostIP) {
    // 0.0.0.0 collides with the same port on any address.
    for (const auto& [addr, set] : ports_) {
      if (set.count(pp) > 0) return true;
    }
    return false;
  }
  for (std::string_view addr : {ip, api::kDefaultBindAllHostIP}) {
    auto it = ports_.find(addr);
    if (it != ports_.end() && it->second.count(pp) > 0) return true;
  }
  return false;
}

// ---------------------------------------------------------------- NodeInfo

NodeInfo::NodeInfo(std::shared_ptr<const api::Node> node, const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  Changed();
  if (node) SetNode(std::move(node));
  for (const auto& p : pods) AddPod(p);
}

void NodeInfo::Changed() {
  memo_.Clear();
  generation_ = NextGeneration();
}

const std::string& NodeInfo::EmptyName() {
  static const std::string* empty = new std::string();
  return *empty;
}

const HostPortInfo& NodeInfo::NoPorts() {
  static const HostPortInfo* none = new HostPortInfo();
  return *none;
}

const PVCRefCounts& NodeInfo::NoClaims() {
  static const PVCRefCounts* none = new PVCRefCounts();
  return *none;
}

const ImageStates& NodeInfo::EmptyImageStates() {
  static const ImageStates* empty = new ImageStates();
  return *empty;
}

void NodeInfo::AddPod(std::shared_ptr<const api::Pod> pod) { AddPodInfo(std::make_shared<const PodInfo>(std::move(pod))); }

void NodeInfo::AddPodInfo(PodInfoPtr pod_info) {
  const api::Pod& pod = pod_info->pod();
  if (PodHasAffinity(pod)) pods_with_affinity_.push_back(pod_info);
  if (PodHasRequiredAntiAffinity(pod)) pods_with_required_anti_affinity_.push_back(pod_info);
  Update(*pod_info, +1);
  pods_.push_back(std::move(pod_info));
}

util::Status NodeInfo::RemovePod(const api::Pod& pod) {
  const std::string& uid = pod.metadata.uid;
  for (size_t i = 0; i < pods_.size(); ++i) {
    if (pods_[i]->pod().metadata.uid != uid) continue;
    PodInfoPtr removed = pods_[i];
    RemoveByUID(pods_, uid);
    RemoveByUID(pods_with_affinity_, uid);
    RemoveByUID(pods_with_required_anti_affinity_, uid);
    Update(*removed, -1);
    return util::Status();
  }
  return util::NotFound(fmt::format("no corresponding pod {} in pods of node {}", api::KeyOf(pod.metadata),
                                    node_name()));
}

void NodeInfo::Update(const PodInfo& pi, int sign) {
  const Resource& r = pi.requests();
  if (sign > 0) {
    requested_.Add(r);
  } else {
    requested_.Sub(r);
  }
  non_zero_requested_.milli_cpu += sign * pi.non0_milli_cpu();
  non_zero_requested_.memory += sign * pi.non0_memory();
  const api::Pod& pod = pi.pod();
  // A removal from a node without ports or claims has none to remove.
  if (sign > 0 || ports_and_claims_ != nullptr) {
    for (const api::HostPort& hp : api::PodHostPorts(pod)) {
      if (sign > 0) {
        MutablePortsAndClaims().used_ports.Add(hp.host_ip, hp.protocol, hp.port);
      } else {
        MutablePortsAndClaims().used_ports.Remove(hp.host_ip, hp.protocol, hp.port);
      }
    }
    for (const api::Volume& v : pod.spec.volumes) {
      if (!v.persistent_volume_claim) continue;
      std::string key = NamespacedName(pod.metadata.namespace_, v.persistent_volume_claim->claim_name);
      if (sign > 0) {
        ++MutablePortsAndClaims().pvc_ref_counts[key];
      } else {
        PVCRefCounts& counts = MutablePortsAndClaims().pvc_ref_counts;
        auto it = counts.find(key);
        if (it != counts.end() && --it->second <= 0) counts.erase(it);
      }
    }
    if (ports_and_claims_ != nullptr && ports_and_claims_->used_ports.Len() == 0 &&
        ports_and_claims_->pvc_ref_counts.empty()) {
      ports_and_claims_.reset();
    }
  }
  Changed();
}

NodeInfo::PortsAndClaims& NodeInfo::MutablePortsAndClaims() {
  // Only this NodeInfo holds it when the count is 1: copies are made from
  // this object, which its owner is writing now.
  if (ports_and_claims_ == nullptr || ports_and_claims_.use_count() > 1) {
    ports_and_claims_ = ports_and_claims_ == nullptr ? std::make_shared<PortsAndClaims>()
                                                     : std::make_shared<PortsAndClaims>(*ports_and_claims_);
  }
  return *ports_and_claims_;
}

void NodeInfo::SetNode(std::shared_ptr<const api::Node> node) {
  node_owner_ = std::move(node);
  node_ = node_owner_.get();
  allocatable_ = node_ != nullptr ? Resource(node_->status.allocatable.value_or_default()) : Resource();
  name_data_ = node_ != nullptr ? node_->metadata.name.data() : "";
  name_size_ = node_ != nullptr ? static_cast<uint32_t>(node_->metadata.name.size()) : 0;
  node_has_taints_ = node_ != nullptr && !node_->spec.taints.empty();
  node_unschedulable_ = node_ != nullptr && node_->spec.unschedulable;
  Changed();
}

void NodeInfo::RemoveNode() {
  node_owner_.reset();
  node_ = nullptr;
  name_data_ = "";
  name_size_ = 0;
  node_has_taints_ = false;
  node_unschedulable_ = false;
  Changed();
}

std::string NodeInfo::String() const {
  std::string pods;
  for (const PodInfoPtr& p : pods_) {
    if (!pods.empty()) pods += " ";
    pods += p->pod().metadata.name;
  }
  std::string ports;
  for (const auto& [ip, set] : used_ports().entries()) {
    for (const ProtocolPort& pp : set) {
      if (!ports.empty()) ports += " ";
      ports += fmt::format("{}/{}/{}", ip, pp.protocol, pp.port);
    }
  }
  return fmt::format("&NodeInfo{{Node:{}, Pods:[{}], RequestedResource:{}, NonZeroRequest:{}, UsedPort:[{}], "
                     "AllocatableResource:{}}}",
                     node_name(), pods, ResourceString(requested_), ResourceString(non_zero_requested_), ports,
                     ResourceString(allocatable_));
}

}  // namespace ksched::scheduler::framework
