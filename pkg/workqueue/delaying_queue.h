// DelayingQueue<T>: a Queue<T> whose items can be added after a delay
// (client-go util/workqueue delaying_queue.go).
//
// AddAfter(item, d) with d <= 0 is Add(item). Otherwise the item waits in a
// heap ordered by ready time (WaitingHeap); adding an item that already
// waits keeps the earlier of the two ready times. One waiting-loop thread
// moves ready items into the queue: it sleeps on the injected Clock until the
// earliest ready time, a newly added earlier item, or at most kMaxWait (a
// heartbeat that bounds the damage of any missed wake-up), and stops at
// shutdown. Items still waiting at shutdown are dropped, as in client-go.
//
// Metrics: AddAfter increments workqueue_retries_total (when metrics are on).
//
// Thread-safety: every method is thread-safe. The waiting heap has its own
// mutex; it is never held while the base queue's mutex is taken, so the two
// never nest.
// Complexity: AddAfter O(log w) for w waiting items.
// Lifetime: as Queue; the destructor stops and joins the waiting loop.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "pkg/util/clock.h"
#include "pkg/workqueue/metrics.h"
#include "pkg/workqueue/queue.h"
#include "pkg/workqueue/waiting_heap.h"
#include "pkg/util/thread_name.h"

namespace ksched::workqueue {

template <class T, class Hash = std::hash<T>>
class DelayingQueue : public Queue<T, Hash> {
 public:
  // Longest the waiting loop sleeps without re-checking the heap.
  static constexpr util::Duration kMaxWait = std::chrono::seconds(10);

  explicit DelayingQueue(const util::Clock& clock, QueueConfig config = {})
      : Queue<T, Hash>(clock, std::move(config)) {
    if (MetricsEnabled(this->name(), this->config().metrics_provider)) {
      retries_ = this->config().metrics_provider->NewRetriesMetric(this->name());
    }
    waiting_thread_ = std::thread([this] {
      util::NameThisThread("delaying-queue");
      WaitingLoop();
    });
  }

  ~DelayingQueue() override { StopWaiting(); }

  // Adds `item` once `delay` has passed on the clock. Ignored after shutdown.
  void AddAfter(const T& item, util::Duration delay) {
    if (this->ShuttingDown()) return;
    if (retries_) retries_->Inc();
    if (delay <= util::Duration::zero()) {
      this->Add(item);
      return;
    }
    const util::TimePoint now = this->clock().Now();
    // Saturate: a limiter capped at Duration::max() must not overflow.
    const util::TimePoint ready_at =
        delay < util::TimePoint::max() - now ? now + delay : util::TimePoint::max();
    std::lock_guard<std::mutex> l(wait_mu_);
    if (stop_) return;
    bool changed = waiting_.Insert(item, ready_at);
    // Only a new head changes when the loop must wake.
    if (changed && waiting_.Top().ready_at == ready_at) wait_cv_.notify_one();
  }

  // Stops the waiting loop (dropping waiting items) and shuts the queue down.
  void ShutDown() override {
    StopWaiting();
    Queue<T, Hash>::ShutDown();
  }

  // Stops the waiting loop (dropping waiting items), then drains the queue.
  void ShutDownWithDrain() override {
    StopWaiting();
    Queue<T, Hash>::ShutDownWithDrain();
  }

  // Number of items waiting for their delay to pass.
  size_t WaitingLen() const {
    std::lock_guard<std::mutex> l(wait_mu_);
    return waiting_.size();
  }

 private:
  void StopWaiting() {
    {
      std::lock_guard<std::mutex> l(wait_mu_);
      stop_ = true;
      waiting_.Clear();
      wait_cv_.notify_all();
    }
    // Once joined, nothing touches the heap but AddAfter, which sees stop_.
    std::lock_guard<std::mutex> join_lock(join_mu_);
    if (waiting_thread_.joinable()) waiting_thread_.join();
  }

  void WaitingLoop() {
    std::vector<T> ready;
    std::unique_lock<std::mutex> l(wait_mu_);
    while (!stop_) {
      util::TimePoint now = this->clock().Now();
      while (!waiting_.empty() && waiting_.Top().ready_at <= now) {
        ready.push_back(std::move(waiting_.Pop().item));
      }
      if (!ready.empty()) {
        // Add takes the queue's mutex: release ours first so they never nest.
        l.unlock();
        for (const T& item : ready) this->Add(item);
        ready.clear();
        l.lock();
        continue;
      }
      util::TimePoint deadline = now + kMaxWait;
      if (!waiting_.empty()) deadline = std::min(deadline, waiting_.Top().ready_at);
      this->clock().WaitUntil(l, wait_cv_, deadline);
    }
  }

  std::unique_ptr<CounterMetric> retries_;  // null when metrics are off

  mutable std::mutex wait_mu_;
  std::condition_variable wait_cv_;  // a new earliest item, or stop
  WaitingHeap<T, Hash> waiting_;
  bool stop_ = false;

  std::mutex join_mu_;  // serialises joining between ShutDown and the destructor
  std::thread waiting_thread_;
};

}  // namespace ksched::workqueue
