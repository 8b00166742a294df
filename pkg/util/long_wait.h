// LongWait: marks a stretch in which the calling thread waits on something
// other than the CPU or a quick exchange: another pod (a gang at Permit),
// another controller (a volume binding or a device's binding conditions in
// PreBind). A thread pool that caps its busy threads (BindingPool) sets
// itself as the observer of its own threads; a thread entering a long wait
// then no longer counts against the cap, so the tasks queued behind it get
// a thread (the managed-blocker idea of Java's ForkJoinPool). On a thread
// no pool observes, marking does nothing. A quick exchange with the API
// server is not a long wait: more threads would only queue more requests
// there.
//
// Thread-safety: the observer is per thread; an observer's methods are
// called on the thread that waits and must be thread-safe.
#pragma once

namespace ksched::util {

class LongWaitObserver {
 public:
  virtual ~LongWaitObserver() = default;
  virtual void EnterLongWait() = 0;
  virtual void LeaveLongWait() = 0;
};

namespace long_wait_internal {
struct ThreadState {
  LongWaitObserver* observer = nullptr;
  int depth = 0;  // marked scopes open on this thread
};
inline ThreadState& ThisThread() {
  thread_local ThreadState state;
  return state;
}
}  // namespace long_wait_internal

// Sets the observer of the calling thread's long waits (nullptr: none). The
// observer must outlive the thread's marked waits.
inline void ObserveLongWaitsOfThisThread(LongWaitObserver* observer) {
  long_wait_internal::ThisThread().observer = observer;
}

// Marks its scope as a long wait; nested scopes are one wait, the outermost
// one.
class ScopedLongWait {
 public:
  ScopedLongWait() {
    long_wait_internal::ThreadState& t = long_wait_internal::ThisThread();
    if (t.depth++ == 0) observer_ = t.observer;
    if (observer_ != nullptr) observer_->EnterLongWait();
  }
  ~ScopedLongWait() {
    --long_wait_internal::ThisThread().depth;
    if (observer_ != nullptr) observer_->LeaveLongWait();
  }
  ScopedLongWait(const ScopedLongWait&) = delete;
  ScopedLongWait& operator=(const ScopedLongWait&) = delete;

 private:
  LongWaitObserver* observer_ = nullptr;  // set in the outermost scope only
};

}  // namespace ksched::util
