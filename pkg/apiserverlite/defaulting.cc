#include "pkg/apiserverlite/defaulting.h"

#include <fmt/format.h>

#include "pkg/apiserverlite/crd.h"
#include "pkg/apiserverlite/meta.h"
#include "pkg/api/quantity.h"

namespace ksched::apiserver {

namespace {

using nlohmann::json;

constexpr const char* kSubdomainMessage =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr const char* kLabelMessage =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr const char* kPodUpdateMessage =
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set "
    "to 1 if it was previously negative)";

const char* const kContainerLists[] = {"containers", "initContainers", "ephemeralContainers"};

void SetDefault(json& obj, const char* key, const json& value) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) obj[key] = value;
}

json& Child(json& obj, const char* key) {
  json& c = obj[key];
  if (!c.is_object()) c = json::object();
  return c;
}

bool IsStringMap(const json& j) {
  if (!j.is_object()) return false;
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) return false;
  }
  return true;
}

std::optional<ApiError> CheckQuantities(const json& list, const std::string& field) {
  if (list.is_null()) return std::nullopt;
  if (!list.is_object()) return BadRequestError(fmt::format("{}: must be a map", field));
  for (const auto& [name, q] : list.items()) {
    std::string text;
    if (q.is_string()) {
      text = q.get<std::string>();
    } else if (q.is_number()) {
      text = q.dump();
    } else {
      return BadRequestError(fmt::format("{}.{}: quantity must be a string", field, name));
    }
    auto parsed = api::Quantity::Parse(text);
    if (!parsed.ok()) {
      return BadRequestError(fmt::format("{}.{}: {}", field, name, parsed.status().message()));
    }
  }
  return std::nullopt;
}

std::optional<api::Quantity> QuantityOf(const json& list, const char* name) {
  if (!list.is_object()) return std::nullopt;
  auto it = list.find(name);
  if (it == list.end()) return std::nullopt;
  std::string text = it->is_string() ? it->get<std::string>() : it->dump();
  auto q = api::Quantity::Parse(text);
  if (!q.ok()) return std::nullopt;
  return *q;
}

std::optional<ApiError> CheckKindAndVersion(const ResourceInfo& info, json& obj) {
  auto kind = obj.find("kind");
  if (kind == obj.end() || kind->is_null() || *kind == "") {
    obj["kind"] = info.kind;
  } else if (*kind != info.kind) {
    return BadRequestError(fmt::format("the kind of the provided object ({}) does not match the "
                                       "kind of the resource ({})",
                                       kind->is_string() ? kind->get<std::string>() : kind->dump(),
                                       info.kind));
  }
  auto version = obj.find("apiVersion");
  if (version == obj.end() || version->is_null() || *version == "") {
    obj["apiVersion"] = info.ApiVersion();
  } else if (*version != info.ApiVersion()) {
    return BadRequestError(fmt::format(
        "the API version in the data ({}) does not match the expected API version ({})",
        version->is_string() ? version->get<std::string>() : version->dump(), info.ApiVersion()));
  }
  return std::nullopt;
}

void DefaultContainer(json& c) {
  if (!c.is_object()) return;
  auto res = c.find("resources");
  if (res == c.end() || !res->is_object()) return;
  auto limits = res->find("limits");
  if (limits == res->end() || !limits->is_object()) return;
  json& requests = Child(*res, "requests");
  for (const auto& [name, q] : limits->items()) {
    if (!requests.contains(name)) requests[name] = q;
  }
}

// resource.k8s.io/v1 defaulting of a claim spec: every request (and
// firstAvailable subrequest) gets allocationMode ExactCount, and count 1 in
// that mode.
void DefaultDeviceRequest(json& request) {
  if (!request.is_object()) return;
  SetDefault(request, "allocationMode", "ExactCount");
  if (request["allocationMode"] == "ExactCount") SetDefault(request, "count", 1);
}

