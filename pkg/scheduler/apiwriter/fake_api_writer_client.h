// FakeApiWriterClient: an in-memory ApiWriterClient for tests.
//
// It records every call (with the fake clock's time), keeps created Events
// by namespace/name so series patches land on them, can fail the next N
// calls of a kind with a chosen status, and can hold calls until released so
// a test can act while a write is in flight. WaitForCalls blocks until a
// number of calls has been made (with a generous real-time limit so a bug
// fails instead of hanging).
//
// Thread-safety: thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/scheduler/apiwriter/api_writer_client.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::apiwriter::testing {

class FakeApiWriterClient final : public ApiWriterClient {
 public:
  enum class Kind { kPatchPodStatus, kCreateEvent, kPatchEvent, kDeletePod };

  struct Call {
    Kind kind;
    std::string ns;
    std::string name;
    nlohmann::json patch;  // the patches
    api::Event event;      // CreateEvent
    util::Status result;
    util::TimePoint at;
    std::string uid;  // DeletePod's precondition
  };

  explicit FakeApiWriterClient(const util::Clock& clock) : clock_(clock) {}

  // The next `n` calls of `kind` fail with `status`.
  void FailNext(Kind kind, int n, util::Status status) {
    std::lock_guard<std::mutex> l(mu_);
    for (int i = 0; i < n; ++i) failures_[kind].push_back(status);
  }

  // While held, every call blocks (before taking effect) until Release.
  void Hold() {
    std::lock_guard<std::mutex> l(mu_);
    held_ = true;
  }
  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    held_ = false;
    cv_.notify_all();
  }
  // Blocks until `n` calls are parked by Hold.
  bool WaitForHeldCalls(int n) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::seconds(30), [&] { return parked_ >= n; });
  }

  bool WaitForCalls(size_t n) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::seconds(30), [&] { return calls_.size() >= n; });
  }

  std::vector<Call> Calls() {
    std::lock_guard<std::mutex> l(mu_);
    return calls_;
  }

  std::vector<Call> CallsOf(Kind kind) {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<Call> out;
    for (const Call& c : calls_) {
      if (c.kind == kind) out.push_back(c);
    }
    return out;
  }

  // Events the "server" holds, by "ns/name".
  std::map<std::string, api::Event> StoredEvents() {
    std::lock_guard<std::mutex> l(mu_);
    return events_;
  }

  // Simulates the server losing an Event (TTL expiry).
  void DeleteEvent(const std::string& ns, const std::string& name) {
    std::lock_guard<std::mutex> l(mu_);
    events_.erase(ns + "/" + name);
  }

  util::Status PatchPodStatus(const std::string& ns, const std::string& name,
                              const nlohmann::json& patch) override {
    std::unique_lock<std::mutex> l(mu_);
    WaitWhileHeld(l);
    util::Status result = NextResult(Kind::kPatchPodStatus);
    Record(Call{Kind::kPatchPodStatus, ns, name, patch, {}, result, clock_.Now()});
    return result;
  }

  util::Status DeletePod(const std::string& ns, const std::string& name, const std::string& uid) override {
    std::unique_lock<std::mutex> l(mu_);
    WaitWhileHeld(l);
    util::Status result = NextResult(Kind::kDeletePod);
    Record(Call{Kind::kDeletePod, ns, name, {}, {}, result, clock_.Now(), uid});
    return result;
  }

  util::Status CreateEvent(const api::Event& event) override {
    std::unique_lock<std::mutex> l(mu_);
    WaitWhileHeld(l);
    util::Status result = NextResult(Kind::kCreateEvent);
    std::string key = event.metadata.namespace_ + "/" + event.metadata.name;
    if (result.ok() && events_.count(key) != 0) {
      result = util::Status(util::StatusCode::kAlreadyExists, key);
    }
    Record(Call{Kind::kCreateEvent,
                event.metadata.namespace_,
                event.metadata.name,
                {},
                event,
                result,
                clock_.Now()});
    if (!result.ok()) return result;
    api::Event stored = event;
    stored.metadata.resource_version = std::to_string(++resource_version_);
    events_[key] = stored;
    return util::Status();
  }

  util::Status PatchEvent(const std::string& ns, const std::string& name,
                          const nlohmann::json& patch) override {
    std::unique_lock<std::mutex> l(mu_);
    WaitWhileHeld(l);
    util::Status result = NextResult(Kind::kPatchEvent);
    auto it = events_.find(ns + "/" + name);
    if (result.ok() && it == events_.end()) result = util::NotFound(ns + "/" + name);
    Record(Call{Kind::kPatchEvent, ns, name, patch, {}, result, clock_.Now()});
    if (result.ok() && patch.contains("series")) {
      api::EventSeries series;
      series.count = patch["series"].value("count", 0);
      it->second.series = series;
    }
    return result;
  }

 private:
  void WaitWhileHeld(std::unique_lock<std::mutex>& l) {
    if (!held_) return;
    ++parked_;
    cv_.notify_all();
    cv_.wait(l, [&] { return !held_; });
    --parked_;
  }

  util::Status NextResult(Kind kind) {
    auto& queue = failures_[kind];
    if (queue.empty()) return util::Status::Ok();
    util::Status s = queue.front();
    queue.pop_front();
    return s;
  }

  void Record(Call call) {
    calls_.push_back(std::move(call));
    cv_.notify_all();
  }

  const util::Clock& clock_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Call> calls_;
  std::map<Kind, std::deque<util::Status>> failures_;
  std::map<std::string, api::Event> events_;
  int64_t resource_version_ = 0;
  bool held_ = false;
  int parked_ = 0;
};

}  // namespace ksched::scheduler::apiwriter::testing
