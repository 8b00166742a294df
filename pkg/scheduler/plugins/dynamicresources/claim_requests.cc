#include "pkg/scheduler/plugins/dynamicresources/claim_requests.h"

#include <utility>

#include "pkg/api/types.h"

namespace ksched::scheduler::dra {

namespace {

const std::vector<api::DeviceSelector> kNoSelectors;

RequestView ViewOf(const api::DeviceRequest& request) {
  RequestView v;
  v.name = request.name;
  v.selectors = &kNoSelectors;
  if (request.exactly) {
    v.class_name = request.exactly->device_class_name;
    v.mode = request.exactly->allocation_mode;
    v.count = request.exactly->count;
    v.admin_access = request.exactly->admin_access.value_or(false);
    v.has_admin_access = request.exactly->admin_access.has_value();
    v.selectors = &request.exactly->selectors;
    v.tolerations = &request.exactly->tolerations;
    if (request.exactly->capacity) v.capacity = &*request.exactly->capacity;
  }
  return v;
}

RequestView ViewOf(const api::DeviceSubRequest& sub) {
  RequestView v;
  v.name = sub.name;
  v.class_name = sub.device_class_name;
  v.mode = sub.allocation_mode;
  v.count = sub.count;
  v.selectors = &sub.selectors;
  v.tolerations = &sub.tolerations;
  if (sub.capacity) v.capacity = &*sub.capacity;
  return v;
}

util::Status RequestError(const api::ResourceClaim& claim, std::string_view request, const std::string& what) {
  return util::InvalidArgument("claim " + api::KeyOf(claim.metadata) + ", request " + std::string(request) + what);
}

}  // namespace

std::string PreparedRequest::RequestName() const {
  return parent ? std::string(*parent) + "/" + std::string(request.name) : std::string(request.name);
}

ClaimRequestTable::ClaimRequestTable(ClaimRequestOptions options, DeviceClassLookup classes, CelCache& cel_cache)
    : options_(options), classes_(std::move(classes)), cel_cache_(cel_cache) {}

const ClaimRequests* ClaimRequestTable::Get(const std::shared_ptr<const api::ResourceClaim>& claim) {
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    if (auto it = claims_.find(claim.get()); it != claims_.end()) return it->second.get();
  }
  auto built = std::make_unique<const ClaimRequests>(Build(claim));
  std::lock_guard<std::shared_mutex> lock(mu_);
  return claims_.try_emplace(claim.get(), std::move(built)).first->second.get();
}

std::shared_ptr<const api::DeviceClass> ClaimRequestTable::Class(const std::string& name) {
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    if (auto it = class_memo_.find(name); it != class_memo_.end()) return it->second;
  }
  std::shared_ptr<const api::DeviceClass> found = classes_(name);
  std::lock_guard<std::shared_mutex> lock(mu_);
  return class_memo_.try_emplace(name, std::move(found)).first->second;
}

ClaimRequests ClaimRequestTable::Build(const std::shared_ptr<const api::ResourceClaim>& claim_ptr) {
  const api::ResourceClaim& claim = *claim_ptr;
  ClaimRequests out;
  out.claim = claim_ptr;
  for (const api::DeviceRequest& request : claim.spec.devices.requests) {
    out.first.push_back(out.entries.size());
    const bool has_subrequests = !request.first_available.empty();
    util::Status error;
    if (!options_.prioritized_list && has_subrequests) {
      error = RequestError(claim, request.name, ": has subrequests, but the DRAPrioritizedList feature is disabled");
    } else if (options_.capacity_errors) {
      if (request.exactly && request.exactly->capacity) {
        error = RequestError(claim, request.name,
                             ": has capacity requests, but the DRAConsumableCapacity feature is disabled");
      }
      for (const api::DeviceSubRequest& sub : request.first_available) {
        if (!error.ok() || !sub.capacity) continue;
        error = util::InvalidArgument("claim " + api::KeyOf(claim.metadata) + ", subrequest " + sub.name +
                                      ": has capacity requests, but the DRAConsumableCapacity feature is disabled");
      }
    }
    if (has_subrequests) {
      for (const api::DeviceSubRequest& sub : request.first_available) {
        out.entries.push_back(Prepare(claim, ViewOf(sub), request.name, std::exchange(error, util::Status::Ok())));
      }
    } else {
      out.entries.push_back(Prepare(claim, ViewOf(request), std::nullopt, error));
    }
  }
  out.first.push_back(out.entries.size());
  for (size_t i = 0; i < claim.spec.devices.constraints.size(); ++i) {
    const api::DeviceConstraint& constraint = claim.spec.devices.constraints[i];
    ConstraintSpec spec;
    spec.requests.insert(constraint.requests.begin(), constraint.requests.end());
    if (constraint.match_attribute) {
      spec.attribute = *constraint.match_attribute;
    } else if (constraint.distinct_attribute && options_.distinct_attribute) {
      spec.attribute = *constraint.distinct_attribute;
      spec.distinct = true;
      spec.per_request = options_.distinct_per_request;
    } else {
      out.constraint_error =
          util::InvalidArgument("claim " + api::KeyOf(claim.metadata) + ", constraint #" + std::to_string(i) +
                                ": empty constraint (unsupported constraint type?)");
      break;
    }
    out.constraints.push_back(std::move(spec));
  }
  return out;
}

PreparedRequest ClaimRequestTable::Prepare(const api::ResourceClaim& claim, const RequestView& view,
                                           std::optional<std::string_view> parent, util::Status error) {
  PreparedRequest p;
  p.request = view;
  p.parent = parent;
  p.error = std::move(error);
  if (!p.error.ok()) return p;
  auto invalid = [&](const std::string& what) { return RequestError(claim, view.name, what); };
  const std::vector<api::DeviceSelector>& selectors = *view.selectors;
  for (size_t i = 0; i < selectors.size(); ++i) {
    if (!selectors[i].cel) {
      p.error = invalid(", selector #" + std::to_string(i) + ": CEL expression empty (unsupported selector type?)");
      return p;
    }
  }
  if (!options_.admin_access && view.has_admin_access) {
    p.error = invalid(": admin access is requested, but the feature is disabled");
    return p;
  }
  if (view.class_name.empty()) {
    p.error = invalid(": missing device class name (unsupported request type?)");
    return p;
  }
  const std::string class_name(view.class_name);
  p.device_class = Class(class_name);
  if (p.device_class == nullptr) {
    p.error = invalid(": could not retrieve device class " + class_name + ": deviceclass.resource.k8s.io \"" +
                      class_name + "\" not found");
    return p;
  }
  if (view.mode == api::kDeviceAllocationModeExactCount) {
    if (view.count < 0) {
      p.error = invalid(": exact count " + std::to_string(view.count) + " is invalid");
      return p;
    }
  } else if (view.mode == api::kDeviceAllocationModeAll) {
    p.all = true;
  } else {
    p.error = invalid(": unsupported count mode " + std::string(view.mode));
    return p;
  }
  // A class selector without CEL (which the API server refuses) stays a
  // null program, an error when evaluated.
  for (const api::DeviceSelector& selector : p.device_class->spec.selectors) {
    p.class_programs.push_back(selector.cel ? cel_cache_.GetOrCompile(selector.cel->expression) : nullptr);
  }
  for (const api::DeviceSelector& selector : selectors) {
    p.request_programs.push_back(cel_cache_.GetOrCompile(selector.cel->expression));
  }
  return p;
}

}  // namespace ksched::scheduler::dra
