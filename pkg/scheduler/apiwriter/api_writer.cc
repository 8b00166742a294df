#include "pkg/scheduler/apiwriter/api_writer.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "pkg/api/codec.h"
#include "pkg/log/log.h"
#include "pkg/workqueue/default_rate_limiters.h"
#include "pkg/util/thread_name.h"
#include "pkg/util/wakeup_policy.h"

namespace ksched::scheduler::apiwriter {

namespace {

constexpr char kPodPrefix[] = "pod/";
constexpr char kEventPrefix[] = "event/";
constexpr char kVictimPrefix[] = "victim/";
constexpr char kDisruptionTarget[] = "DisruptionTarget";
constexpr char kReasonPreemptionByScheduler[] = "PreemptionByScheduler";

bool HasPrefix(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string PodKey(const std::string& ns, const std::string& name) {
  return std::string(kPodPrefix) + ns + "/" + name;
}

std::string VictimKey(const std::string& ns, const std::string& name) {
  return std::string(kVictimPrefix) + ns + "/" + name;
}

std::string EventKey(uint64_t id) { return std::string(kEventPrefix) + std::to_string(id); }

// Errors worth another attempt: the same request may succeed later.
bool Retryable(const util::Status& s) {
  switch (s.code()) {
    case util::StatusCode::kConflict:
    case util::StatusCode::kUnavailable:
    case util::StatusCode::kDeadlineExceeded:
    case util::StatusCode::kInternal:
      return true;
    default:
      return false;
  }
}

// The daemon cancels the writer's calls at shutdown, and the writes gate
// refuses them with kCancelled once closed.
bool Cancelled(const util::Status& s) { return s.code() == util::StatusCode::kCancelled; }

std::string LocalHostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

std::shared_ptr<workqueue::RateLimiter<std::string>> LimiterOrDefault(
    std::shared_ptr<workqueue::RateLimiter<std::string>> limiter, const util::Clock& clock) {
  if (limiter) return limiter;
  return workqueue::DefaultControllerRateLimiter<std::string>(clock);
}

nlohmann::json SeriesPatch(const api::EventSeries& series) {
  nlohmann::json s = {{"count", series.count}};
  if (series.last_observed_time)
    s["lastObservedTime"] = api::FormatMicroTime(*series.last_observed_time);
  return {{"series", s}};
}

}  // namespace

ApiWriter::ApiWriter(ApiWriterClient& client, const util::Clock& clock, ApiWriterOptions options)
    : client_(client),
      clock_(clock),
      options_(std::move(options)),
      hostname_(options_.hostname.empty() ? LocalHostname() : options_.hostname),
      queue_(clock, LimiterOrDefault(options_.rate_limiter, clock),
             workqueue::QueueConfig{.name = options_.queue_name,
                                    .metrics_provider = options_.metrics_provider}),
      events_(options_.series_finish_after) {
  // Deadlines are fixed before the thread runs, so a clock stepped right
  // after construction is measured from construction.
  util::TimePoint now = clock_.Now();
  maintenance_thread_ = std::thread([this, now] {
    util::NameThisThread("api-write-mnt");
    MaintenanceLoop(now + options_.series_finish_after, now + options_.series_refresh_period);
  });
  for (int i = 0; i < std::max(1, options_.workers); ++i) {
    workers_.emplace_back([this] {
      util::NameThisThread("api-write");
      util::WaitForCpuWhenWoken();
      WorkerLoop();
    });
  }
}

ApiWriter::~ApiWriter() { Stop(); }

void ApiWriter::UpdatePodStatus(const api::Pod& pod, const PodStatusUpdate& update) {
  if (update.Empty()) return;
  const std::string& ns = pod.metadata.namespace_;
  const std::string& name = pod.metadata.name;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) return;
    PodEntry& e = pods_[ns + "/" + name];
    if (e.incarnation == 0 || e.uid != pod.metadata.uid) {
      // A new pod, or a new incarnation under the same name: start afresh.
      e = PodEntry{};
      e.ns = ns;
      e.name = name;
      e.uid = pod.metadata.uid;
      e.incarnation = next_pod_incarnation_++;
    }
    e.observed = PodSchedulingStatus::FromPod(pod.status);
    if (e.pending) {
      e.pending->MergeFrom(update);
    } else {
      e.pending = update;
    }
  }
  queue_.Add(PodKey(ns, name));
}

