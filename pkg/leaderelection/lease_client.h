// LeaseClient: the three Lease calls leader election makes, behind an
// interface so the elector's unit tests run against an in-memory fake
// (fake_lease_client.h) and the daemon against the API server
// (RestLeaseClient).
//
// Contract of every implementation (the API server's):
//   Get     kNotFound when the Lease does not exist;
//   Create  kAlreadyExists when it does;
//   Update  replaces the Lease only if metadata.resourceVersion is the
//           current one, else kConflict; the returned Lease carries the new
//           resourceVersion.
//
// Thread-safety: implementations are thread-safe.
#pragma once

#include <string>

#include "pkg/api/types.h"
#include "pkg/client/rest_client.h"
#include "pkg/util/status.h"

namespace ksched::leaderelection {

class LeaseClient {
 public:
  virtual ~LeaseClient() = default;
  virtual util::StatusOr<api::Lease> Get(const std::string& ns, const std::string& name) = 0;
  virtual util::StatusOr<api::Lease> Create(const api::Lease& lease) = 0;
  virtual util::StatusOr<api::Lease> Update(const api::Lease& lease) = 0;
};

// coordination.k8s.io/v1 through pkg/client's typed calls. Does not own the
// RestClient, which must outlive it.
class RestLeaseClient final : public LeaseClient {
 public:
  explicit RestLeaseClient(client::RestClient& client) : client_(client) {}

  util::StatusOr<api::Lease> Get(const std::string& ns, const std::string& name) override;
  util::StatusOr<api::Lease> Create(const api::Lease& lease) override;
  util::StatusOr<api::Lease> Update(const api::Lease& lease) override;

 private:
  client::RestClient& client_;
};

}  // namespace ksched::leaderelection
