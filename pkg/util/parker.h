// Parker: puts one thread to sleep until another wakes it, with a futex
// word and no mutex (the scheme of Rust's thread parker).
//
// A std::condition_variable hand-off costs the woken thread a third system
// call: glibc marks the mutex contended when the woken waiter takes it back,
// so the waiter's next unlock calls the kernel to wake nobody. For threads
// woken once per pod (idle binding threads) that was a third of their
// futex calls. A parked thread holds no lock, so waking it costs one call
// and sleeping one.
//
// Unpark before Park is remembered: the next Park returns at once. Writes
// made before Unpark are visible after the Park it ends (release/acquire).
//
// Thread-safety: one thread parks (the owner); any thread may Unpark.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace ksched::util {

class Parker {
 public:
  // Returns after an Unpark (one made earlier counts, once).
  void Park() {
    // Notified -> empty: consume it. Empty -> parked: sleep.
    if (state_.fetch_sub(1, std::memory_order_acquire) == kNotified) return;
    for (;;) {
      Futex(FUTEX_WAIT_PRIVATE, kParked);
      uint32_t notified = kNotified;
      if (state_.compare_exchange_strong(notified, kEmpty, std::memory_order_acquire)) return;
      // Woken by nothing (a signal, or a spurious return): sleep again.
    }
  }

  // Ends the current or next Park.
  void Unpark() {
    if (state_.exchange(kNotified, std::memory_order_release) == kParked) Futex(FUTEX_WAKE_PRIVATE, 1);
  }

 private:
  static constexpr uint32_t kEmpty = 0;
  static constexpr uint32_t kNotified = 1;
  static constexpr uint32_t kParked = UINT32_MAX;  // kEmpty - 1

  void Futex(int op, uint32_t value) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&state_), op, value, nullptr, nullptr, 0);
  }

  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) && std::atomic<uint32_t>::is_always_lock_free);
  std::atomic<uint32_t> state_{kEmpty};
};

}  // namespace ksched::util