void DefaultResourceClaimSpec(json& spec) {
  if (!spec.is_object()) return;
  auto devices = spec.find("devices");
  if (devices == spec.end() || !devices->is_object()) return;
  auto requests = devices->find("requests");
  if (requests == devices->end() || !requests->is_array()) return;
  for (json& request : *requests) {
    if (!request.is_object()) continue;
    auto exactly = request.find("exactly");
    if (exactly != request.end()) DefaultDeviceRequest(*exactly);
    auto first = request.find("firstAvailable");
    if (first != request.end() && first->is_array()) {
      for (json& sub : *first) DefaultDeviceRequest(sub);
    }
  }
}

void ApplyDefaults(const ResourceInfo& info, json& obj) {
  const std::string& kind = info.kind;
  if (kind == "Pod") {
    json& spec = Child(obj, "spec");
    SetDefault(spec, "schedulerName", "default-scheduler");
    if (spec["schedulerName"] == "") spec["schedulerName"] = "default-scheduler";
    SetDefault(spec, "restartPolicy", "Always");
    SetDefault(spec, "dnsPolicy", "ClusterFirst");
    SetDefault(spec, "terminationGracePeriodSeconds", 30);
    SetDefault(spec, "securityContext", json::object());
    SetDefault(spec, "enableServiceLinks", true);
    for (const char* list : kContainerLists) {
      auto it = spec.find(list);
      if (it == spec.end() || !it->is_array()) continue;
      for (auto& c : *it) DefaultContainer(c);
    }
  } else if (kind == "Node") {
    auto status = obj.find("status");
    if (status != obj.end() && status->is_object() && status->contains("capacity") &&
        !status->contains("allocatable")) {
      (*status)["allocatable"] = (*status)["capacity"];
    }
  } else if (kind == "PersistentVolume") {
    json& spec = Child(obj, "spec");
    SetDefault(spec, "persistentVolumeReclaimPolicy", "Retain");
    SetDefault(spec, "volumeMode", "Filesystem");
  } else if (kind == "PersistentVolumeClaim") {
    SetDefault(Child(obj, "spec"), "volumeMode", "Filesystem");
  } else if (kind == "Namespace") {
    json& meta = Child(obj, "metadata");
    Child(meta, "labels")["kubernetes.io/metadata.name"] = meta.value("name", "");
  } else if (kind == "StorageClass") {
    SetDefault(obj, "reclaimPolicy", "Delete");
    SetDefault(obj, "volumeBindingMode", "Immediate");
  } else if (kind == "PriorityClass") {
    SetDefault(obj, "preemptionPolicy", "PreemptLowerPriority");
    SetDefault(obj, "value", 0);
  } else if (kind == "CSIDriver") {
    json& spec = Child(obj, "spec");
    SetDefault(spec, "attachRequired", true);
    SetDefault(spec, "podInfoOnMount", false);
    SetDefault(spec, "requiresRepublish", false);
    SetDefault(spec, "storageCapacity", false);
    SetDefault(spec, "seLinuxMount", false);
    SetDefault(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType");
    SetDefault(spec, "volumeLifecycleModes", json::array({"Persistent"}));
  } else if (kind == "ResourceClaim") {
    DefaultResourceClaimSpec(Child(obj, "spec"));
  } else if (kind == "ResourceClaimTemplate") {
    DefaultResourceClaimSpec(Child(Child(obj, "spec"), "spec"));
  }
}

// The DefaultTolerationSeconds admission plugin: pods tolerate the
// not-ready and unreachable NoExecute taints for 300 s unless they say
// otherwise.
void AddDefaultTolerations(json& spec) {
  json& tolerations = spec["tolerations"];
  if (!tolerations.is_array()) tolerations = json::array();
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    bool tolerated = false;
    for (const auto& t : tolerations) {
      if (!t.is_object()) continue;
      std::string effect = t.value("effect", "");
      std::string tkey = t.value("key", "");
      std::string op = t.value("operator", "");
      if ((effect.empty() || effect == "NoExecute") &&
          (tkey == key || (tkey.empty() && op == "Exists"))) {
        tolerated = true;
      }
    }
    if (!tolerated) {
      tolerations.push_back({{"key", key},
                             {"operator", "Exists"},
                             {"effect", "NoExecute"},
                             {"tolerationSeconds", 300}});
    }
  }
}