void ApiWriter::DeleteVictim(const api::Pod& victim, const std::string& message, VictimDone done) {
  const std::string& ns = victim.metadata.namespace_;
  const std::string& name = victim.metadata.name;
  bool has_condition = false;
  for (const api::PodCondition& c : victim.status.conditions) {
    if (c.type == kDisruptionTarget && c.status == "True" && c.reason == kReasonPreemptionByScheduler &&
        c.message == message) {
      has_condition = true;
    }
  }
  std::vector<VictimDone> superseded;
  {
    std::unique_lock<std::mutex> l(mu_);
    if (stopping_) {
      l.unlock();
      if (done) done(util::Status(util::StatusCode::kCancelled, "the API writer is stopping"));
      return;
    }
    VictimEntry& e = victims_[ns + "/" + name];
    if (e.uid != victim.metadata.uid) {
      // A pod of that name with another uid: the one queued before is gone.
      superseded = std::move(e.done);
      e = VictimEntry{ns, name, victim.metadata.uid, message, has_condition};
    }
    if (done) {
      e.done.push_back(std::move(done));
    } else {
      e.retry = true;
    }
  }
  for (VictimDone& d : superseded) d(util::Status::Ok());
  queue_.Add(VictimKey(ns, name));
}

void ApiWriter::ForgetPod(const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  pods_.erase(ns + "/" + name);
}

void ApiWriter::SettlePod(const std::string& ns, const std::string& name) {
  const std::string key = ns + "/" + name;
  std::unique_lock<std::mutex> l(mu_);
  pods_.erase(key);
  ++settling_;
  patch_done_cv_.wait(l, [&] { return patching_.count(key) == 0; });
  --settling_;
}

std::string ApiWriter::NextEventNameLocked(const std::string& regarding_name, api::Time now) {
  // client-go names Events "<object>.<hex nanoseconds>"; bumping past the
  // last name used keeps them unique even when the clock stands still.
  auto ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count());
  last_event_name_ns_ = std::max(ns, last_event_name_ns_ + 1);
  char hex[16];  // lower-case, as Go's %x
  const auto hex_len = static_cast<size_t>(std::to_chars(hex, hex + sizeof(hex), last_event_name_ns_, 16).ptr - hex);
  std::string name;
  name.reserve(regarding_name.size() + 1 + hex_len);
  name.append(regarding_name).append(1, '.').append(hex, hex_len);
  return name;
}

void ApiWriter::RecordEvent(const EventRecord& record) {
  EventAggregator::Recorded recorded;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) return;
    api::Time wall = clock_.WallNow();
    api::Event ev;
    ev.metadata.namespace_ =
        record.regarding.namespace_.empty() ? "default" : record.regarding.namespace_;
    ev.metadata.name = NextEventNameLocked(record.regarding.name, wall);
    ev.event_time = wall;
    ev.reporting_controller = record.reporting_controller;
    ev.reporting_instance = record.reporting_controller + "-" + hostname_;
    ev.action = record.action;
    ev.reason = record.reason;
    ev.regarding = record.regarding;
    ev.related = record.related;
    ev.note = record.note;
    ev.type = record.type;
    recorded = events_.Record(ev, clock_.Now());
  }
  if (recorded.write_now) queue_.Add(EventKey(recorded.id));
}

size_t ApiWriter::NumCachedEvents() const {
  std::lock_guard<std::mutex> l(mu_);
  return events_.size();
}

void ApiWriter::WorkerLoop() {
  while (std::optional<std::string> key = queue_.Get()) {
    if (HasPrefix(*key, kPodPrefix)) {
      ProcessPod(*key);
    } else if (HasPrefix(*key, kVictimPrefix)) {
      ProcessVictim(*key);
    } else {
      ProcessEvent(*key);
    }
    queue_.Done(*key);
  }
}

