#include "pkg/apiserverlite/patch.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace ksched::apiserver {

namespace {

using nlohmann::json;

// How a list field is merged. `merge` false: the patch replaces the list.
// `merge` true with an empty key: a set of primitives. Otherwise: objects
// merged by the value of `key`.
struct ListStrategy {
  bool merge = false;
  std::string key;
};

// Patch strategies of the fields used, by field path from the object root
// ("[]" marks a list element). Paths under every container list are listed
// once per list.
ListStrategy LookupStrategy(const std::string& kind, const std::string& path) {
  if (path == "metadata.ownerReferences") return {true, "uid"};
  if (path == "metadata.finalizers") return {true, ""};
  if (kind == "Pod") {
    static const char* const kContainerLists[] = {"spec.containers", "spec.initContainers",
                                                  "spec.ephemeralContainers"};
    for (const char* list : kContainerLists) {
      std::string l(list);
      if (path == l) return {true, "name"};
      if (path == l + "[].ports") return {true, "containerPort"};
      if (path == l + "[].env") return {true, "name"};
      if (path == l + "[].volumeMounts") return {true, "mountPath"};
      if (path == l + "[].volumeDevices") return {true, "devicePath"};
    }
    if (path == "spec.volumes" || path == "spec.imagePullSecrets" ||
        path == "spec.schedulingGates" || path == "spec.resourceClaims" ||
        path == "status.resourceClaimStatuses") {
      return {true, "name"};
    }
    if (path == "spec.topologySpreadConstraints") return {true, "topologyKey"};
    if (path == "spec.hostAliases" || path == "status.podIPs" || path == "status.hostIPs") {
      return {true, "ip"};
    }
    if (path == "status.conditions") return {true, "type"};
  }
  if (kind == "Node") {
    if (path == "spec.podCIDRs") return {true, ""};
    if (path == "status.conditions" || path == "status.addresses") return {true, "type"};
  }
  if (kind == "ResourceClaim" && path == "status.reservedFor") return {true, "uid"};
  if ((kind == "PersistentVolumeClaim" || kind == "PodDisruptionBudget" ||
       kind == "Namespace") &&
      path == "status.conditions") {
    return {true, "type"};
  }
  return {};
}

bool IsDirective(const std::string& key) { return !key.empty() && key[0] == '$'; }

constexpr std::string_view kSetElementOrder = "$setElementOrder/";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// Result of merging into a map or list element: nullopt means "delete me"
// ($patch: delete on a map).
using MergeResult = ApiResult<std::optional<json>>;

MergeResult MergeMap(const json& original, const json& patch, const std::string& kind,
                     const std::string& path);

ApiResult<json> MergeList(const json& original, const json& patch, const ListStrategy& strategy,
                          const std::string& kind, const std::string& path) {
  json result = original.is_array() ? original : json::array();
  if (strategy.key.empty()) {
    for (const auto& v : patch) {
      if (std::find(result.begin(), result.end(), v) == result.end()) result.push_back(v);
    }
    return result;
  }
  const std::string& key = strategy.key;
  // {"$patch": "replace"} anywhere in the list: the rest of the list is the
  // new value.
  for (const auto& e : patch) {
    if (e.is_object() && e.value("$patch", "") == "replace") {
      json replaced = json::array();
      for (const auto& item : patch) {
        if (item.is_object() && item.contains("$patch")) continue;
        replaced.push_back(item);
      }
      return replaced;
    }
  }
  for (const auto& e : patch) {
    if (!e.is_object() || !e.contains(key)) {
      return BadRequestError(fmt::format("{}: map: {} does not contain declared merge key: {}",
                                         path, e.dump(), key));
    }
    const json& merge_value = e[key];
    auto same = [&](const json& item) {
      return item.is_object() && item.contains(key) && item[key] == merge_value;
    };
    auto directive = e.find("$patch");
    if (directive != e.end()) {
      if (*directive == "delete") {
        result.erase(std::remove_if(result.begin(), result.end(), same), result.end());
        continue;
      }
      if (*directive != "merge") {
        return BadRequestError(fmt::format("{}: unknown patch type: {}", path, directive->dump()));
      }
    }
    auto it = std::find_if(result.begin(), result.end(), same);
    MergeResult merged = MergeMap(it == result.end() ? json() : *it, e, kind, path + "[]");
    if (!merged.ok()) return merged.error();
    if (!merged.value()) {
      if (it != result.end()) result.erase(it);
    } else if (it == result.end()) {
      result.push_back(std::move(*merged.value()));
    } else {
      *it = std::move(*merged.value());
    }
  }
  return result;
}

// Reorders `list` after $setElementOrder: elements named in `order` first,
// in that order; the others after them, in their current order.
ApiResult<json> ApplyElementOrder(const json& list, const json& order, const std::string& key,
                                  const std::string& path) {
  if (!order.is_array()) {
    return BadRequestError(fmt::format("{}: $setElementOrder must be a list", path));
  }
  auto id_of = [&](const json& v) -> json {
    if (key.empty()) return v;
    return v.is_object() && v.contains(key) ? v[key] : json();
  };
  json sorted = json::array();
  std::vector<bool> used(list.size(), false);
  for (const auto& o : order) {
    json id = id_of(o);
    for (size_t i = 0; i < list.size(); ++i) {
      if (!used[i] && id_of(list[i]) == id) {
        sorted.push_back(list[i]);
        used[i] = true;
        break;
      }
    }
  }
  for (size_t i = 0; i < list.size(); ++i) {
    if (!used[i]) sorted.push_back(list[i]);
  }
  return sorted;
}

MergeResult MergeMap(const json& original, const json& patch, const std::string& kind,
                     const std::string& path) {
  if (!patch.is_object()) return std::optional<json>(patch);
  json result = original.is_object() ? original : json::object();
  auto directive = patch.find("$patch");
  if (directive != patch.end()) {
    if (*directive == "delete") return std::optional<json>();
    if (*directive == "replace") {
      json replaced = json::object();
      for (const auto& [k, v] : patch.items()) {
        if (!IsDirective(k)) replaced[k] = v;
      }
      return std::optional<json>(std::move(replaced));
    }
    if (*directive != "merge") {
      return BadRequestError(fmt::format("{}: unknown patch type: {}", path, directive->dump()));
    }
  }
  for (const auto& [k, v] : patch.items()) {
    if (k.rfind(kDeleteFromPrimitiveList, 0) != 0) continue;
    std::string field = k.substr(kDeleteFromPrimitiveList.size());
    if (!v.is_array()) {
      return BadRequestError(fmt::format("{}: {} must be a list", Join(path, field), k));
    }
    auto target = result.find(field);
    if (target == result.end() || !target->is_array()) continue;
    json kept = json::array();
    for (const auto& item : *target) {
      if (std::find(v.begin(), v.end(), item) == v.end()) kept.push_back(item);
    }
    *target = std::move(kept);
  }
  for (const auto& [k, v] : patch.items()) {
    if (IsDirective(k)) continue;
    std::string field_path = Join(path, k);
    if (v.is_null()) {
      result.erase(k);
    } else if (v.is_object()) {
      auto existing = result.find(k);
      MergeResult merged = MergeMap(existing == result.end() ? json() : *existing, v, kind,
                                    field_path);
      if (!merged.ok()) return merged.error();
      if (merged.value()) {
        result[k] = std::move(*merged.value());
      } else {
        result.erase(k);
      }
    } else if (v.is_array()) {
      ListStrategy strategy = LookupStrategy(kind, field_path);
      if (!strategy.merge) {
        result[k] = v;
        continue;
      }
      auto existing = result.find(k);
      ApiResult<json> merged =
          MergeList(existing == result.end() ? json() : *existing, v, strategy, kind, field_path);
      if (!merged.ok()) return merged.error();
      result[k] = std::move(merged.value());
    } else {
      result[k] = v;
    }
  }
  for (const auto& [k, v] : patch.items()) {
    if (k.rfind(kSetElementOrder, 0) != 0) continue;
    std::string field = k.substr(kSetElementOrder.size());
    auto target = result.find(field);
    if (target == result.end() || !target->is_array()) continue;
    ListStrategy strategy = LookupStrategy(kind, Join(path, field));
    ApiResult<json> sorted = ApplyElementOrder(*target, v, strategy.key, Join(path, field));
    if (!sorted.ok()) return sorted.error();
    *target = std::move(sorted.value());
  }
  auto retain = patch.find("$retainKeys");
  if (retain != patch.end()) {
    if (!retain->is_array()) {
      return BadRequestError(fmt::format("{}: $retainKeys must be a list", path));
    }
    std::set<std::string> keep;
    for (const auto& r : *retain) {
      if (!r.is_string()) {
        return BadRequestError(fmt::format("{}: $retainKeys must be a list of strings", path));
      }
      keep.insert(r.get<std::string>());
    }
    for (auto it = result.begin(); it != result.end();) {
      if (keep.count(it.key()) == 0) {
        it = result.erase(it);
      } else {
        ++it;
      }
    }
  }
  return std::optional<json>(std::move(result));
}

bool IsKnownJsonPatchOp(const std::string& op) {
  return op == "add" || op == "remove" || op == "replace" || op == "move" || op == "copy" ||
         op == "test";
}

}  // namespace

