// Queue<T>: client-go's basic work queue (util/workqueue queue.go).
//
// A FIFO of keys that need processing, with the guarantees controllers rely
// on:
//  * De-duplication: an item added while it already waits is not queued a
//    second time.
//  * One worker per item: an item added while a worker processes it is only
//    marked dirty; Done re-queues it. So an item is never processed by two
//    workers at once, and an Add is never lost.
//  * Any number of producers (Add) and consumers (Get ... Done).
//  * ShutDown stops accepting adds; items already queued are still handed out
//    by Get, which reports shutdown only once the queue is empty.
//    ShutDownWithDrain additionally blocks until every item handed out has
//    been marked Done.
//
// T must be copyable, equality-comparable and hashable with Hash (keys such
// as std::string). Every Get that returns an item must be followed by exactly
// one Done for it.
//
// Metrics: when the queue has a name and a real MetricsProvider, Add / Get /
// Done update the client-go workqueue metrics, and a background thread
// refreshes the unfinished-work gauges every `unfinished_work_update_period`
// of the injected clock until shutdown.
//
// Thread-safety: every method is thread-safe. One mutex guards all state; no
// method calls out (except to metric objects) while holding it.
// Complexity: Add, Get, Done are O(1) expected; Len is O(1).
// Lifetime: the clock and the metrics provider must outlive the queue; the
// destructor shuts the queue down and joins its thread, and must not run
// while another thread is still inside a method.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <utility>

#include "pkg/util/clock.h"
#include "pkg/workqueue/metrics.h"
#include "pkg/workqueue/queue_metrics.h"
#include "pkg/util/thread_name.h"

namespace ksched::workqueue {

struct QueueConfig {
  // The `name` label of the queue's metrics; an unnamed queue emits none.
  std::string name;
  // Not owned; nullptr means the no-op provider.
  MetricsProvider* metrics_provider = nullptr;
  // How often the unfinished-work gauges are refreshed (client-go: 500 ms).
  util::Duration unfinished_work_update_period = std::chrono::milliseconds(500);
};

template <class T, class Hash = std::hash<T>>
class Queue {
 public:
  explicit Queue(const util::Clock& clock, QueueConfig config = {})
      : clock_(clock), config_(std::move(config)) {
    if (MetricsEnabled(config_.name, config_.metrics_provider)) {
      metrics_ =
          std::make_unique<QueueMetrics<T, Hash>>(config_.name, *config_.metrics_provider, clock_);
      // The first deadline is fixed here, not when the thread first runs, so
      // a clock stepped right after construction still triggers an update.
      util::TimePoint first = clock_.Now() + config_.unfinished_work_update_period;
      unfinished_work_thread_ = std::thread([this, first] {
        util::NameThisThread("queue-metrics");
        UnfinishedWorkLoop(first);
      });
    }
  }

  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  virtual ~Queue() {
    Queue::ShutDown();
    if (unfinished_work_thread_.joinable()) unfinished_work_thread_.join();
  }

  // Marks `item` as needing processing. Ignored after shutdown.
  void Add(const T& item) {
    std::lock_guard<std::mutex> l(mu_);
    if (shutting_down_) return;
    if (dirty_.count(item) != 0) return;  // already waiting, or already due for a re-run
    if (metrics_) metrics_->Add(item);
    dirty_.insert(item);
    // A worker holds it: Done will queue it again.
    if (processing_.count(item) != 0) return;
    queue_.push_back(item);
    cv_.notify_one();
  }

  // Number of items waiting to be handed out (not those being processed).
  // For information only: it may change as soon as it is read.
  size_t Len() const {
    std::lock_guard<std::mutex> l(mu_);
    return queue_.size();
  }

