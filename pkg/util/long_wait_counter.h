// LongWaitCounter: a LongWaitObserver that counts, for tests; observes the
// thread that constructs it until it is destroyed.
//
// Thread-safety: the counts are atomic.
#pragma once

#include <atomic>

#include "pkg/util/long_wait.h"

namespace ksched::util {

class LongWaitCounter final : public LongWaitObserver {
 public:
  LongWaitCounter() { ObserveLongWaitsOfThisThread(this); }
  ~LongWaitCounter() override { ObserveLongWaitsOfThisThread(nullptr); }

  void EnterLongWait() override { ++entered; }
  void LeaveLongWait() override { ++left; }

  std::atomic<int> entered{0};
  std::atomic<int> left{0};
};

}  // namespace ksched::util
