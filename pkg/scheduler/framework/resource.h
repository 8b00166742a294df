// Resource: an amount of compute resources as kube-scheduler counts them on
// a node (framework.Resource): cpu in millicores, memory, ephemeral storage
// and pods as integers, every other scalar resource (extended resources,
// hugepages-*, attachable-volumes-*, prefixed native names) by name.
//
// Conversion from an api::ResourceList follows kube: cpu uses MilliValue(),
// everything else Value(); names that are neither core nor scalar resources
// are ignored.
//
// Thread-safety: a value type.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "pkg/api/types.h"

namespace ksched::scheduler::framework {

// Scalar resources by name, a map held out of line: most nodes and pods
// have none, and without the map inline a Resource's four counters and its
// pointer fit in 40 bytes, so the NodeInfo fields that Filter and Score read
// for every node share three cache lines (see NodeInfo). A value type: copies
// copy the map; an empty map and none compare equal.
class ScalarResources {
 public:
  using Map = std::map<std::string, int64_t, std::less<>>;

  ScalarResources() = default;
  ScalarResources(const ScalarResources& other) : map_(other.empty() ? nullptr : std::make_unique<Map>(*other.map_)) {}
  ScalarResources& operator=(const ScalarResources& other) {
    if (this != &other) map_ = other.empty() ? nullptr : std::make_unique<Map>(*other.map_);
    return *this;
  }
  ScalarResources(ScalarResources&&) noexcept = default;
  ScalarResources& operator=(ScalarResources&&) noexcept = default;

  const Map& map() const { return map_ ? *map_ : EmptyMap(); }
  // Without a map both are the value-initialized iterator: an empty range.
  Map::const_iterator begin() const { return map_ ? map_->begin() : Map::const_iterator(); }
  Map::const_iterator end() const { return map_ ? map_->end() : Map::const_iterator(); }
  bool empty() const { return map_ == nullptr || map_->empty(); }
  size_t size() const { return map_ ? map_->size() : 0; }
  Map::const_iterator find(std::string_view name) const { return map_ ? map_->find(name) : end(); }
  // The entry for `name`, created at 0 if absent.
  int64_t& operator[](std::string_view name);

  bool operator==(const ScalarResources& other) const { return map() == other.map(); }

 private:
  static const Map& EmptyMap();
  std::unique_ptr<Map> map_;
};

struct Resource {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  // "pods": how many pods a node accepts (only meaningful for allocatable).
  int64_t allowed_pod_number = 0;
  // Extended and other scalar resources, by resource name. Entries may be
  // zero (after a Sub); readers treat a missing entry as zero.
  ScalarResources scalar_resources;

  Resource() = default;
  // NewResource(rl).
  explicit Resource(const api::ResourceList& rl) { Add(rl); }

  // Adds every resource of `rl`.
  void Add(const api::ResourceList& rl);
  // Adds/subtracts another Resource field by field (scalars by name).
  void Add(const Resource& r);
  void Sub(const Resource& r);
  // Raises each resource of `rl` to at least its quantity.
  void SetMaxResource(const api::ResourceList& rl);

  int64_t Scalar(std::string_view name) const;
  void SetScalar(std::string_view name, int64_t quantity);
  void AddScalar(std::string_view name, int64_t quantity);

  // The amount of resource `name` ("cpu" in millicores, "memory", "pods",
  // "ephemeral-storage", or a scalar resource), 0 when absent.
  int64_t Get(std::string_view name) const;

  // True when every field is zero (scalars included).
  bool IsZero() const;

  bool operator==(const Resource&) const = default;
};

}  // namespace ksched::scheduler::framework
