#include "pkg/util/parallelizer.h"

#include <algorithm>
#include <cmath>

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

Parallelizer::Parallelizer(int parallelism) : parallelism_(std::max(1, parallelism)) {
  workers_.reserve(parallelism_ - 1);
  for (int i = 1; i < parallelism_; ++i) workers_.emplace_back([this] { WorkerMain(); });
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void Parallelizer::RunPieces(Loop& loop) {
  while (true) {
    if (loop.cancel != nullptr && loop.cancel->Cancelled()) return;
    int start = loop.next.fetch_add(loop.chunk, std::memory_order_relaxed);
    if (start >= loop.pieces) return;
    int end = std::min(loop.pieces, start + loop.chunk);
    for (int i = start; i < end; ++i) {
      if (loop.cancel != nullptr && loop.cancel->Cancelled()) return;
      (*loop.work)(i);
    }
  }
}

void Parallelizer::WorkerMain() {
  tls_inside_parallel_for = true;
  uint64_t seen = 0;
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    work_cv_.wait(l, [&] { return stopping_ || (loop_ != nullptr && generation_ != seen); });
    if (stopping_) return;
    seen = generation_;
    Loop* loop = loop_;
    ++active_workers_;
    l.unlock();
    RunPieces(*loop);
    l.lock();
    if (--active_workers_ == 0) done_cv_.notify_all();
  }
}

void Parallelizer::ParallelFor(int pieces, const std::function<void(int)>& work,
                               CancelFlag* cancel, int chunk_size) {
  if (pieces <= 0) return;
  if (chunk_size <= 0) chunk_size = ChunkSizeFor(pieces, parallelism_);
  Loop loop{pieces, chunk_size, &work, cancel};

  // Small loops, single-threaded pools and nested calls run inline: the
  // hand-off would cost more than it saves, or could deadlock.
  if (workers_.empty() || pieces == 1 || tls_inside_parallel_for) {
    RunPieces(loop);
    return;
  }

  std::lock_guard<std::mutex> serialize(call_mu_);
  {
    std::lock_guard<std::mutex> l(mu_);
    loop_ = &loop;
    ++generation_;
  }
  work_cv_.notify_all();

  tls_inside_parallel_for = true;
  RunPieces(loop);
  tls_inside_parallel_for = false;

  std::unique_lock<std::mutex> l(mu_);
  // Retire the loop so late-waking workers do not join it, then wait for the
  // workers already inside it.
  loop_ = nullptr;
  done_cv_.wait(l, [&] { return active_workers_ == 0; });
}

}  // namespace ksched::util
