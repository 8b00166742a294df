// Parallelizer: a fixed pool of worker threads running parallel-for loops,
// as kube-scheduler's parallelize.Parallelizer does for Filter, Score and
// preemption dry runs.
//
// Thread-safety: ParallelFor may be called from any thread; concurrent calls
// are serialized (the pool runs one loop at a time). A ParallelFor issued
// from inside a work function runs inline on the calling worker, so nesting
// cannot deadlock.
// Hand-offs: a worker that finishes a loop spins for a short window (12 µs
// by default) before it sleeps, so that it joins a loop issued shortly after
// at once instead of after a futex wake-up (12 µs beat 30 µs, and 30 µs beat
// 100 µs: a longer spin takes the core from the API server and binder
// threads). When to wake workers early and when to send them to sleep at
// once is Parallelizer::Burst's contract, below.
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

  // Runs work(i) for every i in [0, pieces) unless `cancel` is cancelled
  // first, and returns once every started piece has finished. Pieces are
  // handed out in chunks of `chunk_size` (0 means ChunkSizeFor); each worker
  // takes consecutive indexes within a chunk. Afterwards the workers spin
  // for the next loop. Complexity: O(pieces / parallelism) wall time plus a
  // constant hand-off cost.
  void ParallelFor(int pieces, const std::function<void(int)>& work, CancelFlag* cancel = nullptr,
                   int chunk_size = 0) {
    Run(pieces, work, cancel, chunk_size, AfterLoop::kSpin);
  }

  class Burst;

 private:
  struct Loop;
  // What the workers do once a loop ends: spin the window for the next loop,
  // or sleep at once (only a Burst's last loop, see below).
  enum class AfterLoop { kSpin, kSleep };
  void Run(int pieces, const std::function<void(int)>& work, CancelFlag* cancel, int chunk_size, AfterLoop after);
  // Wakes sleeping workers to spin (for the spin window) for the next loop;
  // harmless if no loop follows: they sleep again.
  void WakeWorkers();
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

// Parallelizer::Burst: the hand-off contract of a run of loops separated by
// short serial work, such as one scheduling cycle (snapshot update and
// PreFilter, the Filter loop, PreScore, the Score loop). Creating a burst
// wakes the sleeping workers, so that they are spinning when its first loop
// comes: the wake-up's latency passes during the caller's serial work
// instead of at the loop's start (SchedulingBasic in process 8174 -> 9435
// pods/s, ParallelFor's futex wake 1.6 % -> 0.2 % of samples, alternated).
// Its LastParallelFor sends the workers to sleep as soon as that loop ends,
// because the next burst is a whole cycle away and a spinning worker would
// only take a core from other threads (end to end 2975 -> 3335 pods/s,
// alternated); the next burst wakes them again, so a loop never finds its
// workers asleep for want of a wake-up. A burst that ends without
// LastParallelFor (a cycle that stops before Score) leaves the workers
// spinning their window once before they sleep, as after any loop. Other
// loops issued on the Parallelizer while a burst is open (plugins' PreFilter
// and PreScore work) are part of it.
//
// Thread-safety: a burst belongs to the thread that created it; the
// Parallelizer must outlive it.
class Parallelizer::Burst {
 public:
  explicit Burst(Parallelizer& parallelizer) : parallelizer_(parallelizer) { parallelizer_.WakeWorkers(); }
  Burst(const Burst&) = delete;
  Burst& operator=(const Burst&) = delete;

  Parallelizer& parallelizer() const { return parallelizer_; }
  // A loop of the burst: Parallelizer::ParallelFor.
  void ParallelFor(int pieces, const std::function<void(int)>& work, CancelFlag* cancel = nullptr,
                   int chunk_size = 0) {
    parallelizer_.ParallelFor(pieces, work, cancel, chunk_size);
  }
  // The burst's last loop: as ParallelFor, then the workers sleep at once.
  // Loops after it find the workers asleep (a futex wake-up each).
  void LastParallelFor(int pieces, const std::function<void(int)>& work, CancelFlag* cancel = nullptr,
                       int chunk_size = 0) {
    parallelizer_.Run(pieces, work, cancel, chunk_size, AfterLoop::kSleep);
  }

 private:
  Parallelizer& parallelizer_;
};

}  // namespace ksched::util