void ApiWriter::ProcessPod(const std::string& key) {
  const std::string pod_key = key.substr(sizeof(kPodPrefix) - 1);
  std::unique_lock<std::mutex> l(mu_);
  auto it = pods_.find(pod_key);
  if (it == pods_.end() || !it->second.pending) {
    // Forgotten, or already written by an earlier pass over this key.
    l.unlock();
    queue_.Forget(key);
    return;
  }
  PodEntry& e = it->second;
  const PodStatusUpdate update = *e.pending;
  e.pending.reset();
  const PodSchedulingStatus base = e.written ? *e.written : e.observed;
  const api::Time now = clock_.WallNow();
  std::optional<nlohmann::json> patch = PodStatusPatch(base, update, now);
  if (!patch) {
    l.unlock();
    queue_.Forget(key);
    return;
  }
  const std::string ns = e.ns;
  const std::string name = e.name;
  const uint64_t incarnation = e.incarnation;
  // Begun after Stop: the one attempt Stop gives, so no retry.
  const bool last_attempt = stopping_;
  patching_.insert(pod_key);
  l.unlock();

  util::Status status = client_.PatchPodStatus(ns, name, *patch);

  l.lock();
  patching_.erase(pod_key);
  patch_done_cv_.notify_all();
  it = pods_.find(pod_key);
  const bool same_pod = it != pods_.end() && it->second.incarnation == incarnation;
  if (status.ok()) {
    if (same_pod) it->second.written = ApplyUpdate(base, update, now);
    l.unlock();
    queue_.Forget(key);
    KLOG_V(4, "Patched status of pod {}/{}", ns, name);
    return;
  }
  if (status.code() == util::StatusCode::kNotFound) {
    if (same_pod) pods_.erase(it);
    l.unlock();
    queue_.Forget(key);
    KLOG_V(2, "Pod {}/{} is gone; dropping its status update", ns, name);
    return;
  }
  if (last_attempt || Cancelled(status)) {
    // Stop gives one attempt and no retry; a cancelled call means the
    // daemon is shutting down (or closed its writes): counted, logged once
    // at Stop.
    if (same_pod) ++dropped_.pod_status_patches;
    l.unlock();
    queue_.Forget(key);
    return;
  }
  if (Retryable(status) && same_pod) {
    // Newer changes queued meanwhile win over the ones that failed.
    PodStatusUpdate retry = update;
    if (it->second.pending) retry.MergeFrom(*it->second.pending);
    it->second.pending = retry;
    const bool stop_began = stopping_;
    l.unlock();
    if (stop_began) {
      // Stop began during the call: the write gets Stop's one more attempt
      // now, as a write waiting out a backoff does in Stop's drain.
      ProcessPod(key);
      return;
    }
    queue_.AddRateLimited(key);
    KLOG_V(2, "Retrying status update of pod {}/{} after error: {}", ns, name, status.ToString());
    return;
  }
  l.unlock();
  queue_.Forget(key);
  if (same_pod) {
    spdlog::warn("Dropping status update of pod {}/{}: {}", ns, name, status.ToString());
  }
}

