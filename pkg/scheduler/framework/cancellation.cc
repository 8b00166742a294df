#include "pkg/scheduler/framework/cancellation.h"

#include <utility>

namespace ksched::scheduler::framework {

Cancellation::Cancellation(Cancellation* parent) : parent_(parent) {
  if (parent_ != nullptr) parent_subscription_ = parent_->Subscribe([this] { Cancel(parent_->cause_); });
}

Cancellation::~Cancellation() {
  if (parent_ != nullptr) parent_->Unsubscribe(parent_subscription_);
}

void Cancellation::Cancel(const std::string& cause) {
  std::lock_guard<std::mutex> l(mu_);
  if (cancelled_.load(std::memory_order_relaxed)) return;
  cause_ = cause;
  cancelled_.store(true, std::memory_order_release);
  for (auto& [id, wake] : wakes_) wake();
}

bool Cancellation::Cancelled() const { return cancelled_.load(std::memory_order_acquire); }

std::string Cancellation::Cause() const {
  std::lock_guard<std::mutex> l(mu_);
  return cause_;
}

uint64_t Cancellation::Subscribe(std::function<void()> wake) {
  std::lock_guard<std::mutex> l(mu_);
  const uint64_t id = next_id_++;
  if (cancelled_.load(std::memory_order_relaxed)) {
    wake();
  } else {
    wakes_.emplace(id, std::move(wake));
  }
  return id;
}

void Cancellation::Unsubscribe(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  wakes_.erase(id);
}

}  // namespace ksched::scheduler::framework
