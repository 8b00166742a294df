// LeaderWork with a real LeaderElector (fake Lease client, FakeClock), a
// real Scheduler and ApiWriter, and clients that log what reaches the API:
// no Bind, pod deletion, status patch or Event starts once the Lease is
// lost (at most renewDeadline after the renewals started failing), nor after
// it is released on a requested stop (SIGTERM).
#include "cmd/ksched/leader_work.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "pkg/leaderelection/fake_lease_client.h"
#include "pkg/leaderelection/leader_elector.h"
#include "pkg/scheduler/gated_clients.h"
#include "pkg/scheduler/scheduler_test_util.h"

namespace ksched::app {
namespace {

using std::chrono::seconds;
namespace st = ::ksched::scheduler::testing;

constexpr char kHoldingPreBind[] = "HoldingPreBind";

// A PodScheduled=False update: a status patch to write.
scheduler::apiwriter::PodStatusUpdate Unschedulable() {
  scheduler::apiwriter::PodScheduledCondition cond;
  cond.reason = "Unschedulable";
  cond.message = "0/1 nodes are available";
  scheduler::apiwriter::PodStatusUpdate update;
  update.condition = std::move(cond);
  return update;
}

// What reached the API, in order.
class Log {
 public:
  void Add(std::string entry) {
    std::lock_guard<std::mutex> l(mu_);
    entries_.push_back(std::move(entry));
    cv_.notify_all();
  }
  std::vector<std::string> Entries() const {
    std::lock_guard<std::mutex> l(mu_);
    return entries_;
  }
  bool WaitFor(const std::string& entry) const {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, seconds(10),
                        [&] { return std::find(entries_.begin(), entries_.end(), entry) != entries_.end(); });
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<std::string> entries_;
};

bool IsWrite(const std::string& entry) {
  for (const char* prefix : {"bind ", "patch ", "delete ", "event "}) {
    if (entry.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// The writes after the first `marker` entry.
std::vector<std::string> WritesAfter(const std::vector<std::string>& entries, const std::string& marker) {
  auto it = std::find(entries.begin(), entries.end(), marker);
  std::vector<std::string> out;
  if (it == entries.end()) return out;
  for (++it; it != entries.end(); ++it) {
    if (IsWrite(*it)) out.push_back(*it);
  }
  return out;
}

class LoggingBindingClient final : public scheduler::framework::BindingClient {
 public:
  explicit LoggingBindingClient(Log& log) : log_(log) {}
  // From now on a Bind hangs, as on a server that never answers, until
  // `cancel` fires (the daemon's binding REST view cancels on the writes
  // gate), then fails kCancelled.
  void HangUntil(std::stop_token cancel) { hang_until_ = std::move(cancel); }
  util::Status Bind(const api::Pod& pod, std::string_view) override {
    log_.Add("bind " + pod.metadata.name);
    if (hang_until_.stop_possible()) {
      std::mutex mu;
      std::condition_variable cv;
      std::stop_callback wake(hang_until_, [&] {
        std::lock_guard<std::mutex> l(mu);
        cv.notify_all();
      });
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return hang_until_.stop_requested(); });
      return util::Status(util::StatusCode::kCancelled, "cancelled");
    }
    return util::Status();
  }

 private:
  Log& log_;
  std::stop_token hang_until_;
};

class LoggingApiWriterClient final : public scheduler::apiwriter::ApiWriterClient {
 public:
  explicit LoggingApiWriterClient(Log& log) : log_(log) {}
  // The next status patch fails (transient): it waits out a backoff.
  void FailNextPatch() { fail_next_patch_ = true; }

  util::Status PatchPodStatus(const std::string&, const std::string& name, const nlohmann::json&) override {
    log_.Add("patch " + name);
    if (fail_next_patch_.exchange(false)) return util::Status(util::StatusCode::kUnavailable, "try again");
    return util::Status();
  }
  util::Status DeletePod(const std::string&, const std::string& name, const std::string&) override {
    log_.Add("delete " + name);
    return util::Status();
  }
  util::Status CreateEvent(const api::Event& event) override {
    log_.Add("event " + event.reason);
    return util::Status();
  }
  util::Status PatchEvent(const std::string&, const std::string& name, const nlohmann::json&) override {
    log_.Add("event patch " + name);
    return util::Status();
  }

 private:
  Log& log_;
  std::atomic<bool> fail_next_patch_{false};
};

// Logs "release" for the write that empties the holder, and keeps the times
// of the last call to acquire or renew (the release is not one) and of the
// first call that failed.
class LoggingLeaseClient final : public leaderelection::LeaseClient {
 public:
  LoggingLeaseClient(leaderelection::FakeLeaseClient& inner, Log& log, const util::Clock& clock)
      : inner_(inner), log_(log), clock_(clock) {}
  util::StatusOr<api::Lease> Get(const std::string& ns, const std::string& name) override {
    return Timed([&] { return inner_.Get(ns, name); });
  }
  util::StatusOr<api::Lease> Create(const api::Lease& lease) override {
    return Timed([&] { return inner_.Create(lease); });
  }
  util::StatusOr<api::Lease> Update(const api::Lease& lease) override {
    if (lease.spec.holder_identity.value_or("").empty()) {
      log_.Add("release");
      return inner_.Update(lease);
    }
    return Timed([&] { return inner_.Update(lease); });
  }
  util::TimePoint LastCallAt() const { return last_call_at_; }
  // The failing round of renewals starts with it (util::TimePoint{} if none).
  util::TimePoint FirstFailureAt() const { return first_failure_at_; }

 private:
  // Reads the clock before the call: once the call is counted, the test
  // may step the clock.
  template <class Call>
  util::StatusOr<api::Lease> Timed(Call call) {
    const util::TimePoint now = clock_.Now();
    last_call_at_ = now;
    util::StatusOr<api::Lease> result = call();
    util::TimePoint none{};
    if (!result.ok()) first_failure_at_.compare_exchange_strong(none, now);
    return result;
  }

  leaderelection::FakeLeaseClient& inner_;
  Log& log_;
  const util::Clock& clock_;
  std::atomic<util::TimePoint> last_call_at_{};
  std::atomic<util::TimePoint> first_failure_at_{};
};

// Holds binding cycles in PreBind until the scheduler cancels binding waits
// (Scheduler::Stop), then lets them go on to Bind, like a PreBind whose
// wait had just ended.
class HoldingPreBind final : public scheduler::framework::PreBindPlugin,
                             public scheduler::framework::BindingWaitCanceller {
 public:
  std::string_view Name() const override { return kHoldingPreBind; }
  scheduler::framework::Status PreBind(scheduler::framework::CycleState&, const api::Pod&,
                                       std::string_view) override {
    std::unique_lock<std::mutex> l(mu_);
    ++held_;
    cv_.notify_all();
    cv_.wait(l, [&] { return released_; });
    return scheduler::framework::Status();
  }
  void CancelBindingWaits() override {
    std::lock_guard<std::mutex> l(mu_);
    released_ = true;
    cv_.notify_all();
  }
  bool WaitHeld(int n) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, seconds(10), [&] { return held_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int held_ = 0;
  bool released_ = false;
};

class LeaderWorkTest : public ::testing::Test {
 protected:
  static constexpr util::Duration kRenewDeadline = seconds(10);
  static constexpr util::Duration kRetryPeriod = seconds(2);

  LeaderWorkTest()
      : lease_(fake_lease_, log_, clock_),
        binder_(log_),
        writer_client_(log_),
        gated_binder_(binder_, gate_),
        gated_writer_client_(writer_client_, gate_),
        writer_(gated_writer_client_, clock_),
        registry_(st::FakeRegistry(behaviour_)) {
    (void)registry_.Register(kHoldingPreBind, [this](const config::PluginArgs&, scheduler::framework::Handle&)
                                                  -> util::StatusOr<std::shared_ptr<scheduler::framework::Plugin>> {
      return std::shared_ptr<scheduler::framework::Plugin>(pre_bind_);
    });
    config::KubeSchedulerConfiguration config = st::FakeConfig();
    config.profiles[0].plugins.pre_bind.enabled = {st::P(kHoldingPreBind)};
    scheduler::SchedulerOptions o;
    o.clock = &clock_;
    o.binding_client = &gated_binder_;
    o.api_writer = &writer_;
    o.listers = &listers_;
    o.seed = 42;
    // As the Server does: the end of the drain closes the gate.
    o.on_binding_drain_timeout = [this] { gate_.Close(); };
    auto s = scheduler::Scheduler::New(config, registry_, std::move(o));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    scheduler_ = std::move(s).value();
    work_ = std::make_unique<LeaderWork>(*scheduler_, &writer_, gate_, clock_);

    leaderelection::LeaderElectionConfig c;
    c.lease_duration = seconds(15);
    c.renew_deadline = kRenewDeadline;
    c.retry_period = kRetryPeriod;
    c.random = [] { return 0.0; };
    c.callbacks.on_started_leading = [this] {
      log_.Add("leading");
      work_->StartLeading();
    };
    c.callbacks.on_stopped_leading = [this] {
      stopped_leading_at_ = clock_.Now();
      log_.Add("stopped leading");
      // As the Server does: a Stop() request, else a loss.
      work_->StopLeading(stop_requested_.load(), clock_.Now() + seconds(3600));
    };
    auto e = leaderelection::LeaderElector::New(
        std::move(c), leaderelection::LeaseLock("kube-system", "ksched", "me", lease_), clock_);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    elector_ = std::move(e).value();
  }

  ~LeaderWorkTest() override {
    stop_requested_ = true;
    elector_->Stop();
    if (run_.valid()) run_.wait();
    scheduler_->Stop();
    writer_.Stop();
  }

  void StartLeading() {
    run_ = std::async(std::launch::async, [this] { return elector_->Run(); });
    ASSERT_TRUE(log_.WaitFor("leading"));
  }

  // A pod held in PreBind: its Bind comes once the scheduler stops.
  void HoldOneBindingCycle() {
    scheduler_->Cache().AddNode(st::Node("n1"));
    std::shared_ptr<const api::Pod> p = st::Pod("p");
    listers_.pods.Set(p);
    scheduler_->Queue().Add(p);
    ASSERT_TRUE(pre_bind_->WaitHeld(1));
  }

  util::FakeClock clock_;
  Log log_;
  leaderelection::FakeLeaseClient fake_lease_;
  LoggingLeaseClient lease_;
  util::WritesGate gate_;
  LoggingBindingClient binder_;
  LoggingApiWriterClient writer_client_;
  scheduler::GatedBindingClient gated_binder_;
  scheduler::GatedApiWriterClient gated_writer_client_;
  scheduler::apiwriter::ApiWriter writer_;
  st::Behaviour behaviour_;
  scheduler::framework::InMemorySharedListers listers_;
  std::shared_ptr<HoldingPreBind> pre_bind_ = std::make_shared<HoldingPreBind>();
  scheduler::framework::Registry registry_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::unique_ptr<LeaderWork> work_;
  std::unique_ptr<leaderelection::LeaderElector> elector_;
  std::atomic<bool> stop_requested_{false};
  util::TimePoint stopped_leading_at_{};
  std::future<leaderelection::LeaderElector::Result> run_;
};

TEST_F(LeaderWorkTest, NoWriteStartsOnceTheLeaseIsLost) {
  StartLeading();
  HoldOneBindingCycle();

  // t0: every renewal fails from now on. A renewal already under way may
  // still succeed, and this thread may step the clock once for it, so the
  // deadline counts from the first failed attempt.
  const util::TimePoint t0 = clock_.Now();
  fake_lease_.SetFailure(util::Status(util::StatusCode::kUnavailable, "API server unreachable"));
  while (run_.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) {
    ASSERT_LE(clock_.Now() - t0, kRenewDeadline + 3 * kRetryPeriod) << "the elector did not give up";
    int64_t calls = fake_lease_.Calls();
    clock_.Step(kRetryPeriod);
    // The next attempt, or the end of Run.
    for (int i = 0; i < 1000 && fake_lease_.Calls() == calls &&
                    run_.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready;
         ++i) {
    }
  }
  EXPECT_EQ(run_.get(), leaderelection::LeaderElector::Result::kLost);
  // The elector gives up right after its last failed attempt, renewDeadline
  // after the first. An attempt of a leader is an update and, when it
  // fails, a read: this thread steps the clock as soon as the update is
  // counted, so a loaded machine can let the read (and the callback) see
  // one step more.
  const util::TimePoint first_failure = lease_.FirstFailureAt();
  ASSERT_NE(first_failure, util::TimePoint{});
  EXPECT_LE(first_failure - t0, 2 * kRetryPeriod);
  EXPECT_LE(lease_.LastCallAt() - first_failure, kRenewDeadline + kRetryPeriod);
  EXPECT_LE(stopped_leading_at_ - first_failure, kRenewDeadline + kRetryPeriod);

  // What the API writer would still send (as the daemon's Stop does after
  // the elector) is refused too.
  writer_.UpdatePodStatus(*st::Pod("q"), Unschedulable());
  writer_.DeleteVictim(*st::Pod("victim"), "preempted");
  writer_.Stop();
  std::vector<std::string> entries = log_.Entries();
  EXPECT_EQ(WritesAfter(entries, "stopped leading"), std::vector<std::string>{})
      << "log: " << ::testing::PrintToString(entries);
  EXPECT_FALSE(gate_.IsOpen());
}

TEST_F(LeaderWorkTest, OnSigtermWorkFinishesThenTheLeaseIsReleasedAndNothingIsWrittenAfter) {
  StartLeading();
  // A status patch waiting out a backoff when SIGTERM comes.
  writer_client_.FailNextPatch();
  writer_.UpdatePodStatus(*st::Pod("q"), Unschedulable());
  ASSERT_TRUE(log_.WaitFor("patch q"));
  HoldOneBindingCycle();

  // SIGTERM: the daemon's Stop() stops the elector.
  stop_requested_ = true;
  elector_->Stop();
  EXPECT_EQ(run_.get(), leaderelection::LeaderElector::Result::kStopped);
  // Then the rest of the daemon's Stop(): the API writer's last flush.
  writer_.UpdatePodStatus(*st::Pod("late"), Unschedulable());
  writer_.Stop();

  std::vector<std::string> entries = log_.Entries();
  ASSERT_TRUE(std::find(entries.begin(), entries.end(), "release") != entries.end())
      << ::testing::PrintToString(entries);
  EXPECT_EQ(WritesAfter(entries, "release"), std::vector<std::string>{})
      << "log: " << ::testing::PrintToString(entries);
  // While the Lease was still held, the binding in flight finished and the
  // queued patch got its last attempt.
  std::vector<std::string> before(entries.begin(), std::find(entries.begin(), entries.end(), "release"));
  EXPECT_EQ(std::count(before.begin(), before.end(), "bind p"), 1);
  EXPECT_EQ(std::count(before.begin(), before.end(), "patch q"), 2);
  EXPECT_FALSE(gate_.IsOpen());
}

// SIGTERM while a Bind hangs on a server that never answers: the drain
// ends at binding_drain_timeout (30 s on the fake clock), the gate closes,
// which cancels the Bind in flight, and the Lease is released.
TEST_F(LeaderWorkTest, OnSigtermABindingThatOutlastsTheDrainIsCancelled) {
  StartLeading();
  binder_.HangUntil(gate_.StopToken());
  HoldOneBindingCycle();
  const util::TimePoint t0 = clock_.Now();
  stop_requested_ = true;
  elector_->Stop();
  ASSERT_TRUE(log_.WaitFor("bind p"));
  // Step the clock until the drain gives up (its deadline is fixed when the
  // wait begins, which this thread cannot observe: keep stepping).
  const auto limit = std::chrono::steady_clock::now() + seconds(30);
  while (run_.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready) {
    ASSERT_LT(std::chrono::steady_clock::now(), limit) << "the drain never ended";
    clock_.Step(seconds(5));
  }
  EXPECT_EQ(run_.get(), leaderelection::LeaderElector::Result::kStopped);
  EXPECT_GE(clock_.Now() - t0, seconds(30));
  EXPECT_FALSE(gate_.IsOpen());
  std::vector<std::string> entries = log_.Entries();
  EXPECT_TRUE(std::find(entries.begin(), entries.end(), "release") != entries.end())
      << ::testing::PrintToString(entries);
}

}  // namespace
}  // namespace ksched::app