void ApiWriter::ProcessVictim(const std::string& key) {
  const std::string pod_key = key.substr(sizeof(kVictimPrefix) - 1);
  std::unique_lock<std::mutex> l(mu_);
  auto it = victims_.find(pod_key);
  if (it == victims_.end()) {
    l.unlock();
    queue_.Forget(key);
    return;
  }
  const std::string ns = it->second.ns;
  const std::string name = it->second.name;
  const std::string uid = it->second.uid;
  const std::string message = it->second.message;
  const bool condition_written = it->second.condition_written;
  const bool retry = it->second.retry;
  l.unlock();

  // Ends the eviction (done) or records the condition as written; the
  // completions run after the mutex is released.
  auto finish = [&](bool done, const util::Status& result) {
    std::vector<VictimDone> callbacks;
    {
      std::lock_guard<std::mutex> g(mu_);
      auto cur = victims_.find(pod_key);
      if (cur != victims_.end() && cur->second.uid == uid) {
        if (done) {
          callbacks = std::move(cur->second.done);
          victims_.erase(cur);
        } else {
          cur->second.condition_written = true;
        }
      }
    }
    if (!done) return;
    queue_.Forget(key);
    for (VictimDone& d : callbacks) d(result);
  };
  // A transient failure: retried when some caller asked for retries, else
  // the end of the eviction.
  auto failed_transiently = [&](const util::Status& status, std::string_view step) {
    if (Stopping() || Cancelled(status)) {
      CountDropped(&Dropped::victim_deletions);
      finish(true, status);
      return;
    }
    if (retry) {
      queue_.AddRateLimited(key);
      KLOG_V(2, "Retrying {} of victim {}/{} after error: {}", step, ns, name, status.ToString());
      return;
    }
    spdlog::error("{} of preemption victim {}/{} failed: {}", step, ns, name, status.ToString());
    finish(true, status);
  };
  util::Status status;
  if (!condition_written) {
    nlohmann::json cond = {{"type", kDisruptionTarget},
                           {"status", "True"},
                           {"reason", kReasonPreemptionByScheduler},
                           {"message", message},
                           {"lastTransitionTime", api::FormatTime(clock_.WallNow())}};
    status = client_.PatchPodStatus(ns, name, {{"status", {{"conditions", nlohmann::json::array({cond})}}}});
    if (status.code() == util::StatusCode::kNotFound) {
      KLOG_V(2, "Victim pod {}/{} is already gone", ns, name);
      finish(true, util::Status::Ok());
      return;
    }
    if (!status.ok()) {
      if (Retryable(status)) {
        failed_transiently(status, "DisruptionTarget condition");
        return;
      }
      if (Stopping() || Cancelled(status)) {
        CountDropped(&Dropped::victim_deletions);
      } else {
        spdlog::error("Could not add DisruptionTarget condition due to preemption to pod {}/{}: {}", ns, name,
                      status.ToString());
      }
      finish(true, status);
      return;
    }
    finish(false, status);
  }
  status = client_.DeletePod(ns, name, uid);
  // Conflict: the uid precondition failed, the victim is already gone.
  if (status.ok() || status.code() == util::StatusCode::kNotFound ||
      status.code() == util::StatusCode::kConflict) {
    KLOG_V(2, "Deleted preemption victim {}/{}{}", ns, name, status.ok() ? "" : " (already gone)");
    finish(true, util::Status::Ok());
    return;
  }
  if (Retryable(status)) {
    failed_transiently(status, "deletion");
    return;
  }
  if (Stopping() || Cancelled(status)) {
    CountDropped(&Dropped::victim_deletions);
  } else {
    spdlog::error("Could not delete preemption victim {}/{}: {}", ns, name, status.ToString());
  }
  finish(true, status);
}

void ApiWriter::ProcessEvent(const std::string& key) {
  const uint64_t id = std::stoull(key.substr(sizeof(kEventPrefix) - 1));
  std::optional<EventAggregator::Write> write;
  {
    std::lock_guard<std::mutex> l(mu_);
    write = events_.NextWrite(id);
  }
  if (!write) {
    queue_.Forget(key);
    return;
  }
  const api::Event& ev = write->event;
  util::Status status;
  if (!write->create && ev.series) {
    status = client_.PatchEvent(ev.metadata.namespace_, ev.metadata.name, SeriesPatch(*ev.series));
    // The server lost the Event (expired, deleted): create it again.
    if (status.code() == util::StatusCode::kNotFound) write->create = true;
  }
  if (write->create) {
    api::Event to_create = ev;
    to_create.metadata.resource_version.clear();
    status = client_.CreateEvent(to_create);
    // Names are unique per entry, so an existing one is our own earlier
    // attempt whose response was lost.
    if (status.code() == util::StatusCode::kAlreadyExists) status = util::Status::Ok();
  }

  std::unique_lock<std::mutex> l(mu_);
  if (status.ok()) {
    events_.Written(id, *write);
    l.unlock();
    queue_.Forget(key);
    return;
  }
  if (stopping_ || Cancelled(status)) {
    // As for pods (ProcessPod).
    events_.Drop(id);
    ++dropped_.events;
    l.unlock();
    queue_.Forget(key);
    return;
  }
  if (Retryable(status) && queue_.NumRequeues(key) + 1 < options_.max_event_attempts) {
    l.unlock();
    queue_.AddRateLimited(key);
    KLOG_V(2, "Retrying event {}/{} after error: {}", ev.metadata.namespace_, ev.metadata.name,
           status.ToString());
    return;
  }
  events_.Drop(id);
  l.unlock();
  queue_.Forget(key);
  spdlog::warn("Dropping event {}/{} ({} {}): {}", ev.metadata.namespace_, ev.metadata.name,
               ev.reason, ev.regarding.name, status.ToString());
}

