#include "pkg/simulate/cluster_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "pkg/api/codec.h"
#include "pkg/api/resource_codec.h"
#include "pkg/api/yaml.h"
#include "pkg/config/yaml_documents.h"

namespace ksched::simulate {

namespace {

namespace fs = std::filesystem;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsManifest(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// "<source>:<line>: " or "<source>: " when the line is unknown.
std::string Where(const std::string& source, int line) {
  return line > 0 ? source + ":" + std::to_string(line) + ": " : source + ": ";
}

// The 1-based line of byte `offset` in `text`.
int LineOfOffset(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// Splits "a.b[2].c" into {"a", "b", "[2]", "c"}.
std::vector<std::string> PathSegments(std::string_view path) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else if (c == '[') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
      size_t end = path.find(']', i);
      if (end == std::string_view::npos) end = path.size() - 1;
      out.emplace_back(path.substr(i, end - i + 1));
      i = end;
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// The field path a decoder error begins with ("spec.x[0].y: message"), or
// "" when the message does not start with one.
std::string ErrorPath(std::string_view message) {
  const size_t colon = message.find(": ");
  if (colon == std::string_view::npos || colon == 0) return "";
  std::string_view head = message.substr(0, colon);
  for (char c : head) {
    if (c == ' ') return "";
  }
  return std::string(head);
}

std::string StringField(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

std::string ObjectName(const nlohmann::json& j) {
  const nlohmann::json* meta = j.contains("metadata") && j["metadata"].is_object() ? &j["metadata"] : nullptr;
  std::string ns, name;
  if (meta != nullptr) {
    ns = StringField(*meta, "namespace");
    name = StringField(*meta, "name");
  }
  return ns.empty() ? name : ns + "/" + name;
}

template <class T>
bool Namespaced() {
  return api::TypeInfo<T>::kNamespaced;
}

// The API server's defaults of a device request (and of a subrequest).
template <class Request>
void DefaultDeviceRequest(Request& r) {
  if (r.allocation_mode.empty()) r.allocation_mode = api::kDeviceAllocationModeExactCount;
  if (r.allocation_mode == api::kDeviceAllocationModeExactCount && r.count == 0) r.count = 1;
}

void DefaultClaimSpec(api::ResourceClaimSpec& spec) {
  for (api::DeviceRequest& r : spec.devices.requests) {
    if (r.exactly) DefaultDeviceRequest(*r.exactly);
    for (api::DeviceSubRequest& sub : r.first_available) DefaultDeviceRequest(sub);
  }
}

}  // namespace

int LineOfPath(std::string_view text, size_t doc, std::string_view path) {
  std::vector<YAML::Node> docs;
  try {
    for (YAML::Node& d : config::LoadDocuments(std::string(text))) {
      if (!d.IsNull()) docs.push_back(d);
    }
  } catch (const YAML::Exception&) {
    return 0;
  }
  if (doc >= docs.size()) return 0;
  // Nodes are rebound with reset(): yaml-cpp's operator= would assign
  // into the tree.
  YAML::Node node;
  node.reset(docs[doc]);
  int line = node.Mark().line + 1;
  const std::vector<std::string> segs = PathSegments(path);
  for (size_t i = 0; i < segs.size(); ++i) {
    YAML::Node next;
    if (segs[i].front() == '[' && node.IsSequence()) {
      const size_t k = std::strtoul(segs[i].c_str() + 1, nullptr, 10);
      if (k >= node.size()) break;
      next.reset(node[k]);
    } else if (node.IsMap()) {
      // A key may itself contain dots (labels, annotations): try the
      // longest join of the remaining segments first.
      size_t avail = 0;  // field segments before the next index
      while (i + avail < segs.size() && segs[i + avail].front() != '[') ++avail;
      size_t used = 0;
      for (size_t n = avail; n >= 1 && used == 0; --n) {
        std::string key = segs[i];
        for (size_t m = 1; m < n; ++m) key += "." + segs[i + m];
        for (const auto& kv : node) {
          if (kv.first.IsScalar() && kv.first.Scalar() == key) {
            next.reset(kv.second);
            used = n;
            line = kv.first.Mark().line + 1;
            break;
          }
        }
      }
      if (used == 0) break;
      i += used - 1;
    } else {
      break;
    }
    node.reset(next);
    if (node.Mark().line >= 0 && node.IsDefined() && !node.IsNull()) line = node.Mark().line + 1;
  }
  return line;
}

util::Status ClusterLoader::AddPath(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return util::NotFound(path + ": no such file or directory");
  if (!fs::is_directory(st)) return AddFile(path);
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && IsManifest(it->path())) files.push_back(it->path());
  }
  if (ec) return util::InvalidArgument(path + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    util::Status s = AddFile(f.string());
    if (!s.ok()) return s;
  }
  return util::Status();
}

util::Status ClusterLoader::AddFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return util::NotFound(path + ": cannot open");
  std::stringstream buf;
  buf << in.rdbuf();
  return AddText(buf.str(), path);
}

util::Status ClusterLoader::AddText(std::string_view text, const std::string& source) {
  if (EndsWith(source, ".json")) {
    util::StatusOr<nlohmann::json> j = api::ParseJson(text);
    if (!j.ok()) {
      // "invalid JSON at byte N: ..."
      const std::string& m = j.status().message();
      int line = 0;
      const size_t at = m.find("at byte ");
      if (at != std::string::npos) line = LineOfOffset(text, std::strtoul(m.c_str() + at + 8, nullptr, 10));
      return util::InvalidArgument(Where(source, line) + m);
    }
    util::Status s = AddDocument(*j, text, source, 0, true);
    if (!s.ok()) return s;
    return FlushSkipped(source);
  }
  util::StatusOr<std::vector<nlohmann::json>> docs = api::YamlDocumentsToJson(text);
  if (!docs.ok()) {
    // "yaml: line N, column M: ..."
    const std::string& m = docs.status().message();
    int line = 0;
    if (m.rfind("yaml: line ", 0) == 0) line = std::atoi(m.c_str() + 11);
    return util::InvalidArgument(Where(source, line) + m);
  }
  for (size_t i = 0; i < docs->size(); ++i) {
    util::Status s = AddDocument((*docs)[i], text, source, i, false);
    if (!s.ok()) return s;
  }
  return FlushSkipped(source);
}

util::Status ClusterLoader::FlushSkipped(const std::string& source) {
  for (const auto& [kind, sk] : skipped_) {
    std::string what = sk.count == 1 ? kind + " " + sk.first : std::to_string(sk.count) + " objects of kind " + kind;
    warnings_.push_back(Where(source, sk.line) + "skipping " + what + ": kind not read by the scheduler");
  }
  skipped_.clear();
  return util::Status();
}

util::Status ClusterLoader::AddDocument(const nlohmann::json& j, std::string_view text, const std::string& source,
                                        size_t doc, bool json) {
  if (!j.is_object()) {
    return util::InvalidArgument(Where(source, json ? 1 : LineOfPath(text, doc, "")) +
                                 "expected an object with apiVersion and kind, got " + j.type_name());
  }
  const std::string kind = StringField(j, "kind");
  if (j.contains("items") && (kind == "List" || EndsWith(kind, "List"))) {
    const nlohmann::json& items = j["items"];
    if (!items.is_array() && !items.is_null()) {
      return util::InvalidArgument(Where(source, json ? 0 : LineOfPath(text, doc, "items")) +
                                   "items: expected an array");
    }
    // "PodList" names its items' kind when they omit it.
    const std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
    if (items.is_array()) {
      for (size_t i = 0; i < items.size(); ++i) {
        util::Status s =
            AddObject(items[i], text, source, doc, "items[" + std::to_string(i) + "]", json, item_kind);
        if (!s.ok()) return s;
      }
    }
    return util::Status();
  }
  return AddObject(j, text, source, doc, "", json, "");
}

util::Status ClusterLoader::AddObject(const nlohmann::json& j, std::string_view text, const std::string& source,
                                      size_t doc, const std::string& prefix, bool json, std::string_view list_kind) {
  auto line_of = [&](std::string_view field) {
    std::string path = prefix;
    if (!field.empty()) path += (path.empty() ? "" : ".") + std::string(field);
    return json ? 0 : LineOfPath(text, doc, path);
  };
  if (!j.is_object()) {
    return util::InvalidArgument(Where(source, line_of("")) + (prefix.empty() ? "" : prefix + ": ") +
                                 "expected an object, got " + j.type_name());
  }
  std::string kind = StringField(j, "kind");
  if (kind.empty()) kind = std::string(list_kind);
  if (kind.empty()) {
    return util::InvalidArgument(Where(source, line_of("")) + (prefix.empty() ? "" : prefix + ".") +
                                 "kind: missing");
  }
  if (kind == "Node") return Decode(j, nodes_, kind, text, source, doc, prefix, json);
  if (kind == "Pod") return Decode(j, pods_, kind, text, source, doc, prefix, json);
  if (kind == "Namespace") return Decode(j, namespaces_, kind, text, source, doc, prefix, json);
  if (kind == "PersistentVolume") return Decode(j, pvs_, kind, text, source, doc, prefix, json);
  if (kind == "PersistentVolumeClaim") return Decode(j, pvcs_, kind, text, source, doc, prefix, json);
  if (kind == "StorageClass") return Decode(j, storage_classes_, kind, text, source, doc, prefix, json);
  if (kind == "CSINode") return Decode(j, csi_nodes_, kind, text, source, doc, prefix, json);
  if (kind == "CSIDriver") return Decode(j, csi_drivers_, kind, text, source, doc, prefix, json);
  if (kind == "CSIStorageCapacity") {
    return Decode(j, csi_storage_capacities_, kind, text, source, doc, prefix, json);
  }
  if (kind == "VolumeAttachment") return Decode(j, volume_attachments_, kind, text, source, doc, prefix, json);
  if (kind == "PodDisruptionBudget") return Decode(j, pdbs_, kind, text, source, doc, prefix, json);
  if (kind == "Service") return Decode(j, services_, kind, text, source, doc, prefix, json);
  if (kind == "ReplicationController") {
    return Decode(j, replication_controllers_, kind, text, source, doc, prefix, json);
  }
  if (kind == "ReplicaSet") return Decode(j, replica_sets_, kind, text, source, doc, prefix, json);
  if (kind == "StatefulSet") return Decode(j, stateful_sets_, kind, text, source, doc, prefix, json);
  if (kind == "DeviceClass") return Decode(j, device_classes_, kind, text, source, doc, prefix, json);
  if (kind == "ResourceClaim") return Decode(j, resource_claims_, kind, text, source, doc, prefix, json);
  if (kind == "ResourceClaimTemplate") {
    return Decode(j, resource_claim_templates_, kind, text, source, doc, prefix, json);
  }
  if (kind == "ResourceSlice") return Decode(j, resource_slices_, kind, text, source, doc, prefix, json);
  if (kind == "DeviceTaintRule") {
    return Decode(j, device_taint_rules_, kind, text, source, doc, prefix, json);
  }
  if (kind == "PodGroup") {
    // Volcano, for one, has a PodGroup kind of its own.
    const std::string api_version = StringField(j, "apiVersion");
    if (api_version.empty() || api_version == api::TypeInfo<api::PodGroup>::kApiVersion) {
      return Decode(j, pod_groups_, kind, text, source, doc, prefix, json);
    }
    kind = api_version + " " + kind;
  }
  if (kind == "PriorityClass") {
    const std::string name = ObjectName(j);
    PriorityClassInfo pc;
    if (j.contains("value")) {
      if (!j["value"].is_number_integer()) {
        return util::InvalidArgument(Where(source, line_of("value")) + "PriorityClass " + name +
                                     ": value: expected an integer");
      }
      pc.value = j["value"].get<int32_t>();
    }
    if (j.contains("globalDefault") && !j["globalDefault"].is_null()) {
      if (!j["globalDefault"].is_boolean()) {
        return util::InvalidArgument(Where(source, line_of("globalDefault")) + "PriorityClass " + name +
                                     ": globalDefault: expected a boolean");
      }
      pc.global_default = j["globalDefault"].get<bool>();
    }
    priority_classes_[name] = pc;
    return util::Status();
  }
  // One warning per kind and file (the line of the first): a dump may hold
  // thousands of Events, and finding a line parses the file again.
  Skipped& sk = skipped_[kind];
  if (sk.count++ == 0) {
    sk.line = line_of("");
    sk.first = ObjectName(j);
  }
  return util::Status();
}

template <class T>
util::Status ClusterLoader::Decode(const nlohmann::json& j, Kept<T>& kept, std::string_view kind,
                                   std::string_view text, const std::string& source, size_t doc,
                                   const std::string& prefix, bool json) {
  util::StatusOr<T> obj = api::FromJson<T>(j);
  if (!obj.ok()) {
    const std::string field = ErrorPath(obj.status().message());
    std::string path = prefix;
    if (!field.empty()) path += (path.empty() ? "" : ".") + field;
    const int line = json ? 0 : LineOfPath(text, doc, path);
    return util::InvalidArgument(Where(source, line) + std::string(kind) + " " + ObjectName(j) + ": " +
                                 obj.status().message());
  }
  auto ptr = std::make_shared<T>(std::move(obj).value());
  if (Namespaced<T>() && ptr->metadata.namespace_.empty()) ptr->metadata.namespace_ = "default";
  if (ptr->metadata.name.empty()) {
    const int line = json ? 0 : LineOfPath(text, doc, prefix.empty() ? "metadata" : prefix + ".metadata");
    return util::InvalidArgument(Where(source, line) + std::string(kind) + ": metadata.name: missing");
  }
  const std::string key = ptr->metadata.namespace_ + "/" + ptr->metadata.name;
  auto [it, inserted] = kept.index.emplace(key, kept.objects.size());
  if (inserted) {
    kept.objects.push_back(std::move(ptr));
  } else {
    warnings_.push_back(Where(source, json ? 0 : LineOfPath(text, doc, prefix)) + std::string(kind) + " " + key +
                        " appears again; the later copy is kept");
    kept.objects[it->second] = std::move(ptr);
  }
  return util::Status();
}

ClusterObjects ClusterLoader::Finish() {
  auto uid = [](auto& obj, std::string_view kind) {
    if (obj->metadata.uid.empty()) {
      obj->metadata.uid = std::string(kind) + "/" + obj->metadata.namespace_ + "/" + obj->metadata.name;
    }
  };
  std::optional<int32_t> default_priority;
  for (const auto& [name, pc] : priority_classes_) {
    if (pc.global_default && (!default_priority || pc.value > *default_priority)) default_priority = pc.value;
  }
  ClusterObjects out;
  for (auto& n : nodes_.objects) {
    uid(n, "node");
    out.nodes.push_back(n);
  }
  for (auto& p : pods_.objects) {
    if (p->status.phase == "Succeeded" || p->status.phase == "Failed") continue;
    uid(p, "pod");
    if (p->spec.scheduler_name.empty()) p->spec.scheduler_name = "default-scheduler";
    if (!p->spec.priority) {
      auto it = priority_classes_.find(p->spec.priority_class_name);
      if (!p->spec.priority_class_name.empty() && it != priority_classes_.end()) {
        p->spec.priority = it->second.value;
      } else if (p->spec.priority_class_name.empty() && default_priority) {
        p->spec.priority = *default_priority;
      }
    }
    out.pods.push_back(p);
  }
  auto copy = [&](auto& kept, auto& dst, std::string_view kind) {
    for (auto& o : kept.objects) {
      uid(o, kind);
      dst.push_back(o);
    }
  };
  copy(namespaces_, out.namespaces, "namespace");
  copy(pvs_, out.persistent_volumes, "pv");
  copy(pvcs_, out.persistent_volume_claims, "pvc");
  copy(storage_classes_, out.storage_classes, "storageclass");
  copy(csi_nodes_, out.csi_nodes, "csinode");
  copy(csi_drivers_, out.csi_drivers, "csidriver");
  copy(csi_storage_capacities_, out.csi_storage_capacities, "csistoragecapacity");
  copy(volume_attachments_, out.volume_attachments, "volumeattachment");
  copy(pdbs_, out.pod_disruption_budgets, "pdb");
  copy(services_, out.services, "service");
  copy(replication_controllers_, out.replication_controllers, "replicationcontroller");
  copy(replica_sets_, out.replica_sets, "replicaset");
  copy(stateful_sets_, out.stateful_sets, "statefulset");
  for (auto& c : resource_claims_.objects) DefaultClaimSpec(c->spec);
  for (auto& t : resource_claim_templates_.objects) DefaultClaimSpec(t->spec.spec);
  copy(device_classes_, out.device_classes, "deviceclass");
  copy(resource_claims_, out.resource_claims, "resourceclaim");
  copy(resource_claim_templates_, out.resource_claim_templates, "resourceclaimtemplate");
  copy(resource_slices_, out.resource_slices, "resourceslice");
  copy(device_taint_rules_, out.device_taint_rules, "devicetaintrule");
  copy(pod_groups_, out.pod_groups, "podgroup");
  return out;
}

}  // namespace ksched::simulate
