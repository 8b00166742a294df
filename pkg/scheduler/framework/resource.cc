#include "pkg/scheduler/framework/resource.h"

#include <algorithm>

#include "pkg/api/pod_helpers.h"

namespace ksched::scheduler::framework {

namespace {

// How one ResourceList entry is counted; returns false for names NodeInfo
// does not track.
template <class Apply>
bool ForResource(const std::string& name, const api::Quantity& q, Apply apply) {
  if (name == api::kResourceCPU) return apply(&Resource::milli_cpu, q.MilliValue()), true;
  if (name == api::kResourceMemory) return apply(&Resource::memory, q.Value()), true;
  if (name == api::kResourceEphemeralStorage) return apply(&Resource::ephemeral_storage, q.Value()), true;
  if (name == api::kResourcePods) return apply(&Resource::allowed_pod_number, q.Value()), true;
  return false;
}

}  // namespace

void Resource::Add(const api::ResourceList& rl) {
  for (const auto& [name, q] : rl) {
    bool core = ForResource(name, q, [this](int64_t Resource::*field, int64_t v) { this->*field += v; });
    if (!core && api::IsScalarResourceName(name)) AddScalar(name, q.Value());
  }
}

void Resource::Add(const Resource& r) {
  milli_cpu += r.milli_cpu;
  memory += r.memory;
  ephemeral_storage += r.ephemeral_storage;
  allowed_pod_number += r.allowed_pod_number;
  for (const auto& [name, v] : r.scalar_resources) AddScalar(name, v);
}

void Resource::Sub(const Resource& r) {
  milli_cpu -= r.milli_cpu;
  memory -= r.memory;
  ephemeral_storage -= r.ephemeral_storage;
  allowed_pod_number -= r.allowed_pod_number;
  for (const auto& [name, v] : r.scalar_resources) AddScalar(name, -v);
}

void Resource::SetMaxResource(const api::ResourceList& rl) {
  for (const auto& [name, q] : rl) {
    bool core = ForResource(name, q, [this](int64_t Resource::*field, int64_t v) {
      this->*field = std::max(this->*field, v);
    });
    if (!core && api::IsScalarResourceName(name)) SetScalar(name, std::max(Scalar(name), q.Value()));
  }
}

const ScalarResources::Map& ScalarResources::EmptyMap() {
  static const Map* const empty = new Map();
  return *empty;
}

int64_t& ScalarResources::operator[](std::string_view name) {
  if (map_ == nullptr) map_ = std::make_unique<Map>();
  auto it = map_->find(name);
  if (it == map_->end()) it = map_->emplace(std::string(name), 0).first;
  return it->second;
}

int64_t Resource::Scalar(std::string_view name) const {
  auto it = scalar_resources.find(name);
  return it == scalar_resources.end() ? 0 : it->second;
}

void Resource::SetScalar(std::string_view name, int64_t quantity) { scalar_resources[name] = quantity; }

void Resource::AddScalar(std::string_view name, int64_t quantity) { scalar_resources[name] += quantity; }

int64_t Resource::Get(std::string_view name) const {
  if (name == api::kResourceCPU) return milli_cpu;
  if (name == api::kResourceMemory) return memory;
  if (name == api::kResourceEphemeralStorage) return ephemeral_storage;
  if (name == api::kResourcePods) return allowed_pod_number;
  return Scalar(name);
}

bool Resource::IsZero() const {
  if (milli_cpu != 0 || memory != 0 || ephemeral_storage != 0 || allowed_pod_number != 0) return false;
  return std::all_of(scalar_resources.begin(), scalar_resources.end(), [](const auto& e) { return e.second == 0; });
}

}  // namespace ksched::scheduler::framework