  // Blocks until an item is available and returns it, oldest first; the
  // caller must call Done(item) when finished with it. Returns nullopt once
  // the queue is shut down and empty: the worker should then exit.
  std::optional<T> Get() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return !queue_.empty() || shutting_down_; });
    if (queue_.empty()) return std::nullopt;
    T item = std::move(queue_.front());
    queue_.pop_front();
    if (metrics_) metrics_->Get(item);
    processing_.insert(item);
    dirty_.erase(item);
    return item;
  }

  // Ends the processing of `item`. If it was added again meanwhile it goes
  // back to the end of the queue.
  void Done(const T& item) {
    std::lock_guard<std::mutex> l(mu_);
    if (metrics_) metrics_->Done(item);
    processing_.erase(item);
    if (dirty_.count(item) != 0) {
      // Queued even after ShutDown: the add happened before it, and losing it
      // would break the "never lost" promise for work still being drained.
      queue_.push_back(item);
      cv_.notify_one();
    } else if (processing_.empty()) {
      drained_cv_.notify_all();
    }
  }

  // Stops accepting adds and wakes every worker; Get keeps handing out the
  // items already queued. Cancels the wait of a pending ShutDownWithDrain.
  // Idempotent.
  virtual void ShutDown() {
    std::lock_guard<std::mutex> l(mu_);
    drain_ = false;
    shutting_down_ = true;
    cv_.notify_all();
    drained_cv_.notify_all();
    loop_cv_.notify_all();
  }

  // Like ShutDown, then blocks until every item handed out by Get has been
  // marked Done (or until a concurrent ShutDown cancels the drain). Workers
  // must keep calling Done, or this blocks forever.
  virtual void ShutDownWithDrain() {
    std::unique_lock<std::mutex> l(mu_);
    drain_ = true;
    shutting_down_ = true;
    cv_.notify_all();
    loop_cv_.notify_all();
    drained_cv_.wait(l, [this] { return processing_.empty() || !drain_; });
  }

  bool ShuttingDown() const {
    std::lock_guard<std::mutex> l(mu_);
    return shutting_down_;
  }

  // Refreshes workqueue_unfinished_work_seconds and
  // workqueue_longest_running_processor_seconds. The background loop calls
  // it every update period; exposed so tests (and a final scrape) need not
  // wait for the loop. No-op without metrics.
  void UpdateUnfinishedWork() {
    std::lock_guard<std::mutex> l(mu_);
    if (metrics_) metrics_->UpdateUnfinishedWork();
  }

  const std::string& name() const { return config_.name; }
  const util::Clock& clock() const { return clock_; }

 protected:
  const QueueConfig& config() const { return config_; }

 private:
  void UnfinishedWorkLoop(util::TimePoint next) {
    std::unique_lock<std::mutex> l(mu_);
    const util::Duration period = config_.unfinished_work_update_period;
    while (!shutting_down_) {
      if (!clock_.WaitUntil(l, loop_cv_, next)) continue;  // woken early or spuriously
      if (shutting_down_) break;
      // Read before updating: a test stepping the clock once it sees the
      // update must not be mistaken for a jump past the next period.
      const util::TimePoint now = clock_.Now();
      metrics_->UpdateUnfinishedWork();
      next += period;
      // A clock that jumped several periods gets one update, not a burst.
      if (next <= now) next = now + period;
    }
  }

  const util::Clock& clock_;
  const QueueConfig config_;

  mutable std::mutex mu_;
  std::condition_variable cv_;          // an item was queued, or shutdown began
  std::condition_variable drained_cv_;  // processing_ emptied, or the drain was cancelled
  std::condition_variable loop_cv_;     // wakes the unfinished-work loop at shutdown
  // Invariants: every element of queue_ is in dirty_ and not in processing_;
  // an item in both dirty_ and processing_ is queued again by Done.
  std::deque<T> queue_;
  std::unordered_set<T, Hash> dirty_;
  std::unordered_set<T, Hash> processing_;
  bool shutting_down_ = false;
  bool drain_ = false;
  std::unique_ptr<QueueMetrics<T, Hash>> metrics_;  // null when metrics are off
  std::thread unfinished_work_thread_;
};

}  // namespace ksched::workqueue
