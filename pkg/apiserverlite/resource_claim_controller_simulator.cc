#include "pkg/apiserverlite/resource_claim_controller_simulator.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/pod_helpers.h"
#include "pkg/api/resource_codec.h"
#include "pkg/apiserverlite/defaulting.h"
#include "pkg/apiserverlite/meta.h"

namespace ksched::apiserver {

namespace {

using nlohmann::json;

// The real controller leaves room for "-" and 5 random characters in 63.
constexpr size_t kMaxGenerateNameBase = 57;

bool PodDone(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed" ||
         (pod.metadata.deletion_timestamp.has_value() && pod.spec.node_name.empty());
}

// The pod that owns a generated claim (its controller reference).
const api::OwnerReference* OwningPod(const api::ResourceClaim& claim) {
  for (const api::OwnerReference& ref : claim.metadata.owner_references) {
    if (ref.api_version == "v1" && ref.kind == "Pod" && ref.controller.value_or(false)) return &ref;
  }
  return nullptr;
}

bool OwnedBy(const api::ResourceClaim& claim, const api::Pod& pod) {
  const api::OwnerReference* owner = OwningPod(claim);
  return owner != nullptr && owner->uid == pod.metadata.uid;
}

std::string GenerateNameBase(const std::string& pod, const std::string& entry) {
  std::string base = pod + "-" + entry + "-";
  if (base.size() <= kMaxGenerateNameBase) return base;
  // Both parts shortened in proportion, so the entry's name survives a long
  // pod name (the server would cut only the end).
  const size_t total = base.size();
  return pod.substr(0, pod.size() * kMaxGenerateNameBase / total) + "-" +
         entry.substr(0, entry.size() * kMaxGenerateNameBase / total);
}

// Only pods with spec.resourceClaims concern the controller: every other
// pod is skipped without decoding (kube-apiserver-lite serves benchmarks
// with thousands of pods).
bool HasResourceClaims(const json& pod) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return false;
  auto claims = spec->find("resourceClaims");
  return claims != spec->end() && claims->is_array() && !claims->empty();
}

std::optional<api::Pod> DecodePod(const json& obj) {
  util::StatusOr<api::Pod> pod = api::FromJson<api::Pod>(obj);
  if (!pod.ok()) return std::nullopt;
  return std::move(pod).value();
}

}  // namespace

ResourceClaimControllerSimulator::ResourceClaimControllerSimulator(ObjectStore& pods, ObjectStore& claims,
                                                                   ObjectStore& templates,
                                                                   const ResourceInfo& claim_info,
                                                                   TimerQueue& timers, util::Duration delay)
    : pods_(pods), claims_(claims), templates_(templates), claim_info_(claim_info), timers_(timers), delay_(delay) {}

void ResourceClaimControllerSimulator::Attach() {
  pod_observer_ = pods_.AddObserver([this](const EventPtr& e) {
    if (e->object() && HasResourceClaims(e->object()->object)) OnEvent();
  });
  claim_observer_ = claims_.AddObserver([this](const EventPtr&) { OnEvent(); });
  template_observer_ = templates_.AddObserver([this](const EventPtr&) { OnEvent(); });
}

void ResourceClaimControllerSimulator::Detach() {
  pods_.RemoveObserver(pod_observer_);
  claims_.RemoveObserver(claim_observer_);
  templates_.RemoveObserver(template_observer_);
}

void ResourceClaimControllerSimulator::OnEvent() {
  // One pass covers every change seen until it starts.
  if (sync_pending_.exchange(true)) return;
  timers_.ScheduleAfter(delay_, [this] { Sync(); });
}

void ResourceClaimControllerSimulator::Sync() {
  sync_pending_.store(false);
  for (const ObjectPtr& obj : pods_.List("", {}).items) SyncPod(obj->object);
  for (const ObjectPtr& obj : claims_.List("", {}).items) SyncClaim(obj->key, obj->object);
}

