#include "pkg/leaderelection/leader_elector.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <condition_variable>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "pkg/leaderelection/fake_lease_client.h"

namespace ksched::leaderelection {
namespace {

using std::chrono::seconds;

constexpr char kNs[] = "kube-system";
constexpr char kName[] = "ksched";

// One candidate running on its own thread, driven by a shared FakeClock.
class Candidate {
 public:
  Candidate(std::string identity, FakeLeaseClient& client, util::FakeClock& clock,
            metrics::LeaderElectionMetrics* metrics = nullptr)
      : client_(client) {
    LeaderElectionConfig c;
    c.metrics = metrics;
    c.random = [] { return 0.0; };  // no jitter: tests step exact periods
    c.callbacks.on_started_leading = [this] { started_.set_value(); };
    c.callbacks.on_stopped_leading = [this] {
      std::optional<api::Lease> l = client_.Stored(kNs, kName);
      holder_when_stopped_ = l ? l->spec.holder_identity.value_or("") : "";
      stopped_.set_value();
    };
    c.callbacks.on_new_leader = [this](const std::string& id) {
      std::lock_guard<std::mutex> g(mu_);
      new_leaders_.push_back(id);
      new_leader_cv_.notify_all();
    };
    c.callbacks.on_renewed = [this](util::TimePoint start) {
      std::lock_guard<std::mutex> g(mu_);
      renewals_.push_back(start);
      new_leader_cv_.notify_all();
    };
    auto e = LeaderElector::New(std::move(c), LeaseLock(kNs, kName, std::move(identity), client), clock);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    elector_ = std::move(e).value();
  }
  ~Candidate() {
    elector_->Stop();
    if (thread_.joinable()) thread_.join();
  }

  void Start() {
    thread_ = std::thread([this] { result_.set_value(elector_->Run()); });
  }
  bool Started(seconds within = seconds(10)) {
    return started_future_.wait_for(within) == std::future_status::ready;
  }
  bool StoppedLeading(seconds within = seconds(10)) {
    return stopped_future_.wait_for(within) == std::future_status::ready;
  }
  LeaderElector::Result Result() {
    EXPECT_EQ(result_future_.wait_for(seconds(10)), std::future_status::ready);
    return result_future_.get();
  }
  // Blocks until `id` was reported as the new leader (10 s at most).
  bool SawLeader(const std::string& id) {
    std::unique_lock<std::mutex> g(mu_);
    return new_leader_cv_.wait_for(g, seconds(10), [&] {
      return std::find(new_leaders_.begin(), new_leaders_.end(), id) != new_leaders_.end();
    });
  }
  // The on_renewed reports, once there are `n` of them (10 s at most).
  std::vector<util::TimePoint> Renewals(size_t n) {
    std::unique_lock<std::mutex> g(mu_);
    new_leader_cv_.wait_for(g, seconds(10), [&] { return renewals_.size() >= n; });
    return renewals_;
  }
  std::vector<std::string> NewLeaders() {
    std::lock_guard<std::mutex> g(mu_);
    return new_leaders_;
  }
  LeaderElector& elector() { return *elector_; }
  const std::string& holder_when_stopped() const { return holder_when_stopped_; }

