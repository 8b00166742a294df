#include "pkg/util/parallelizer.h"
#include "pkg/util/thread_name.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "pkg/util/cycle_clock.h"

namespace ksched::util {

namespace {
thread_local bool tls_inside_parallel_for = false;
}  // namespace

struct Parallelizer::Loop {
  int pieces;
  int chunk;
  const std::function<void(int)>* work;
  CancelFlag* cancel;
  std::atomic<int> next{0};
};

int ChunkSizeFor(int pieces, int parallelism) {
  if (parallelism < 1) parallelism = 1;
  int s = static_cast<int>(std::sqrt(static_cast<double>(pieces)));
  int r = pieces / parallelism + 1;
  return std::max(1, std::min(s, r));
}

namespace {

// A help_after in CycleClock ticks (calibrating the clock now rather than in
// the first loop).
int64_t HelpAfterTicks(std::chrono::nanoseconds help_after) {
  if (help_after.count() <= 0) return 0;
  return std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(help_after.count()) / CycleClock::NanosPerTick()));
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() or `spin` has passed; the clock is read every 64 turns.
template <class Done>
bool SpinUntil(const Done& done, std::chrono::nanoseconds spin) {
  if (done()) return true;
  const auto deadline = std::chrono::steady_clock::now() + spin;
  for (int i = 1;; ++i) {
    CpuRelax();
    if (done()) return true;
    if ((i & 63) == 0 && std::chrono::steady_clock::now() >= deadline) return false;
  }
}

// How long a caller spins for its workers' last chunks before it sleeps.
constexpr std::chrono::microseconds kCallerSpin(12);

}  // namespace

Parallelizer::Parallelizer(int parallelism, std::chrono::nanoseconds help_after)
    : parallelism_(std::max(1, parallelism)), help_after_ticks_(HelpAfterTicks(help_after)) {
  workers_.reserve(parallelism_ - 1);
  for (int i = 1; i < parallelism_; ++i) workers_.emplace_back([this] {
      NameThisThread("parallel");
      WorkerMain();
    });
}

Parallelizer::~Parallelizer() {
  stopping_.store(true);
  {
    // Taken so a worker between its predicate check and its sleep cannot
    // miss the notification.
    std::lock_guard<std::mutex> l(mu_);
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

bool Parallelizer::RunPieces(Loop& loop, int64_t help_deadline) {
  while (true) {
    if (loop.cancel != nullptr && loop.cancel->Cancelled()) return true;
    int start = loop.next.fetch_add(loop.chunk, std::memory_order_relaxed);
    if (start >= loop.pieces) return true;
    int end = std::min(loop.pieces, start + loop.chunk);
    for (int i = start; i < end; ++i) {
      if (loop.cancel != nullptr && loop.cancel->Cancelled()) return true;
      (*loop.work)(i);
    }
    if (help_deadline != kNoHelpDeadline && loop.pieces - end >= end && CycleClock::Now() >= help_deadline) {
      return false;
    }
  }
}

// The atomics below pair up as in Dekker's algorithm (both sides store, then
// load the other's flag, sequentially consistent): a caller that bumps
// generation_ and sees no sleeping worker knows the worker will see the new
// generation before it sleeps; a worker that leaves a loop and sees no
// waiting caller knows the caller will see active_workers_ drop before it
// sleeps; a worker that joins a loop after the caller retired it (loop_ is
// null) is seen as active by the caller, or sees the null.
void Parallelizer::WorkerMain() {
  tls_inside_parallel_for = true;
  uint64_t seen = 0;
  while (true) {
    {
      std::unique_lock<std::mutex> l(mu_);
      sleeping_workers_.fetch_add(1);
      work_cv_.wait(l, [&] { return stopping_.load() || generation_.load() != seen; });
      sleeping_workers_.fetch_sub(1);
    }
    if (stopping_.load()) return;
    seen = generation_.load();
    active_workers_.fetch_add(1);
    if (Loop* loop = loop_.load()) RunPieces(*loop);
    if (active_workers_.fetch_sub(1) == 1 && caller_waiting_.load()) {
      std::lock_guard<std::mutex> l(mu_);
      done_cv_.notify_all();
    }
  }
}

void Parallelizer::ParallelFor(int pieces, const std::function<void(int)>& work, CancelFlag* cancel, int chunk_size) {
  if (pieces <= 0) return;
  if (chunk_size <= 0) chunk_size = ChunkSizeFor(pieces, parallelism_);
  Loop loop{pieces, chunk_size, &work, cancel};

  // Single-threaded pools, one-piece loops and nested calls run inline: the
  // hand-off would cost more than it saves, or could deadlock.
  if (workers_.empty() || pieces == 1 || tls_inside_parallel_for) {
    RunPieces(loop);
    return;
  }

  struct Inside {
    Inside() { tls_inside_parallel_for = true; }
    ~Inside() { tls_inside_parallel_for = false; }
  } inside;
  if (help_after_ticks_ > 0 && RunPieces(loop, CycleClock::Now() + help_after_ticks_)) return;
  std::lock_guard<std::mutex> serialize(call_mu_);
  loop_.store(&loop);
  generation_.fetch_add(1);
  if (sleeping_workers_.load() > 0) {
    // Taken so a worker between its predicate check and its sleep cannot
    // miss the notification.
    { std::lock_guard<std::mutex> l(mu_); }
    work_cv_.notify_all();
  }
  RunPieces(loop);

  // Retire the loop so late workers do not join it, then wait for the
  // workers already inside it: they finish at most one chunk each, so spin
  // first and sleep only if they are slow (e.g. preempted).
  loop_.store(nullptr);
  if (!SpinUntil([&] { return active_workers_.load() == 0; }, kCallerSpin)) {
    std::unique_lock<std::mutex> l(mu_);
    caller_waiting_.store(true);
    done_cv_.wait(l, [&] { return active_workers_.load() == 0; });
    caller_waiting_.store(false);
  }
}

}  // namespace ksched::util
