// DeviceClassResolver: which DeviceClass serves an extended resource
// (DRAExtendedResource; kube's ExtendedResourceCache behind
// SharedDRAManager.DeviceClassResolver). A class serves its
// spec.extendedResourceName and its implicit name
// "deviceclass.resource.kubernetes.io/<class name>". When several classes
// name one extended resource, the oldest (creationTimestamp, then the
// smallest name) serves it, as kube's cache decides.
//
// kube keeps its map up to date on DeviceClass informer events; here the
// map is derived from the DeviceClass lister and rebuilt only when the
// lister hands out other objects (pointer comparison), so it does not
// depend on the order events arrived in. One consequence: kube's cache,
// when a newer class loses an extended resource name to an older one on an
// event, also skips that newer class's implicit name; here every class
// always serves its implicit name.
//
// NodeResourcesFit and DynamicResources each hold one over the same lister
// and so agree on the mapping.
//
// Thread-safety: Snapshot may be called concurrently (one mutex); a
// snapshot is immutable.
// Complexity: Snapshot is O(classes) (the list and its comparison); a
// rebuild O(classes log classes); Lookup O(log classes).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/scheduler/framework/listers.h"

namespace ksched::scheduler::framework {

// Extended resource name -> the DeviceClass serving it.
class ExtendedResourceClasses {
 public:
  ExtendedResourceClasses() = default;
  explicit ExtendedResourceClasses(const std::vector<std::shared_ptr<const api::DeviceClass>>& classes);

  // The class serving `resource_name`, or nullptr.
  const api::DeviceClass* Lookup(std::string_view resource_name) const;
  bool empty() const { return by_resource_.empty(); }

 private:
  std::map<std::string, std::shared_ptr<const api::DeviceClass>, std::less<>> by_resource_;
};

// kube's schedutil.IsDRAExtendedResourceName: an extended resource name
// ("example.com/gpu") or an implicit class name.
bool IsDraExtendedResourceName(std::string_view name);

class DeviceClassResolver {
 public:
  // `classes` must outlive the resolver.
  explicit DeviceClassResolver(const ObjectLister<api::DeviceClass>& classes);

  // The mapping over the lister's current classes.
  std::shared_ptr<const ExtendedResourceClasses> Snapshot() const;

 private:
  const ObjectLister<api::DeviceClass>& classes_;
  mutable std::mutex mu_;
  mutable std::vector<std::shared_ptr<const api::DeviceClass>> last_;       // guarded by mu_
  mutable std::shared_ptr<const ExtendedResourceClasses> snapshot_;         // guarded by mu_
};

}  // namespace ksched::scheduler::framework