bool ParsePatchType(std::string_view content_type, PatchType* type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  if (media == "application/merge-patch+json") {
    *type = PatchType::kMerge;
  } else if (media == "application/strategic-merge-patch+json") {
    *type = PatchType::kStrategicMerge;
  } else if (media == "application/json-patch+json") {
    *type = PatchType::kJson;
  } else {
    return false;
  }
  return true;
}

ApiResult<json> ApplyMergePatch(const json& original, const json& patch) {
  if (!patch.is_object()) return BadRequestError("merge patch must be a JSON object");
  json result = original;
  result.merge_patch(patch);
  return result;
}

ApiResult<json> ApplyStrategicMergePatch(const json& original, const json& patch,
                                         const std::string& kind) {
  if (!patch.is_object()) return BadRequestError("strategic merge patch must be a JSON object");
  MergeResult merged = MergeMap(original, patch, kind, "");
  if (!merged.ok()) return merged.error();
  if (!merged.value()) {
    return BadRequestError("strategic merge patch may not delete the whole object");
  }
  return std::move(*merged.value());
}

ApiResult<json> ApplyJsonPatch(const json& original, const json& patch) {
  if (!patch.is_array()) return BadRequestError("json patch must be a JSON array of operations");
  for (const auto& op : patch) {
    if (!op.is_object() || !op.contains("op") || !op["op"].is_string() ||
        !IsKnownJsonPatchOp(op["op"].get<std::string>()) || !op.contains("path") ||
        !op["path"].is_string()) {
      return BadRequestError(fmt::format("invalid json patch operation: {}", op.dump()));
    }
  }
  try {
    return original.patch(patch);
  } catch (const json::exception& e) {
    return ApiError{422, "Invalid", fmt::format("the json patch could not be applied: {}", e.what()),
                    nullptr};
  }
}

ApiResult<json> ApplyPatch(PatchType type, const json& original, const json& patch,
                           const std::string& kind) {
  switch (type) {
    case PatchType::kMerge: return ApplyMergePatch(original, patch);
    case PatchType::kStrategicMerge: return ApplyStrategicMergePatch(original, patch, kind);
    case PatchType::kJson: return ApplyJsonPatch(original, patch);
  }
  return BadRequestError("unknown patch type");
}

}  // namespace ksched::apiserver