 private:
  FakeLeaseClient& client_;
  std::unique_ptr<LeaderElector> elector_;
  std::promise<void> started_;
  std::future<void> started_future_ = started_.get_future();
  std::promise<void> stopped_;
  std::future<void> stopped_future_ = stopped_.get_future();
  std::promise<LeaderElector::Result> result_;
  std::future<LeaderElector::Result> result_future_ = result_.get_future();
  std::mutex mu_;
  std::condition_variable new_leader_cv_;
  std::vector<std::string> new_leaders_;
  std::vector<util::TimePoint> renewals_;
  std::string holder_when_stopped_;
  std::thread thread_;
};

api::Lease HeldBy(const std::string& holder, util::WallTime renew, int32_t transitions) {
  api::Lease l;
  l.metadata.namespace_ = kNs;
  l.metadata.name = kName;
  l.spec.holder_identity = holder;
  l.spec.lease_duration_seconds = 15;
  l.spec.acquire_time = renew;
  l.spec.renew_time = renew;
  l.spec.lease_transitions = transitions;
  return l;
}

class LeaderElectorTest : public ::testing::Test {
 protected:
  util::FakeClock clock_;
  FakeLeaseClient client_;
  prometheus::Registry registry_;
  metrics::LeaderElectionMetrics metrics_{registry_};
};

TEST_F(LeaderElectorTest, AcquiresByCreatingTheLease) {
  Candidate a("host-a_1", client_, clock_, &metrics_);
  a.Start();
  ASSERT_TRUE(a.Started());
  EXPECT_TRUE(a.elector().IsLeader());
  EXPECT_EQ(a.elector().GetLeader(), "host-a_1");
  std::optional<api::Lease> l = client_.Stored(kNs, kName);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->spec.holder_identity, "host-a_1");
  EXPECT_EQ(l->spec.lease_duration_seconds, 15);
  EXPECT_EQ(l->spec.lease_transitions, 0);
  EXPECT_EQ(metrics_.MasterStatus(kName).Value(), 1.0);
  EXPECT_EQ(a.NewLeaders(), std::vector<std::string>{"host-a_1"});
}

// on_renewed reports each success with the time its attempt started: the
// acquisition before on_started_leading, then every renewal; a failed
// renewal reports nothing (the daemon's WritesGate deadline stays put).
TEST_F(LeaderElectorTest, ReportsEachRenewalWithTheStartOfItsAttempt) {
  Candidate a("host-a_1", client_, clock_);
  const util::TimePoint t0 = clock_.Now();
  a.Start();
  ASSERT_TRUE(a.Started());
  EXPECT_GE(a.Renewals(1).size(), 1u);  // before on_started_leading
  ASSERT_TRUE(client_.WaitForCalls(3));  // Get, Create, first renewal
  ASSERT_EQ(a.Renewals(2).size(), 2u);
  clock_.Step(seconds(2));
  ASSERT_TRUE(client_.WaitForCalls(4));
  std::vector<util::TimePoint> r = a.Renewals(3);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], t0);
  EXPECT_EQ(r[1], t0);
  EXPECT_EQ(r[2], t0 + seconds(2));
  client_.SetFailure(util::Status(util::StatusCode::kUnavailable, "connection refused"));
  clock_.Step(seconds(2));
  ASSERT_TRUE(client_.WaitForCalls(5));
  EXPECT_EQ(a.Renewals(3).size(), 3u);
}

TEST_F(LeaderElectorTest, RenewsEveryRetryPeriod) {
  Candidate a("host-a_1", client_, clock_);
  a.Start();
  ASSERT_TRUE(a.Started());
  // Get (not found), Create, then the first renewal at once.
  ASSERT_TRUE(client_.WaitForCalls(3));
  const util::WallTime first = *client_.Stored(kNs, kName)->spec.renew_time;
  const util::WallTime acquired = *client_.Stored(kNs, kName)->spec.acquire_time;
  for (int i = 1; i <= 3; ++i) {
    clock_.Step(seconds(2));
    ASSERT_TRUE(client_.WaitForCalls(3 + i));
  }
  // Renewals take the fast path: one Update each, no Get.
  EXPECT_EQ(client_.Calls(), 6);
  std::optional<api::Lease> l = client_.Stored(kNs, kName);
  EXPECT_EQ(*l->spec.renew_time - first, seconds(6));
  EXPECT_EQ(*l->spec.acquire_time, acquired);
  EXPECT_EQ(l->spec.lease_transitions, 0);
  EXPECT_FALSE(a.StoppedLeading(seconds(0)));
}

