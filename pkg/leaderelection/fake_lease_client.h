// FakeLeaseClient: an in-memory LeaseClient with the API server's
// optimistic concurrency (resourceVersion checks, kConflict, kNotFound,
// kAlreadyExists), for tests of the elector. Tests can inject failures, write
// the Lease as "another candidate" would, and block until the elector has
// made a number of calls.
//
// Thread-safety: thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "pkg/leaderelection/lease_client.h"

namespace ksched::leaderelection {

class FakeLeaseClient final : public LeaseClient {
 public:
  util::StatusOr<api::Lease> Get(const std::string& ns, const std::string& name) override;
  util::StatusOr<api::Lease> Create(const api::Lease& lease) override;
  util::StatusOr<api::Lease> Update(const api::Lease& lease) override;

  // Every call fails with `status` while set (e.g. the API server is down).
  void SetFailure(std::optional<util::Status> status);
  // Writes the Lease as another writer would (new resourceVersion).
  void Put(const api::Lease& lease);
  std::optional<api::Lease> Stored(const std::string& ns, const std::string& name) const;

  int64_t Calls() const;
  int64_t Updates() const;  // successful Create and Update calls
  // Blocks until Calls() >= n; false after 10 s of real time (a hung test
  // fails instead of blocking ctest).
  bool WaitForCalls(int64_t n) const;

 private:
  void Called();

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, api::Lease> leases_;
  int64_t version_ = 100;
  int64_t calls_ = 0;
  int64_t updates_ = 0;
  std::optional<util::Status> failure_;
};

}  // namespace ksched::leaderelection
