// ParallelChunks: splits [0, n) into contiguous chunks and runs one task per
// chunk on a util::Parallelizer, so each task can accumulate into its own
// output (indexed by chunk) and the caller merges them afterwards without
// locks. kube-scheduler gives each node its own output slot instead; a slot
// per chunk allocates far less for the same parallelism.
//
// Small inputs run inline on the caller: handing a few hundred cheap items to
// worker threads costs more than it saves.
//
// Thread-safety: `fn` runs concurrently for different chunks.
#pragma once

#include <algorithm>

#include "pkg/util/parallelizer.h"

namespace ksched::scheduler::plugins::helper {

class ParallelChunks {
 public:
  // Below this many items everything runs in one chunk on the caller.
  static constexpr int kMinItemsToParallelize = 256;

  ParallelChunks(util::Parallelizer& parallelizer, int n)
      : parallelizer_(parallelizer),
        n_(n),
        chunks_(n < kMinItemsToParallelize ? (n > 0 ? 1 : 0) : std::min(n, parallelizer.parallelism() * 4)) {}

  int num_chunks() const { return chunks_; }

  // Calls fn(chunk, begin, end) for every chunk; returns when all are done.
  template <class Fn>
  void Run(const Fn& fn) {
    if (chunks_ == 0) return;
    if (chunks_ == 1) {
      fn(0, 0, n_);
      return;
    }
    const long long n = n_;
    const long long chunks = chunks_;
    parallelizer_.ParallelFor(
        chunks_,
        [&](int c) { fn(c, static_cast<int>(n * c / chunks), static_cast<int>(n * (c + 1) / chunks)); },
        nullptr, 1);
  }

 private:
  util::Parallelizer& parallelizer_;
  const int n_;
  const int chunks_;
};

}  // namespace ksched::scheduler::plugins::helper