TEST_F(LeaderElectorTest, StandsByWhileAnotherLeaderRenews) {
  client_.Put(HeldBy("host-b_2", clock_.WallNow(), 4));
  Candidate a("host-a_1", client_, clock_, &metrics_);
  a.Start();
  ASSERT_TRUE(client_.WaitForCalls(1));
  for (int i = 1; i <= 10; ++i) {
    // The other leader renews every 2 s: the record changes, so its expiry
    // is measured again from now.
    clock_.Step(seconds(2));
    client_.Put(HeldBy("host-b_2", clock_.WallNow(), 4));
    ASSERT_TRUE(client_.WaitForCalls(1 + i));
  }
  EXPECT_FALSE(a.Started(seconds(0)));
  EXPECT_FALSE(a.elector().IsLeader());
  EXPECT_EQ(a.elector().GetLeader(), "host-b_2");
  EXPECT_EQ(a.NewLeaders(), std::vector<std::string>{"host-b_2"});
  EXPECT_EQ(client_.Updates(), 0);
  EXPECT_EQ(metrics_.MasterStatus(kName).Value(), 0.0);
  EXPECT_TRUE(a.elector().Check(seconds(20)).ok());  // a standby is healthy
  a.elector().Stop();
  EXPECT_EQ(a.Result(), LeaderElector::Result::kStopped);
  EXPECT_FALSE(a.StoppedLeading(seconds(0)));  // never led
}

TEST_F(LeaderElectorTest, TakesOverAnExpiredLease) {
  client_.Put(HeldBy("host-b_2", clock_.WallNow(), 4));
  Candidate a("host-a_1", client_, clock_);
  a.Start();
  ASSERT_TRUE(client_.WaitForCalls(1));
  // The holder stopped renewing. 14 s after we first saw the record it is
  // still valid ...
  clock_.Step(seconds(14));
  ASSERT_TRUE(client_.WaitForCalls(2));
  EXPECT_FALSE(a.Started(seconds(0)));
  // ... at 16 s it has expired (15 s lease) and we take it over.
  clock_.Step(seconds(2));
  ASSERT_TRUE(a.Started());
  std::optional<api::Lease> l = client_.Stored(kNs, kName);
  EXPECT_EQ(l->spec.holder_identity, "host-a_1");
  EXPECT_EQ(l->spec.lease_transitions, 5);
  EXPECT_EQ(a.NewLeaders(), (std::vector<std::string>{"host-b_2", "host-a_1"}));
}

TEST_F(LeaderElectorTest, TakesOverAReleasedLeaseAtOnce) {
  api::Lease released = HeldBy("", clock_.WallNow(), 7);
  released.spec.lease_duration_seconds = 1;
  client_.Put(released);
  Candidate a("host-a_1", client_, clock_);
  a.Start();
  ASSERT_TRUE(a.Started());
  EXPECT_EQ(client_.Stored(kNs, kName)->spec.lease_transitions, 8);
}

TEST_F(LeaderElectorTest, StopsLeadingWhenRenewalFailsForTheRenewDeadline) {
  Candidate a("host-a_1", client_, clock_, &metrics_);
  a.Start();
  ASSERT_TRUE(a.Started());
  ASSERT_TRUE(client_.WaitForCalls(3));
  client_.SetFailure(util::Status(util::StatusCode::kUnavailable, "connection refused"));
  // Rounds start 2 s after the last success (t=2); attempts at 2, 4, 6, 8
  // and 10 s fail (fast-path Update, then Get: 2 calls each).
  int64_t calls = client_.Calls();
  for (int t = 2; t <= 8; t += 2) {
    clock_.Step(seconds(2));
    calls += 2;
    ASSERT_TRUE(client_.WaitForCalls(calls));
    EXPECT_FALSE(a.StoppedLeading(seconds(0))) << "t=" << t;
  }
  clock_.Step(seconds(2));
  ASSERT_TRUE(a.StoppedLeading());
  EXPECT_EQ(a.Result(), LeaderElector::Result::kLost);
  EXPECT_EQ(metrics_.MasterStatus(kName).Value(), 0.0);
  // The watchdog: not renewed for more than 15 s + 20 s.
  EXPECT_TRUE(a.elector().Check(seconds(20)).ok());
  clock_.Step(seconds(30));
  EXPECT_EQ(a.elector().Check(seconds(20)).code(), util::StatusCode::kUnavailable);
}

