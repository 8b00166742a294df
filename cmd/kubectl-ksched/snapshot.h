// A read-only snapshot of a live cluster for `kubectl ksched what-if`:
// every kind `ksched simulate`'s ClusterLoader reads, listed through the
// API page by page (limit/continue, as kubectl's --chunk-size and
// client-go's pager do) and fed to the loader page by page as the
// `<Kind>List` JSON the server sent.
//
// A careful client of a large cluster:
//   - a progress line per kind on `log` (rewritten in place per page when
//     `log` is a terminal);
//   - before listing the bulk of nodes or pods, the first page's
//     metadata.remainingItemCount estimates the total: above
//     kLargeNodeCount nodes or kLargePodCount pods a warning says the
//     snapshot will take memory and time (without that count -- the
//     server omits it under a field selector, as for pods -- the warning
//     comes when the objects listed so far pass the limit);
//   - a kind the server does not serve (404: an older server, DRA or
//     PodGroups not installed) is skipped with a note; one the user may
//     not list (403) is skipped with a warning, except nodes and pods,
//     without which there is nothing to simulate (an error);
//   - an expired continue token (410) restarts that kind with one
//     unpaginated list, as client-go's pager falls back.
// Only GET requests are sent: nothing is written to the cluster.
//
// Pods are listed without those in phase Succeeded or Failed (field
// selector), as the scheduler's pod informer does.
//
// Thread-safety: one call at a time; `fetch` is called on the caller's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/simulate/cluster_loader.h"
#include "pkg/util/status.h"

namespace ksched::kubectl_ksched {

inline constexpr int64_t kLargeNodeCount = 5000;
inline constexpr int64_t kLargePodCount = 50000;

// One collection to list.
struct SnapshotKind {
  std::string kind;  // "Node": the loader's kind, the items' when they omit it
  // "/api/v1/nodes"; alternatives in order, the next tried on 404 (API
  // versions of a kind across releases).
  std::vector<std::string> paths;
  std::string field_selector;
  bool required = false;  // 403 is an error rather than a warning
};

// Every collection the simulation reads, nodes first, then pods.
const std::vector<SnapshotKind>& SnapshotKinds();

// Sends one request and returns the 2xx response or the mapped error
// (RestClient::Do's contract); tests pass a fake.
using Fetch = std::function<util::StatusOr<client::Response>(const client::Request&)>;

struct KindCount {
  std::string kind;
  int64_t objects = 0;
  int pages = 0;
  bool served = true;     // false: 404, skipped
  bool forbidden = false;  // 403, skipped with a warning
};

struct SnapshotStats {
  std::vector<KindCount> kinds;
  std::vector<std::string> warnings;  // also written to `log`
};

struct SnapshotOptions {
  int64_t chunk_size = 500;  // limit per page; 0: one unpaginated list
  bool terminal = false;     // rewrite the progress line in place
};

// The warning for a kind whose first page promises `estimated` objects, or
// nullopt under the limits above.
std::optional<std::string> SizeWarning(const std::string& kind, int64_t estimated);

// Lists every SnapshotKinds() collection into `loader`; see the header comment.
util::StatusOr<SnapshotStats> TakeSnapshot(const Fetch& fetch, const SnapshotOptions& options,
                                           simulate::ClusterLoader& loader, std::ostream& log);

struct ListedKind {
  KindCount count;
  std::vector<std::string> pages;  // the 2xx bodies, in order
};

// Lists one collection page by page (restarting it unpaginated on an
// expired continue token). `log` gets the progress and size warnings,
// `warnings` the warnings too.
util::StatusOr<ListedKind> ListKind(const Fetch& fetch, const SnapshotKind& kind, const SnapshotOptions& options,
                                    std::vector<std::string>& warnings, std::ostream& log);

}  // namespace ksched::kubectl_ksched
