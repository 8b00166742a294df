#include "pkg/leaderelection/lease_lock.h"

#include <chrono>

namespace ksched::leaderelection {

// The API stores MicroTime; truncating makes a record written by this
// process compare equal to the same record read back.
util::WallTime TruncateToMicros(util::WallTime t) {
  return std::chrono::time_point_cast<std::chrono::microseconds>(t);
}

LeaderElectionRecord RecordFromLeaseSpec(const api::LeaseSpec& spec) {
  LeaderElectionRecord r;
  r.holder_identity = spec.holder_identity.value_or("");
  r.lease_duration_seconds = spec.lease_duration_seconds.value_or(0);
  if (spec.acquire_time) r.acquire_time = TruncateToMicros(*spec.acquire_time);
  if (spec.renew_time) r.renew_time = TruncateToMicros(*spec.renew_time);
  r.leader_transitions = spec.lease_transitions.value_or(0);
  return r;
}

api::LeaseSpec LeaseSpecFromRecord(const LeaderElectionRecord& record) {
  api::LeaseSpec spec;
  // Written even when empty: a released Lease says explicitly that nobody
  // holds it.
  spec.holder_identity = record.holder_identity;
  spec.lease_duration_seconds = record.lease_duration_seconds;
  spec.acquire_time = TruncateToMicros(record.acquire_time);
  spec.renew_time = TruncateToMicros(record.renew_time);
  spec.lease_transitions = record.leader_transitions;
  return spec;
}

util::StatusOr<LeaderElectionRecord> LeaseLock::Get() {
  util::StatusOr<api::Lease> got = client_.Get(namespace_, name_);
  if (!got.ok()) return got.status();
  lease_ = std::move(got).value();
  return RecordFromLeaseSpec(lease_->spec);
}

util::Status LeaseLock::Create(const LeaderElectionRecord& record) {
  api::Lease lease;
  lease.metadata.namespace_ = namespace_;
  lease.metadata.name = name_;
  lease.spec = LeaseSpecFromRecord(record);
  util::StatusOr<api::Lease> created = client_.Create(lease);
  if (!created.ok()) return created.status();
  lease_ = std::move(created).value();
  return util::Status();
}

util::Status LeaseLock::Update(const LeaderElectionRecord& record) {
  if (!lease_) return util::Internal("lease " + Describe() + " not initialized: Get or Create it first");
  api::Lease lease = *lease_;
  lease.spec = LeaseSpecFromRecord(record);
  util::StatusOr<api::Lease> updated = client_.Update(lease);
  if (!updated.ok()) return updated.status();
  lease_ = std::move(updated).value();
  return util::Status();
}

}  // namespace ksched::leaderelection