void ResourceClaimControllerSimulator::SyncPod(const json& raw) {
  if (!HasResourceClaims(raw)) return;
  std::optional<api::Pod> pod = DecodePod(raw);
  if (!pod || pod->metadata.deletion_timestamp || pod->spec.resource_claims.empty()) return;
  std::map<std::string, std::string> created;  // entry name -> claim name
  for (const api::PodResourceClaim& entry : pod->spec.resource_claims) {
    if (!entry.resource_claim_template_name) continue;
    const api::PodResourceClaimStatus* recorded = api::GetClaimStatus(pod->status, entry.name);
    if (recorded != nullptr) {
      if (!recorded->resource_claim_name) continue;  // recorded as not needed
      ObjectPtr existing = claims_.Get(ObjectKey(pod->metadata.namespace_, *recorded->resource_claim_name));
      if (existing) {
        util::StatusOr<api::ResourceClaim> claim = api::FromJson<api::ResourceClaim>(existing->object);
        if (claim.ok() && OwnedBy(*claim, *pod)) continue;
      }
    }
    std::string name = EnsureClaim(raw, entry.name, *entry.resource_claim_template_name);
    if (!name.empty()) created[entry.name] = name;
  }
  if (created.empty()) return;
  const std::string uid = pod->metadata.uid;
  pods_.Update(ObjectKey(pod->metadata.namespace_, pod->metadata.name), [&](const json& current) -> ApiResult<json> {
    if (current["metadata"].value("uid", "") != uid) return ConflictError("pods", pod->metadata.name, "replaced");
    json next = current;
    json& status = next["status"];
    if (!status.is_object()) status = json::object();
    json& statuses = status["resourceClaimStatuses"];
    if (!statuses.is_array()) statuses = json::array();
    for (const auto& [entry, claim] : created) {
      auto it = std::find_if(statuses.begin(), statuses.end(),
                             [&](const json& s) { return s.is_object() && s.value("name", "") == entry; });
      if (it != statuses.end()) {
        (*it)["resourceClaimName"] = claim;
      } else {
        statuses.push_back({{"name", entry}, {"resourceClaimName", claim}});
      }
    }
    return next;
  });
}

std::string ResourceClaimControllerSimulator::EnsureClaim(const json& raw_pod, const std::string& pod_claim,
                                                          const std::string& template_name) {
  const json& meta = raw_pod["metadata"];
  const std::string ns = meta.value("namespace", "");
  const std::string pod_name = meta.value("name", "");
  const std::string pod_uid = meta.value("uid", "");
  // A claim created earlier whose name did not reach the pod's status.
  for (const ObjectPtr& obj : claims_.List(ns + "/", {}).items) {
    util::StatusOr<api::ResourceClaim> claim = api::FromJson<api::ResourceClaim>(obj->object);
    if (!claim.ok()) continue;
    const api::OwnerReference* owner = OwningPod(*claim);
    auto ann = claim->metadata.annotations.find(kAnnPodClaimName);
    if (owner != nullptr && owner->uid == pod_uid && ann != claim->metadata.annotations.end() &&
        ann->second == pod_claim) {
      return claim->metadata.name;
    }
  }
  ObjectPtr tmpl = templates_.Get(ObjectKey(ns, template_name));
  if (!tmpl) return "";
  const json& tspec = tmpl->object.contains("spec") && tmpl->object["spec"].is_object() ? tmpl->object["spec"]
                                                                                         : json::object();
  const json tmeta = tspec.contains("metadata") && tspec["metadata"].is_object() ? tspec["metadata"] : json::object();
  json annotations = tmeta.contains("annotations") && tmeta["annotations"].is_object() ? tmeta["annotations"]
                                                                                       : json::object();
  annotations[kAnnPodClaimName] = pod_claim;
  json claim_meta = {{"generateName", GenerateNameBase(pod_name, pod_claim)},
                     {"namespace", ns},
                     {"annotations", annotations},
                     {"ownerReferences", json::array({{{"apiVersion", "v1"},
                                                       {"kind", "Pod"},
                                                       {"name", pod_name},
                                                       {"uid", pod_uid},
                                                       {"controller", true},
                                                       {"blockOwnerDeletion", true}}})}};
  if (tmeta.contains("labels") && tmeta["labels"].is_object()) claim_meta["labels"] = tmeta["labels"];
  json claim = {{"apiVersion", "resource.k8s.io/v1"},
                {"kind", "ResourceClaim"},
                {"metadata", claim_meta},
                {"spec", tspec.contains("spec") ? tspec["spec"] : json::object()}};
  auto prepared = PrepareForCreate(claim_info_, std::move(claim), ns, timers_.clock().WallNow());
  if (!prepared.ok()) return "";
  auto stored = claims_.Create(std::move(prepared.value()));
  if (!stored.ok()) return "";
  claims_created_.fetch_add(1);
  return ObjectName(stored.value()->object);
}

