// Parallelizer: a fixed pool of worker threads running parallel-for loops,
// as kube-scheduler's parallelize.Parallelizer does for Filter, Score and
// preemption dry runs.
//
// Thread-safety: ParallelFor may be called from any thread; concurrent calls
// are serialized (the pool runs one loop at a time).
// Hand-offs: a worker that finishes a loop spins for a short window (12 µs by
// default) before it sleeps, because the scheduling cycle issues
// its loops back to back (Filter, then Score): a spinning worker joins the
// next loop at once, where a sleeping one costs a futex wake-up and joins
// after the caller has done most of the work. A loop issued with
// AfterLoop::kSleep (a cycle's last) sends its workers to sleep at once. A caller wakes workers only
// when one is asleep. A ParallelFor issued from
// inside a work function runs inline on the calling worker, so nesting cannot
// deadlock.
// Ownership: the pool's threads live as long as the Parallelizer.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ksched::util {

// Cooperative early stop for one ParallelFor: a work function calls Cancel()
// (for example once enough feasible nodes were found) and pieces not yet
// started are skipped. Pieces already running finish normally.
class CancelFlag {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool Cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> cancelled_{false};
};

// kube-scheduler's chunk size: max(1, min(sqrt(n), n/parallelism + 1)).
int ChunkSizeFor(int pieces, int parallelism);

class Parallelizer {
 public:
  // `parallelism` >= 1 is the total number of threads working on a loop,
  // the caller included; parallelism - 1 threads are started.
  explicit Parallelizer(int parallelism, std::chrono::nanoseconds spin = std::chrono::microseconds(12));
  ~Parallelizer();

  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  int parallelism() const { return parallelism_; }

  // What the workers do once a loop ends: kSpin waits the spin window for
  // the next loop (the caller issues one shortly, e.g. Score after Filter);
  // kSleep sleeps at once (the caller's next loop is a scheduling cycle
  // away, and spinning would only take a core from other threads).
  enum class AfterLoop { kSpin, kSleep };

  // Runs work(i) for every i in [0, pieces) unless `cancel` is cancelled
  // first, and returns once every started piece has finished. Pieces are
  // handed out in chunks of `chunk_size` (0 means ChunkSizeFor). Complexity:
  // O(pieces / parallelism) wall time plus a constant hand-off cost.
  void ParallelFor(int pieces, const std::function<void(int)>& work, CancelFlag* cancel = nullptr,
                   int chunk_size = 0, AfterLoop after = AfterLoop::kSpin);

  // Wakes sleeping workers to spin (for the spin window) for the next loop.
  // A caller about to do some serial work before its next loop calls it
  // first, so the wake-up's latency passes during that work instead of at
  // the loop's start. Harmless if no loop follows: the workers sleep again.
  void WakeWorkers();

 private:
  struct Loop;
  void WorkerMain();
  // Spins up to spin_ for a loop newer than `seen` (or stop); false if none.
  bool SpinForWork(uint64_t seen) const;
  static void RunPieces(Loop& loop);
  // Wakes the workers asleep on work_cv_, if any (after the caller changed
  // what their wait predicate reads).
  void NotifySleepingWorkers();

  const int parallelism_;
  const std::chrono::nanoseconds spin_;
  std::vector<std::thread> workers_;

  std::mutex call_mu_;  // serializes ParallelFor callers

  // The hand-off is lock-free; mu_ and the condition variables serve only
  // threads that go to sleep (idle workers, a caller whose workers are slow).
  std::atomic<Loop*> loop_{nullptr};       // the loop in progress, if any
  std::atomic<uint64_t> generation_{0};    // bumped per loop so a worker joins each loop once
  std::atomic<AfterLoop> after_{AfterLoop::kSpin};  // the latest loop's AfterLoop
  std::atomic<uint64_t> wake_epoch_{0};    // bumped by WakeWorkers
  std::atomic<int> active_workers_{0};     // workers that may be inside loop_
  std::atomic<int> sleeping_workers_{0};   // workers waiting on work_cv_
  std::atomic<bool> caller_waiting_{false};  // the caller waits on done_cv_
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
};

}  // namespace ksched::util