std::optional<ApiError> Validate(const ResourceInfo& info, const json& obj) {
  const std::string name = ObjectName(obj);
  if (info.kind == "CustomResourceDefinition" && info.group == "apiextensions.k8s.io") {
    auto resources = CustomResourcesOf(obj);
    if (!resources.ok()) return resources.error();
    return std::nullopt;
  }
  if (info.kind == "Pod") {
    const json& spec = obj["spec"];
    auto containers = spec.find("containers");
    if (containers == spec.end() || !containers->is_array() || containers->empty()) {
      return InvalidError("Pod", name, "spec.containers", "FieldValueRequired", "");
    }
    for (const char* list : kContainerLists) {
      auto it = spec.find(list);
      if (it == spec.end() || it->is_null()) continue;
      if (!it->is_array()) return BadRequestError(fmt::format("spec.{}: must be a list", list));
      for (size_t i = 0; i < it->size(); ++i) {
        const json& c = (*it)[i];
        std::string field = fmt::format("spec.{}[{}]", list, i);
        if (!c.is_object()) return BadRequestError(field + ": must be an object");
        auto cname = c.find("name");
        if (cname == c.end() || !cname->is_string() || cname->get<std::string>().empty()) {
          return InvalidError("Pod", name, field + ".name", "FieldValueRequired", "");
        }
        if (!IsDnsLabel(cname->get<std::string>())) {
          return InvalidError("Pod", name, field + ".name", "FieldValueInvalid",
                              fmt::format("\"{}\": {}", cname->get<std::string>(), kLabelMessage));
        }
        auto res = c.find("resources");
        if (res != c.end() && res->is_object()) {
          for (const char* part : {"requests", "limits"}) {
            if (auto err = CheckQuantities(res->value(part, json()),
                                           fmt::format("{}.resources.{}", field, part))) {
              return err;
            }
          }
        }
      }
    }
  } else if (info.kind == "Node") {
    auto status = obj.find("status");
    if (status != obj.end() && status->is_object()) {
      for (const char* part : {"capacity", "allocatable"}) {
        if (auto err = CheckQuantities(status->value(part, json()),
                                       fmt::format("status.{}", part))) {
          return err;
        }
      }
    }
  }
  return std::nullopt;
}

// Everything but metadata and status: a change here bumps generation.
json SpecPart(const json& obj) {
  json s = obj;
  s.erase("metadata");
  s.erase("status");
  return s;
}

// A PV's volume source: its spec less the members kube lets an update
// change (the rest is immutable after creation, as kube-apiserver checks).
json PersistentVolumeSource(json spec) {
  if (!spec.is_object()) return json::object();
  for (const char* mutable_field : {"capacity", "accessModes", "claimRef", "persistentVolumeReclaimPolicy",
                                    "storageClassName", "mountOptions", "volumeMode", "nodeAffinity",
                                    "volumeAttributesClassName"}) {
    spec.erase(mutable_field);
  }
  return spec;
}

json ImmutablePodSpec(json spec) {
  if (!spec.is_object()) return spec;
  for (const char* f : {"activeDeadlineSeconds", "tolerations", "schedulingGates",
                        "terminationGracePeriodSeconds"}) {
    spec.erase(f);
  }
  for (const char* list : kContainerLists) {
    auto it = spec.find(list);
    if (it == spec.end() || !it->is_array()) continue;
    for (auto& c : *it) {
      if (c.is_object()) c.erase("image");
    }
  }
  return spec;
}

