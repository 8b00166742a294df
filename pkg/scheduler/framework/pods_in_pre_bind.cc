#include "pkg/scheduler/framework/pods_in_pre_bind.h"

namespace ksched::scheduler::framework {

bool PodInPreBind::CancelPod(const std::string& message) {
  std::lock_guard<std::mutex> l(mu_);
  if (finished_) return false;
  if (!canceled_) cancellation_.Cancel(message);
  canceled_ = true;
  return true;
}

bool PodInPreBind::MarkPrebound() {
  std::lock_guard<std::mutex> l(mu_);
  if (canceled_) return false;
  finished_ = true;
  return true;
}

std::shared_ptr<PodInPreBind> PodsInPreBind::Add(std::string_view uid) {
  auto pod = std::make_shared<PodInPreBind>();
  std::lock_guard<std::mutex> l(mu_);
  pods_.insert_or_assign(std::string(uid), pod);
  return pod;
}

std::shared_ptr<PodInPreBind> PodsInPreBind::Get(std::string_view uid) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second;
}

void PodsInPreBind::Remove(std::string_view uid) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = pods_.find(uid);
  if (it != pods_.end()) pods_.erase(it);
}

}  // namespace ksched::scheduler::framework
