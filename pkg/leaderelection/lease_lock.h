// LeaseLock: one coordination.k8s.io/v1 Lease used as a leader-election
// lock (client-go's resourcelock.LeaseLock).
//
// The lock keeps the Lease it last read or wrote, so that Update sends that
// object's resourceVersion: an Update based on a stale read fails with
// kConflict instead of overwriting another candidate's record. Update
// before any successful Get or Create is an error (there is no version to
// send).
//
// LeaderElectionRecord is the lock-independent view of the Lease spec; an
// empty holder identity means "nobody holds it" (what a release writes).
//
// Thread-safety: not thread-safe; the elector calls it from its own thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pkg/api/types.h"
#include "pkg/leaderelection/lease_client.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::leaderelection {

struct LeaderElectionRecord {
  std::string holder_identity;
  int32_t lease_duration_seconds = 0;
  util::WallTime acquire_time{};
  util::WallTime renew_time{};
  int32_t leader_transitions = 0;

  friend bool operator==(const LeaderElectionRecord&, const LeaderElectionRecord&) = default;
};

// Lease spec <-> record. Times are truncated to microseconds (MicroTime)
// so that a record survives a round trip through the API unchanged.
util::WallTime TruncateToMicros(util::WallTime t);
LeaderElectionRecord RecordFromLeaseSpec(const api::LeaseSpec& spec);
api::LeaseSpec LeaseSpecFromRecord(const LeaderElectionRecord& record);

class LeaseLock {
 public:
  // `client` must outlive the lock. `identity` is this candidate's holder
  // identity.
  LeaseLock(std::string ns, std::string name, std::string identity, LeaseClient& client)
      : namespace_(std::move(ns)), name_(std::move(name)), identity_(std::move(identity)), client_(client) {}

  // Reads the Lease; kNotFound when it does not exist.
  util::StatusOr<LeaderElectionRecord> Get();
  // Creates the Lease holding `record`; kAlreadyExists when another
  // candidate was first.
  util::Status Create(const LeaderElectionRecord& record);
  // Replaces the spec of the Lease last read or written with `record`;
  // kConflict when the Lease changed since.
  util::Status Update(const LeaderElectionRecord& record);

  const std::string& identity() const { return identity_; }
  const std::string& name() const { return name_; }
  // "namespace/name", for logs.
  std::string Describe() const { return namespace_ + "/" + name_; }

 private:
  const std::string namespace_;
  const std::string name_;
  const std::string identity_;
  LeaseClient& client_;
  std::optional<api::Lease> lease_;
};

}  // namespace ksched::leaderelection