std::optional<ApiError> CheckPreconditions(const ResourceInfo& info, const json& obj,
                                           const json& current) {
  const json& meta = obj["metadata"];
  const json& cur_meta = current["metadata"];
  std::string rv = meta.value("resourceVersion", "");
  if (!rv.empty() && rv != cur_meta.value("resourceVersion", "")) {
    return ConflictError(info.QualifiedResource(), cur_meta.value("name", ""),
                         "the object has been modified; please apply your changes to the latest "
                         "version and try again");
  }
  std::string uid = meta.value("uid", "");
  if (!uid.empty() && uid != cur_meta.value("uid", "")) {
    return ConflictError(info.QualifiedResource(), cur_meta.value("name", ""),
                         fmt::format("Precondition failed: UID in precondition: {}, UID in object "
                                     "meta: {}",
                                     uid, cur_meta.value("uid", "")));
  }
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> CheckObjectShape(const json& obj) {
  if (!obj.is_object()) return BadRequestError("the body of the request must be a JSON object");
  for (const char* f : {"kind", "apiVersion"}) {
    auto it = obj.find(f);
    if (it != obj.end() && !it->is_null() && !it->is_string()) {
      return BadRequestError(fmt::format("{} must be a string", f));
    }
  }
  auto meta = obj.find("metadata");
  if (meta == obj.end() || meta->is_null()) return std::nullopt;
  if (!meta->is_object()) return BadRequestError("metadata must be an object");
  for (const char* f : {"name", "generateName", "namespace", "resourceVersion", "uid"}) {
    auto it = meta->find(f);
    if (it != meta->end() && !it->is_null() && !it->is_string()) {
      return BadRequestError(fmt::format("metadata.{} must be a string", f));
    }
  }
  for (const char* f : {"labels", "annotations"}) {
    auto it = meta->find(f);
    if (it != meta->end() && !it->is_null() && !IsStringMap(*it)) {
      return BadRequestError(fmt::format("metadata.{} must be a map of strings", f));
    }
  }
  auto fin = meta->find("finalizers");
  if (fin != meta->end() && !fin->is_null()) {
    if (!fin->is_array()) return BadRequestError("metadata.finalizers must be a list of strings");
    for (const auto& f : *fin) {
      if (!f.is_string()) return BadRequestError("metadata.finalizers must be a list of strings");
    }
  }
  auto owners = meta->find("ownerReferences");
  if (owners != meta->end() && !owners->is_null() && !owners->is_array()) {
    return BadRequestError("metadata.ownerReferences must be a list");
  }
  return std::nullopt;
}

std::string PodQosClass(const json& pod) {
  bool any = false;
  bool guaranteed = true;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return "BestEffort";
  for (const char* list : {"containers", "initContainers"}) {
    auto it = spec->find(list);
    if (it == spec->end() || !it->is_array()) continue;
    for (const auto& c : *it) {
      json requests, limits;
      if (c.is_object() && c.contains("resources") && c["resources"].is_object()) {
        requests = c["resources"].value("requests", json());
        limits = c["resources"].value("limits", json());
      }
      for (const char* resource : {"cpu", "memory"}) {
        auto req = QuantityOf(requests, resource);
        auto lim = QuantityOf(limits, resource);
        if ((req && req->Sign() > 0) || (lim && lim->Sign() > 0)) any = true;
        if (!lim || (req && *req != *lim)) guaranteed = false;
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

ApiResult<json> PrepareForCreate(const ResourceInfo& info, json obj,
                                 const std::string& url_namespace, util::WallTime now) {
  if (auto err = CheckObjectShape(obj)) return *err;
  if (auto err = CheckKindAndVersion(info, obj)) return *err;
  json& meta = Child(obj, "metadata");
  std::string name = meta.value("name", "");
  if (name.empty()) {
    std::string prefix = meta.value("generateName", "");
    if (prefix.empty()) {
      return InvalidError(info.kind, "", "metadata.name", "FieldValueRequired",
                          "name or generateName is required");
    }
    name = GenerateName(prefix);
    meta["name"] = name;
  }
  bool valid = info.kind == "Namespace" ? IsDnsLabel(name) : IsDnsSubdomain(name);
  if (!valid) {
    return InvalidError(info.kind, name, "metadata.name", "FieldValueInvalid",
                        fmt::format("\"{}\": {}", name,
                                    info.kind == "Namespace" ? kLabelMessage : kSubdomainMessage));
  }
  if (info.namespaced) {
    std::string ns = meta.value("namespace", "");
    if (ns.empty()) {
      meta["namespace"] = url_namespace;
    } else if (ns != url_namespace) {
      return BadRequestError(
          "the namespace of the provided object does not match the namespace sent on the "
          "request");
    }
  } else {
    meta.erase("namespace");
  }
  if (!meta.value("resourceVersion", "").empty()) {
    return BadRequestError("resourceVersion should not be set on objects to be created");
  }
  meta["uid"] = NewUid();
  meta["creationTimestamp"] = FormatTime(now);
  meta["generation"] = 1;
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  meta.erase("managedFields");

  ApplyDefaults(info, obj);
  if (info.kind == "Pod") {
    json& spec = obj["spec"];
    SetDefault(spec, "priority", 0);
    SetDefault(spec, "preemptionPolicy", "PreemptLowerPriority");
    AddDefaultTolerations(spec);
    obj["status"] = {{"phase", "Pending"}, {"qosClass", PodQosClass(obj)}};
  } else if (info.kind == "PersistentVolume" || info.kind == "PersistentVolumeClaim") {
    obj["status"] = {{"phase", "Pending"}};
  } else if (info.kind == "PodDisruptionBudget") {
    obj["status"] = {{"disruptionsAllowed", 0},
                     {"currentHealthy", 0},
                     {"desiredHealthy", 0},
                     {"expectedPods", 0}};
  } else if (info.kind == "ResourceClaim") {
    obj.erase("status");  // allocation and reservations are written later
  } else if (info.kind == "Namespace") {
    Child(obj, "spec")["finalizers"] = json::array({"kubernetes"});
    obj["status"] = {{"phase", "Active"}};
  }
  if (auto err = Validate(info, obj)) return *err;
  if (info.kind == "CustomResourceDefinition" && info.group == "apiextensions.k8s.io") {
    SetEstablishedStatus(obj, now);
  }
  return obj;
}

ApiResult<json> PrepareForUpdate(const ResourceInfo& info, json obj, const json& current) {
  if (auto err = CheckObjectShape(obj)) return *err;
  if (auto err = CheckKindAndVersion(info, obj)) return *err;
  Child(obj, "metadata");
  if (auto err = CheckPreconditions(info, obj, current)) return *err;
  json& meta = obj["metadata"];
  const json& cur_meta = current["metadata"];
  for (const char* f : {"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                        "deletionGracePeriodSeconds", "generation"}) {
    auto it = cur_meta.find(f);
    if (it == cur_meta.end()) {
      meta.erase(f);
    } else {
      meta[f] = *it;
    }
  }
  meta.erase("managedFields");
  if (info.HasStatus()) {
    auto status = current.find("status");
    if (status == current.end()) {
      obj.erase("status");
    } else {
      obj["status"] = *status;
    }
  }
  ApplyDefaults(info, obj);
  if (info.kind == "Pod" &&
      ImmutablePodSpec(obj.value("spec", json())) !=
          ImmutablePodSpec(current.value("spec", json()))) {
    return InvalidError("Pod", ObjectName(current), "spec", "FieldValueForbidden",
                        kPodUpdateMessage);
  }
  if (info.kind == "PersistentVolume" &&
      PersistentVolumeSource(obj.value("spec", json())) != PersistentVolumeSource(current.value("spec", json()))) {
    return InvalidError("PersistentVolume", ObjectName(current), "spec.persistentvolumesource",
                        "FieldValueForbidden", "spec.persistentvolumesource is immutable after creation");
  }
  if (SpecPart(obj) != SpecPart(current)) {
    meta["generation"] = cur_meta.value("generation", 0) + 1;
  }
  if (auto err = Validate(info, obj)) return *err;
  return obj;
}

ApiResult<json> PrepareForStatusUpdate(const ResourceInfo& info, const json& obj,
                                       const json& current) {
  if (auto err = CheckObjectShape(obj)) return *err;
  json body = obj;
  Child(body, "metadata");
  if (auto err = CheckPreconditions(info, body, current)) return *err;
  json next = current;
  auto status = obj.find("status");
  if (status == obj.end() || status->is_null()) {
    next.erase("status");
  } else {
    next["status"] = *status;
  }
  ApplyDefaults(info, next);
  if (auto err = Validate(info, next)) return *err;
  return next;
}

}  // namespace ksched::apiserver
