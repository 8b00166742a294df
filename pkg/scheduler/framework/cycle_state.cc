#include "pkg/scheduler/framework/cycle_state.h"

namespace ksched::scheduler::framework {

std::shared_ptr<StateData> CycleState::Find(std::string_view key) const {
  std::shared_lock<std::shared_mutex> l(mu_);
  auto it = storage_.find(key);
  return it == storage_.end() ? nullptr : it->second;
}

util::StatusOr<std::shared_ptr<StateData>> CycleState::Read(std::string_view key) const {
  std::shared_ptr<StateData> v = Find(key);
  if (v == nullptr) return util::NotFound("not found");
  return v;
}

void CycleState::Write(std::string_view key, std::shared_ptr<StateData> value) {
  std::unique_lock<std::shared_mutex> l(mu_);
  auto it = storage_.find(key);
  if (it == storage_.end()) {
    storage_.emplace(std::string(key), std::move(value));
  } else {
    it->second = std::move(value);
  }
}

void CycleState::Delete(std::string_view key) {
  std::unique_lock<std::shared_mutex> l(mu_);
  auto it = storage_.find(key);
  if (it != storage_.end()) storage_.erase(it);
}

std::unique_ptr<CycleState> CycleState::Clone() const {
  auto out = std::make_unique<CycleState>();
  {
    std::shared_lock<std::shared_mutex> l(mu_);
    for (const auto& [key, value] : storage_) {
      out->storage_.emplace(key, value ? value->Clone() : nullptr);
    }
  }
  out->skip_filter_plugins_ = skip_filter_plugins_;
  out->skip_score_plugins_ = skip_score_plugins_;
  out->record_plugin_metrics_ = record_plugin_metrics_;
  return out;
}

std::shared_ptr<StateData> PodsToActivate::Clone() const {
  // Shared on purpose: pods a plugin asks to activate from a cloned state
  // (e.g. during preemption's dry runs) must reach the real cycle.
  return std::const_pointer_cast<PodsToActivate>(shared_from_this());
}

void PodsToActivate::Add(std::shared_ptr<const api::Pod> pod) {
  std::string key = api::KeyOf(pod->metadata);
  std::lock_guard<std::mutex> l(mu_);
  pods_[std::move(key)] = std::move(pod);
}

std::vector<std::shared_ptr<const api::Pod>> PodsToActivate::TakeAll() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::shared_ptr<const api::Pod>> out;
  out.reserve(pods_.size());
  for (auto& [key, pod] : pods_) out.push_back(std::move(pod));
  pods_.clear();
  return out;
}

size_t PodsToActivate::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return pods_.size();
}

}  // namespace ksched::scheduler::framework