void ResourceClaimControllerSimulator::SyncClaim(const std::string& key, const json& raw) {
  util::StatusOr<api::ResourceClaim> claim = api::FromJson<api::ResourceClaim>(raw);
  if (!claim.ok()) return;
  const std::string& ns = claim->metadata.namespace_;
  auto pod_of = [&](const std::string& name) -> std::optional<api::Pod> {
    ObjectPtr obj = pods_.Get(ObjectKey(ns, name));
    return obj ? DecodePod(obj->object) : std::nullopt;
  };
  size_t valid = 0;
  std::vector<std::string> stale_uids;
  for (const api::ResourceClaimConsumerReference& ref : claim->status.reserved_for) {
    if (!ref.api_group.empty() || ref.resource != "pods") {
      ++valid;  // not a pod: the real controller does not touch it either
      continue;
    }
    std::optional<api::Pod> pod = pod_of(ref.name);
    if (!pod || pod->metadata.uid != ref.uid || PodDone(*pod)) {
      stale_uids.push_back(ref.uid);
    } else {
      ++valid;
    }
  }
  const auto& finalizers = claim->metadata.finalizers;
  const bool protected_claim =
      std::find(finalizers.begin(), finalizers.end(), kClaimDeleteProtectionFinalizer) != finalizers.end();
  const bool release = valid == 0 && protected_claim &&
                       (!stale_uids.empty() || claim->metadata.deletion_timestamp.has_value());
  if (!stale_uids.empty() || release) {
    const std::string uid = claim->metadata.uid;
    bool deallocated = false;
    auto updated = claims_.Update(key, [&](const json& current) -> ApiResult<json> {
      if (current["metadata"].value("uid", "") != uid) return ConflictError("resourceclaims", key, "replaced");
      json next = current;
      json& status = next["status"];
      if (!status.is_object()) status = json::object();
      json kept = json::array();
      if (status.contains("reservedFor") && status["reservedFor"].is_array()) {
        for (const json& ref : status["reservedFor"]) {
          const bool stale = ref.is_object() && ref.value("apiGroup", "").empty() &&
                             ref.value("resource", "") == "pods" &&
                             std::find(stale_uids.begin(), stale_uids.end(), ref.value("uid", "")) != stale_uids.end();
          if (!stale) kept.push_back(ref);
        }
      }
      if (kept.empty()) {
        status.erase("reservedFor");
      } else {
        status["reservedFor"] = kept;
      }
      if (release && kept.empty()) {
        deallocated = status.contains("allocation");
        status.erase("allocation");
        json& fins = next["metadata"]["finalizers"];
        if (fins.is_array()) {
          fins.erase(std::remove(fins.begin(), fins.end(), json(kClaimDeleteProtectionFinalizer)), fins.end());
          if (fins.empty()) next["metadata"].erase("finalizers");
        }
      }
      return next;
    });
    if (!updated.ok()) return;
    reservations_removed_.fetch_add(stale_uids.size());
    if (deallocated) claims_deallocated_.fetch_add(1);
    if (valid > 0) return;
  }
  if (valid > 0) return;
  // Reserved for nobody: a generated claim whose pod will not run is removed
  // (the garbage collector removes it once the pod is gone).
  const api::OwnerReference* owner = OwningPod(*claim);
  if (owner == nullptr || claim->metadata.deletion_timestamp) return;
  std::optional<api::Pod> pod = pod_of(owner->name);
  if (pod && pod->metadata.uid == owner->uid && !PodDone(*pod)) return;
  auto deleted = claims_.Delete(key, {}, FormatTime(timers_.clock().WallNow()));
  if (deleted.ok()) claims_deleted_.fetch_add(1);
}

}  // namespace ksched::apiserver
