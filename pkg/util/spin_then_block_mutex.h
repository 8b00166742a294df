// SpinThenBlockMutex: a mutex that tries for a few microseconds before it
// sleeps (glibc's adaptive mutex, in portable form).
//
// For locks held for a microsecond or two by threads on different cores:
// a std::mutex that finds its lock taken puts the thread to sleep, and the
// holder's unlock must then wake it through the kernel (a futex call, and
// on a virtual machine an inter-processor interrupt) -- several times the
// critical section itself. Spinning a little first lets the waiter take the
// lock as soon as it is released. After kSpins attempts it blocks like a
// std::mutex, so a holder that is descheduled costs only that.
//
// Thread-safety: a mutex. inner() is the std::mutex underneath, for
// condition variables (locking it directly is the same lock).
#pragma once

#include <mutex>

namespace ksched::util {

class SpinThenBlockMutex {
 public:
  static constexpr int kSpins = 200;

  void lock() {
    for (int i = 0; i < kSpins; ++i) {
      if (m_.try_lock()) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    m_.lock();
  }
  bool try_lock() { return m_.try_lock(); }
  void unlock() { m_.unlock(); }
  std::mutex& inner() { return m_; }

 private:
  std::mutex m_;
};

}  // namespace ksched::util
