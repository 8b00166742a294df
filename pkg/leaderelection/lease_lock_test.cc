#include "pkg/leaderelection/lease_lock.h"

#include <gtest/gtest.h>

#include "pkg/leaderelection/fake_lease_client.h"

namespace ksched::leaderelection {
namespace {

TEST(LeaseLockTest, RecordRoundTripsThroughTheLeaseSpec) {
  LeaderElectionRecord r;
  r.holder_identity = "node-1_abc";
  r.lease_duration_seconds = 15;
  r.acquire_time = util::WallTime(std::chrono::microseconds(1'700'000'000'123'456));
  r.renew_time = r.acquire_time + std::chrono::seconds(4);
  r.leader_transitions = 3;
  api::LeaseSpec spec = LeaseSpecFromRecord(r);
  EXPECT_EQ(spec.holder_identity, "node-1_abc");
  EXPECT_EQ(spec.lease_duration_seconds, 15);
  EXPECT_EQ(spec.lease_transitions, 3);
  EXPECT_EQ(RecordFromLeaseSpec(spec), r);
  // A released record still writes the (empty) holder.
  EXPECT_EQ(LeaseSpecFromRecord(LeaderElectionRecord{}).holder_identity, "");
}

TEST(LeaseLockTest, MissingFieldsReadAsZero) {
  LeaderElectionRecord r = RecordFromLeaseSpec(api::LeaseSpec{});
  EXPECT_EQ(r, LeaderElectionRecord{});
}

TEST(LeaseLockTest, UpdateSendsTheVersionLastSeen) {
  FakeLeaseClient client;
  LeaseLock lock("ns", "lease", "me", client);
  LeaderElectionRecord r;
  r.holder_identity = "me";
  r.lease_duration_seconds = 15;
  EXPECT_EQ(lock.Update(r).code(), util::StatusCode::kInternal);  // never read
  EXPECT_EQ(lock.Get().status().code(), util::StatusCode::kNotFound);
  ASSERT_TRUE(lock.Create(r).ok());
  EXPECT_EQ(lock.Create(r).code(), util::StatusCode::kAlreadyExists);
  r.leader_transitions = 1;
  ASSERT_TRUE(lock.Update(r).ok());
  EXPECT_EQ(client.Stored("ns", "lease")->spec.lease_transitions, 1);
  // Another writer: our version is stale until we read again.
  client.Put(*client.Stored("ns", "lease"));
  EXPECT_EQ(lock.Update(r).code(), util::StatusCode::kConflict);
  util::StatusOr<LeaderElectionRecord> got = lock.Get();
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->holder_identity, "me");
  EXPECT_TRUE(lock.Update(r).ok());
  EXPECT_EQ(lock.Describe(), "ns/lease");
}

}  // namespace
}  // namespace ksched::leaderelection
