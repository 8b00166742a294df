// Eventually: polls a condition until it holds or a timeout passes. The
// integration tests' schedulers and API servers work on their own threads,
// so a test has nothing to block on from outside.
//
// Thread-safety: calls `pred` on the calling thread only.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace ksched {

// Whether `pred` held within `timeout` (checked every 10 ms, and once more
// at the end).
inline bool Eventually(const std::function<bool()>& pred,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

}  // namespace ksched
