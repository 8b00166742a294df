#include "pkg/leaderelection/lease_client.h"

#include "pkg/client/lease_calls.h"

namespace ksched::leaderelection {

util::StatusOr<api::Lease> RestLeaseClient::Get(const std::string& ns, const std::string& name) {
  return client::GetLease(client_, ns, name);
}

util::StatusOr<api::Lease> RestLeaseClient::Create(const api::Lease& lease) {
  return client::CreateLease(client_, lease);
}

util::StatusOr<api::Lease> RestLeaseClient::Update(const api::Lease& lease) {
  return client::UpdateLease(client_, lease);
}

}  // namespace ksched::leaderelection