bool ApiWriter::Stopping() const {
  std::lock_guard<std::mutex> l(mu_);
  return stopping_;
}

void ApiWriter::CountDropped(size_t Dropped::*kind) {
  std::lock_guard<std::mutex> l(mu_);
  ++(dropped_.*kind);
}

ApiWriter::Dropped ApiWriter::DroppedAtStop() const {
  std::lock_guard<std::mutex> l(mu_);
  return dropped_;
}

void ApiWriter::MaintenanceLoop(util::TimePoint next_finish, util::TimePoint next_refresh) {
  std::unique_lock<std::mutex> l(mu_);
  while (!stopping_) {
    if (!clock_.WaitUntil(l, maintenance_cv_, std::min(next_finish, next_refresh))) continue;
    if (stopping_) break;
    const util::TimePoint now = clock_.Now();
    std::vector<uint64_t> ids;
    if (now >= next_finish) {
      ids = events_.FinishSeries(now);
      next_finish = now + options_.series_finish_after;
    }
    if (now >= next_refresh) {
      std::vector<uint64_t> refreshed = events_.RefreshSeries();
      ids.insert(ids.end(), refreshed.begin(), refreshed.end());
      next_refresh = now + options_.series_refresh_period;
    }
    if (ids.empty()) continue;
    l.unlock();
    for (uint64_t id : ids) queue_.Add(EventKey(id));
    l.lock();
  }
}

void ApiWriter::Stop() {
  std::lock_guard<std::mutex> stop_lock(stop_mu_);
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    maintenance_cv_.notify_all();
  }
  if (maintenance_thread_.joinable()) maintenance_thread_.join();
  if (workers_.empty()) return;  // stopped before

  // One more attempt for everything not yet written, including writes
  // waiting out a backoff (ShutDown drops those from the delay heap).
  std::vector<std::string> keys;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [pod_key, e] : pods_) {
      if (e.pending) keys.push_back(PodKey(e.ns, e.name));
    }
    for (uint64_t id : events_.Unwritten()) keys.push_back(EventKey(id));
    for (const auto& [pod_key, e] : victims_) keys.push_back(VictimKey(e.ns, e.name));
  }
  for (const std::string& key : keys) queue_.Add(key);
  queue_.ShutDownWithDrain();
  for (std::thread& t : workers_) t.join();
  workers_.clear();

  // Evictions still waiting out a backoff end here: their waiters must
  // hear of it.
  std::vector<VictimDone> unfinished;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto& [pod_key, e] : victims_) {
      for (VictimDone& d : e.done) unfinished.push_back(std::move(d));
    }
    dropped_.victim_deletions += victims_.size();
    victims_.clear();
  }
  for (VictimDone& d : unfinished) d(util::Status(util::StatusCode::kCancelled, "the API writer stopped"));

  const Dropped dropped = DroppedAtStop();
  if (dropped.Total() > 0) {
    spdlog::warn("API writer stopped: dropped {} Events, {} pod status patches and {} preemption victim deletions "
                 "at shutdown (best effort: not written to the API server)",
                 dropped.events, dropped.pod_status_patches, dropped.victim_deletions);
  }
}

}  // namespace ksched::scheduler::apiwriter
