// Parallelizer: a fixed pool of worker threads running parallel-for loops,
// as kube-scheduler's parallelize.Parallelizer does for Filter, Score and
// preemption dry runs.
//
// Help on demand: the calling thread starts every loop alone and asks the
// workers in only once it has worked `help_after` (50 µs by default) and at
// least as many pieces remain as it ran, i.e. when the loop likely has more
// work left than a wake-up costs. Most loops of a scheduling cycle on a
// default profile (Filter until enough feasible nodes, Score over those)
// end sooner, and splitting them cost more than it saved: node data moving
// between cores, a wake-up or a spinning worker per cycle (figures in
// docs/performance-components.md). Loops over every node (InterPodAffinity's
// and PodTopologySpread's counting, Filter for selective pods, Score at
// percentageOfNodesToScore 100 on large clusters) still get the pool.
// Workers sleep between loops: the alone phase outlasts any useful spin.
//
// Thread-safety: ParallelFor may be called from any thread. Alone phases of
// concurrent calls run at once; loops that ask for help are serialized (the
// pool works on one at a time). A ParallelFor issued from inside a work
// function runs inline on the calling thread, so nesting cannot deadlock.
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
  static constexpr std::chrono::nanoseconds kDefaultHelpAfter = std::chrono::microseconds(50);

  // `parallelism` >= 1 is the total number of threads working on a loop,
  // the caller included; parallelism - 1 threads are started. A zero
  // `help_after` asks for help at each loop's start.
  explicit Parallelizer(int parallelism, std::chrono::nanoseconds help_after = kDefaultHelpAfter);
  ~Parallelizer();

  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  int parallelism() const { return parallelism_; }

  // Runs work(i) for every i in [0, pieces) unless `cancel` is cancelled
  // first, and returns once every started piece has finished. Pieces are
  // handed out in chunks of `chunk_size` (0 means ChunkSizeFor); each thread
  // takes consecutive indexes within a chunk. Complexity: O(pieces /
  // parallelism) wall time for a loop that gets help, plus a wake-up.
  void ParallelFor(int pieces, const std::function<void(int)>& work, CancelFlag* cancel = nullptr,
                   int chunk_size = 0);

 private:
  struct Loop;
  static constexpr int64_t kNoHelpDeadline = INT64_MAX;
  // Runs `loop`'s chunks until none is left or the loop is cancelled (true).
  // The caller's alone phase passes a CycleClock `help_deadline`: it stops
  // (false) once that has passed with at least as much left as was handed
  // out, i.e. as it ran.
  static bool RunPieces(Loop& loop, int64_t help_deadline = kNoHelpDeadline);
  void WorkerMain();

  const int parallelism_;
  const int64_t help_after_ticks_;  // help_after in CycleClock ticks
  std::vector<std::thread> workers_;

  std::mutex call_mu_;  // serializes loops that ask for help

  // The hand-off is lock-free on the workers' side of a loop; mu_ and the
  // condition variables serve threads that sleep (idle workers, a caller
  // whose workers are slow to finish their last chunk).
  std::atomic<Loop*> loop_{nullptr};       // the loop in progress, if any
  std::atomic<uint64_t> generation_{0};    // bumped per loop so a worker joins each loop once
  std::atomic<int> active_workers_{0};     // workers that may be inside loop_
  std::atomic<int> sleeping_workers_{0};   // workers waiting on work_cv_
  std::atomic<bool> caller_waiting_{false};  // the caller waits on done_cv_
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
};

}  // namespace ksched::util