TEST_F(LeaderElectorTest, ReleasesOnStopAfterDrainingSoAStandbyTakesOverInOneRetryPeriod) {
  Candidate a("host-a_1", client_, clock_, &metrics_);
  a.Start();
  ASSERT_TRUE(a.Started());
  Candidate b("host-b_2", client_, clock_);
  b.Start();
  ASSERT_TRUE(client_.WaitForCalls(4));  // a: Get, Create, Update; b: Get
  EXPECT_FALSE(b.Started(seconds(0)));

  a.elector().Stop();
  EXPECT_EQ(a.Result(), LeaderElector::Result::kStopped);
  // on_stopped_leading ran while the Lease was still ours.
  ASSERT_TRUE(a.StoppedLeading());
  EXPECT_EQ(a.holder_when_stopped(), "host-a_1");
  std::optional<api::Lease> l = client_.Stored(kNs, kName);
  EXPECT_EQ(l->spec.holder_identity, "");
  EXPECT_EQ(l->spec.lease_duration_seconds, 1);
  EXPECT_EQ(l->spec.lease_transitions, 0);
  EXPECT_FALSE(a.elector().IsLeader());
  EXPECT_EQ(metrics_.MasterStatus(kName).Value(), 0.0);

  // b's next attempt, one retry period later, takes it over.
  clock_.Step(seconds(2));
  ASSERT_TRUE(b.Started());
  l = client_.Stored(kNs, kName);
  EXPECT_EQ(l->spec.holder_identity, "host-b_2");
  EXPECT_EQ(l->spec.lease_transitions, 1);
}

TEST_F(LeaderElectorTest, ConflictFallsBackToReadingTheLease) {
  Candidate a("host-a_1", client_, clock_, &metrics_);
  a.Start();
  ASSERT_TRUE(a.Started());
  ASSERT_TRUE(client_.WaitForCalls(3));
  // Someone rewrote the Lease with identical content: our cached
  // resourceVersion is stale, so the fast-path Update gets 409.
  client_.Put(*client_.Stored(kNs, kName));
  clock_.Step(seconds(2));
  ASSERT_TRUE(client_.WaitForCalls(6));  // Update (409), Get, Update
  EXPECT_EQ(client_.Stored(kNs, kName)->spec.holder_identity, "host-a_1");
  EXPECT_EQ(metrics_.Slowpath(kName).Value(), 1.0);
  EXPECT_TRUE(a.elector().IsLeader());
  EXPECT_FALSE(a.StoppedLeading(seconds(0)));
}

TEST_F(LeaderElectorTest, AConflictingCandidateLosesTheRace) {
  // Two candidates see no Lease; only one Create can succeed.
  Candidate a("host-a_1", client_, clock_);
  Candidate b("host-b_2", client_, clock_);
  a.Start();
  ASSERT_TRUE(a.Started());
  b.Start();
  ASSERT_TRUE(b.SawLeader("host-a_1"));
  EXPECT_FALSE(b.Started(seconds(0)));
  EXPECT_EQ(b.elector().GetLeader(), "host-a_1");
  EXPECT_FALSE(b.elector().IsLeader());
}

TEST(LeaderElectorConfigTest, RejectsInconsistentDurations) {
  util::FakeClock clock;
  FakeLeaseClient client;
  auto make = [&](seconds lease, seconds renew, seconds retry, std::string id = "me") {
    LeaderElectionConfig c;
    c.lease_duration = lease;
    c.renew_deadline = renew;
    c.retry_period = retry;
    return LeaderElector::New(std::move(c), LeaseLock(kNs, kName, std::move(id), client), clock).status();
  };
  EXPECT_TRUE(make(seconds(15), seconds(10), seconds(2)).ok());
  EXPECT_NE(make(seconds(10), seconds(10), seconds(2)).message().find("must be greater than renewDeadline"),
            std::string::npos);
  EXPECT_NE(make(seconds(15), seconds(2), seconds(2)).message().find("retryPeriod*1.2"), std::string::npos);
  EXPECT_FALSE(make(seconds(15), seconds(10), seconds(0)).ok());
  EXPECT_FALSE(make(seconds(15), seconds(10), seconds(2), "").ok());
}

}  // namespace
}  // namespace ksched::leaderelection
