#include "cmd/kubectl-ksched/snapshot.h"

#include <nlohmann/json.hpp>

namespace ksched::kubectl_ksched {

namespace {

using util::Status;
using util::StatusCode;

bool IsForbidden(const Status& s) { return s.message().find(": 403 ") != std::string::npos; }

// The continue token and the remaining count of one page, read without
// keeping the parsed items (the loader parses the body itself).
struct PageMeta {
  int64_t items = 0;
  std::string continue_token;
  std::optional<int64_t> remaining;
};

util::StatusOr<PageMeta> ReadPageMeta(const std::string& body, const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status(StatusCode::kInternal, "GET " + path + ": the answer is not a JSON object");
  PageMeta m;
  if (auto it = j.find("items"); it != j.end() && it->is_array()) m.items = static_cast<int64_t>(it->size());
  if (auto md = j.find("metadata"); md != j.end() && md->is_object()) {
    if (auto c = md->find("continue"); c != md->end() && c->is_string()) m.continue_token = c->get<std::string>();
    if (auto r = md->find("remainingItemCount"); r != md->end() && r->is_number_integer()) {
      m.remaining = r->get<int64_t>();
    }
  }
  return m;
}

// kubectl's name of a collection: "nodes", "poddisruptionbudgets".
std::string Resource(const SnapshotKind& kind) {
  const std::string& path = kind.paths.front();
  return path.substr(path.rfind('/') + 1);
}

void Progress(std::ostream& log, const SnapshotOptions& options, const std::string& resource, const KindCount& c,
              bool done) {
  if (!done && !options.terminal) return;
  if (options.terminal) log << "\r\033[K";
  log << "listing " << resource << ": " << c.objects;
  if (c.pages > 1) log << " (" << c.pages << " pages)";
  if (done) log << "\n";
  log.flush();
}

}  // namespace

const std::vector<SnapshotKind>& SnapshotKinds() {
  static const std::vector<SnapshotKind> kinds = {
      {"Node", {"/api/v1/nodes"}, "", true},
      {"Pod", {"/api/v1/pods"}, "status.phase!=Succeeded,status.phase!=Failed", true},
      {"Namespace", {"/api/v1/namespaces"}, "", false},
      {"PriorityClass", {"/apis/scheduling.k8s.io/v1/priorityclasses"}, "", false},
      {"PersistentVolume", {"/api/v1/persistentvolumes"}, "", false},
      {"PersistentVolumeClaim", {"/api/v1/persistentvolumeclaims"}, "", false},
      {"StorageClass", {"/apis/storage.k8s.io/v1/storageclasses"}, "", false},
      {"CSINode", {"/apis/storage.k8s.io/v1/csinodes"}, "", false},
      {"CSIDriver", {"/apis/storage.k8s.io/v1/csidrivers"}, "", false},
      {"CSIStorageCapacity", {"/apis/storage.k8s.io/v1/csistoragecapacities"}, "", false},
      {"VolumeAttachment", {"/apis/storage.k8s.io/v1/volumeattachments"}, "", false},
      {"PodDisruptionBudget", {"/apis/policy/v1/poddisruptionbudgets"}, "", false},
      {"Service", {"/api/v1/services"}, "", false},
      {"ReplicationController", {"/api/v1/replicationcontrollers"}, "", false},
      {"ReplicaSet", {"/apis/apps/v1/replicasets"}, "", false},
      {"StatefulSet", {"/apis/apps/v1/statefulsets"}, "", false},
      {"DeviceClass", {"/apis/resource.k8s.io/v1/deviceclasses"}, "", false},
      {"ResourceClaim", {"/apis/resource.k8s.io/v1/resourceclaims"}, "", false},
      {"ResourceClaimTemplate", {"/apis/resource.k8s.io/v1/resourceclaimtemplates"}, "", false},
      {"ResourceSlice", {"/apis/resource.k8s.io/v1/resourceslices"}, "", false},
      // v1 from 1.37; the same fields as v1beta2 (1.36) and v1alpha3 (1.35).
      {"DeviceTaintRule",
       {"/apis/resource.k8s.io/v1/devicetaintrules", "/apis/resource.k8s.io/v1beta2/devicetaintrules",
        "/apis/resource.k8s.io/v1alpha3/devicetaintrules"},
       "",
       false},
      {"PodGroup", {"/apis/scheduling.x-k8s.io/v1alpha1/podgroups"}, "", false},
  };
  return kinds;
}

std::optional<std::string> SizeWarning(const std::string& kind, int64_t estimated) {
  int64_t limit = 0;
  if (kind == "Node") limit = kLargeNodeCount;
  if (kind == "Pod") limit = kLargePodCount;
  if (limit == 0 || estimated <= limit) return std::nullopt;
  return "warning: the cluster has about " + std::to_string(estimated) + (kind == "Node" ? " nodes" : " pods") +
         " (more than " +
         std::to_string(limit) +
         "): the snapshot and the simulation hold them all in memory and will take a while (minutes, and "
         "gigabytes for the largest clusters); each page is a separate request to the API server";
}

util::StatusOr<ListedKind> ListKind(const Fetch& fetch, const SnapshotKind& kind, const SnapshotOptions& options,
                                    std::vector<std::string>& warnings, std::ostream& log) {
  ListedKind listed;
  KindCount& count = listed.count;
  count.kind = kind.kind;
  for (size_t alt = 0; alt < kind.paths.size(); ++alt) {
    const std::string& path = kind.paths[alt];
    int64_t limit = options.chunk_size;
    std::string token;
    bool restarted = false;
    bool warned = false;
    count.objects = 0;
    count.pages = 0;
    listed.pages.clear();
    while (true) {
      client::Request req;
      req.path = path;
      if (!kind.field_selector.empty()) req.query.emplace_back("fieldSelector", kind.field_selector);
      if (limit > 0) req.query.emplace_back("limit", std::to_string(limit));
      if (!token.empty()) req.query.emplace_back("continue", token);
      util::StatusOr<client::Response> resp = fetch(req);
      if (!resp.ok()) {
        const Status& s = resp.status();
        if (s.code() == StatusCode::kNotFound && count.pages == 0) break;  // not served here: next path
        if (s.code() == StatusCode::kGone && !token.empty() && !restarted) {
          // The continue token expired: the whole kind again in one request.
          restarted = true;
          limit = 0;
          token.clear();
          count.objects = 0;
          count.pages = 0;
          listed.pages.clear();
          log << "the continue token of " << Resource(kind) << " expired: listing them in one request\n";
          continue;
        }
        if (IsForbidden(s) && count.pages == 0) {
          if (kind.required) {
            return Status(s.code(), "you may not list " + Resource(kind) + ": " + s.message());
          }
          count.forbidden = true;
          std::string w = "warning: you may not list " + Resource(kind) + " (" + path +
                          "): simulating without them";
          warnings.push_back(w);
          log << w << "\n";
          return listed;
        }
        return s;
      }
      util::StatusOr<PageMeta> meta = ReadPageMeta(resp->body, path);
      if (!meta.ok()) return meta.status();
      // The first page's remainingItemCount estimates the total; the
      // server leaves it out under a field selector (pods), so the count so
      // far also warns once it passes the limit.
      std::optional<std::string> w;
      if (!warned && count.pages == 0 && meta->remaining) w = SizeWarning(kind.kind, meta->items + *meta->remaining);
      if (!warned && !w) w = SizeWarning(kind.kind, count.objects + meta->items);
      if (w) {
        warned = true;
        warnings.push_back(*w);
        if (options.terminal && count.pages > 0) log << "\r\033[K";
        log << *w << "\n";
      }
      listed.pages.push_back(std::move(resp->body));
      ++count.pages;
      count.objects += meta->items;
      if (meta->continue_token.empty() || limit == 0) {
        Progress(log, options, Resource(kind), count, true);
        return listed;
      }
      Progress(log, options, Resource(kind), count, false);
      token = meta->continue_token;
    }
  }
  count.served = false;
  log << "skipping " << Resource(kind) << ": not served by this API server\n";
  return listed;
}

util::StatusOr<SnapshotStats> TakeSnapshot(const Fetch& fetch, const SnapshotOptions& options,
                                           simulate::ClusterLoader& loader, std::ostream& log) {
  SnapshotStats stats;
  for (const SnapshotKind& kind : SnapshotKinds()) {
    util::StatusOr<ListedKind> listed = ListKind(fetch, kind, options, stats.warnings, log);
    if (!listed.ok()) return listed.status();
    // Fed once the kind is complete: a restarted list replaces its pages.
    for (size_t i = 0; i < listed->pages.size(); ++i) {
      // ".json": the loader reads it as JSON; the name shows in its messages.
      const std::string source = "api:" + kind.paths.front() + "#page" + std::to_string(i + 1) + ".json";
      if (Status st = loader.AddText(listed->pages[i], source); !st.ok()) return st;
      std::string().swap(listed->pages[i]);
    }
    stats.kinds.push_back(listed->count);
  }
  return stats;
}

}  // namespace ksched::kubectl_ksched
