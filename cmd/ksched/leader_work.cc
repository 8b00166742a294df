#include "cmd/ksched/leader_work.h"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace ksched::app {

void LeaderWork::StartLeading() { scheduler_.Run(); }

void LeaderWork::StopLeading(bool requested, util::TimePoint close_by) {
  if (!requested) {
    // Lost: nothing may start from now on; then wind down what runs.
    gate_.Close();
    scheduler_.Stop();
    if (writer_ != nullptr) writer_->Stop();
    return;
  }
  // Requested: drain while the Lease is ours, but close the gate by
  // `close_by` whatever draining still does.
  std::mutex mu;
  std::condition_variable cv;
  bool drained = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> l(mu);
    while (!drained) {
      if (clock_.WaitUntil(l, cv, close_by) && !drained) {
        spdlog::warn("draining outlasts the lease's renew deadline; no more writes start");
        gate_.Close();
        return;
      }
    }
  });
  scheduler_.Stop();
  if (writer_ != nullptr) writer_->Stop();
  gate_.Close();
  {
    std::lock_guard<std::mutex> l(mu);
    drained = true;
  }
  cv.notify_all();
  watchdog.join();
}

}  // namespace ksched::app
