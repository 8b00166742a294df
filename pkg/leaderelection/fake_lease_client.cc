#include "pkg/leaderelection/fake_lease_client.h"

namespace ksched::leaderelection {

namespace {

std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

}  // namespace

void FakeLeaseClient::Called() {
  ++calls_;
  cv_.notify_all();
}

util::StatusOr<api::Lease> FakeLeaseClient::Get(const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  Called();
  if (failure_) return *failure_;
  auto it = leases_.find(Key(ns, name));
  if (it == leases_.end()) return util::NotFound("leases \"" + name + "\" not found");
  return it->second;
}

util::StatusOr<api::Lease> FakeLeaseClient::Create(const api::Lease& lease) {
  std::lock_guard<std::mutex> l(mu_);
  Called();
  if (failure_) return *failure_;
  const std::string key = Key(lease.metadata.namespace_, lease.metadata.name);
  if (leases_.count(key) > 0) {
    return util::Status(util::StatusCode::kAlreadyExists, "leases \"" + lease.metadata.name + "\" already exists");
  }
  api::Lease stored = lease;
  stored.metadata.resource_version = std::to_string(++version_);
  leases_[key] = stored;
  ++updates_;
  return stored;
}

util::StatusOr<api::Lease> FakeLeaseClient::Update(const api::Lease& lease) {
  std::lock_guard<std::mutex> l(mu_);
  Called();
  if (failure_) return *failure_;
  auto it = leases_.find(Key(lease.metadata.namespace_, lease.metadata.name));
  if (it == leases_.end()) return util::NotFound("leases \"" + lease.metadata.name + "\" not found");
  if (lease.metadata.resource_version != it->second.metadata.resource_version) {
    return util::Status(util::StatusCode::kConflict,
                        "Operation cannot be fulfilled on leases.coordination.k8s.io \"" + lease.metadata.name +
                            "\": the object has been modified; please apply your changes to the latest version "
                            "and try again");
  }
  it->second = lease;
  it->second.metadata.resource_version = std::to_string(++version_);
  ++updates_;
  return it->second;
}

void FakeLeaseClient::SetFailure(std::optional<util::Status> status) {
  std::lock_guard<std::mutex> l(mu_);
  failure_ = std::move(status);
}

void FakeLeaseClient::Put(const api::Lease& lease) {
  std::lock_guard<std::mutex> l(mu_);
  api::Lease stored = lease;
  stored.metadata.resource_version = std::to_string(++version_);
  leases_[Key(lease.metadata.namespace_, lease.metadata.name)] = stored;
}

std::optional<api::Lease> FakeLeaseClient::Stored(const std::string& ns, const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = leases_.find(Key(ns, name));
  if (it == leases_.end()) return std::nullopt;
  return it->second;
}

int64_t FakeLeaseClient::Calls() const {
  std::lock_guard<std::mutex> l(mu_);
  return calls_;
}

int64_t FakeLeaseClient::Updates() const {
  std::lock_guard<std::mutex> l(mu_);
  return updates_;
}

bool FakeLeaseClient::WaitForCalls(int64_t n) const {
  std::unique_lock<std::mutex> l(mu_);
  return cv_.wait_for(l, std::chrono::seconds(10), [&] { return calls_ >= n; });
}

}  // namespace ksched::leaderelection
