// ClaimRequests: what the allocator's searches on every node of one
// scheduling cycle share about a claim: its requests as the search reads
// them, with each one's class and selector programs looked up and the
// checks that do not depend on a node's pools done. The Allocator builds
// one per claim on first need (ClaimRequestTable) and every node's search
// reads it, so a cycle over n nodes does this work once instead of n
// times. Immutable once built and safe to share between threads.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/scheduler/plugins/dynamicresources/cel_cache.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

// The class named by a request, or nullptr when there is none.
using DeviceClassLookup = std::function<std::shared_ptr<const api::DeviceClass>(const std::string& name)>;

// The fields the search reads of a request's `exactly` or of one of its
// firstAvailable subrequests: views into the claim.
struct RequestView {
  std::string_view name;
  std::string_view class_name;
  std::string_view mode;
  int64_t count = 0;
  bool admin_access = false;
  bool has_admin_access = false;
  const std::vector<api::DeviceSelector>* selectors = nullptr;  // never null once prepared
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  const api::CapacityRequirements* capacity = nullptr;  // null: none requested
};

// One request, or one subrequest of a firstAvailable request.
struct PreparedRequest {
  RequestView request;
  std::optional<std::string_view> parent;  // set for a subrequest
  std::shared_ptr<const api::DeviceClass> device_class;
  // The class's selectors' programs, then the request's, each in order (a
  // program may hold its compile error, reported when it is first needed,
  // as kube reports it).
  std::vector<CelCache::Compiled> class_programs;
  std::vector<CelCache::Compiled> request_programs;
  // The first error of the checks that come before the node's pools are
  // looked at (for a firstAvailable request, its own checks are on its
  // first subrequest's entry); OK when there is none.
  util::Status error;
  bool all = false;  // All mode; else ExactCount of `request.count`

  // "req", or "req/sub" for a subrequest.
  std::string RequestName() const;
};

// A matchAttribute or distinctAttribute constraint of a claim.
struct ConstraintSpec {
  std::set<std::string, std::less<>> requests;  // empty: all requests
  std::string attribute;
  bool distinct = false;
  // kube 1.36's distinctAttribute (AllocatorFeatures::distinct_per_device off).
  bool per_request = false;
};

struct ClaimRequests {
  std::shared_ptr<const api::ResourceClaim> claim;  // what the views point into
  // Request by request: its subrequests' entries in order, or its one entry.
  std::vector<PreparedRequest> entries;
  // Per request, the index of its first entry; then entries.size().
  std::vector<size_t> first;
  std::vector<ConstraintSpec> constraints;
  util::Status constraint_error;  // an empty constraint; checked after the device count

  size_t Entries(size_t request) const { return first[request + 1] - first[request]; }
};

// The allocator's switches ClaimRequests depends on.
struct ClaimRequestOptions {
  bool admin_access = true;
  bool prioritized_list = true;
  bool capacity_errors = false;  // capacity requests are an error (AllocatorFeatures)
  bool distinct_attribute = false;
  bool distinct_per_request = false;
};

// The ClaimRequests of each claim asked for, built once: the claim object
// is kept alive with its entry, so an address never stands for two claims.
// Thread-safe; lives as long as the Allocator (one scheduling cycle).
class ClaimRequestTable {
 public:
  // `classes` is asked once per class name. `cel_cache` must outlive the table.
  ClaimRequestTable(ClaimRequestOptions options, DeviceClassLookup classes, CelCache& cel_cache);

  // Valid for the table's life.
  const ClaimRequests* Get(const std::shared_ptr<const api::ResourceClaim>& claim);

 private:
  std::shared_ptr<const api::DeviceClass> Class(const std::string& name);
  ClaimRequests Build(const std::shared_ptr<const api::ResourceClaim>& claim);
  // The entry for `view`; `error` is its request's own error, found first.
  PreparedRequest Prepare(const api::ResourceClaim& claim, const RequestView& view,
                          std::optional<std::string_view> parent, util::Status error);

  const ClaimRequestOptions options_;
  const DeviceClassLookup classes_;
  CelCache& cel_cache_;
  std::shared_mutex mu_;
  std::unordered_map<const api::ResourceClaim*, std::unique_ptr<const ClaimRequests>> claims_;
  std::map<std::string, std::shared_ptr<const api::DeviceClass>, std::less<>> class_memo_;
};

}  // namespace ksched::scheduler::dra
