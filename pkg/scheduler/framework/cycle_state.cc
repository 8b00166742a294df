#include "pkg/scheduler/framework/cycle_state.h"

#include <shared_mutex>
#include <unordered_map>

namespace ksched::scheduler::framework {

namespace {

// Process-wide name -> slot table. Function-local so that namespace-scope
// StateKeys in any translation unit can intern during static
// initialization.
class KeyTable {
 public:
  static KeyTable& Get() {
    static KeyTable* table = new KeyTable();  // never destroyed: keys may outlive main()
    return *table;
  }

  uint32_t Intern(std::string_view name) {
    {
      std::shared_lock<std::shared_mutex> l(mu_);
      auto it = slots_.find(name);
      if (it != slots_.end()) return it->second;
    }
    std::unique_lock<std::shared_mutex> l(mu_);
    auto [it, inserted] = slots_.try_emplace(std::string(name), static_cast<uint32_t>(slots_.size()));
    return it->second;
  }

  std::optional<uint32_t> Find(std::string_view name) const {
    std::shared_lock<std::shared_mutex> l(mu_);
    auto it = slots_.find(name);
    if (it == slots_.end()) return std::nullopt;
    return it->second;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> slots_;
};

}  // namespace

StateKey::StateKey(std::string_view name) : name_(name), slot_(KeyTable::Get().Intern(name)) {}

std::optional<uint32_t> StateKey::Find(std::string_view name) { return KeyTable::Get().Find(name); }

CycleState::CycleState() {
  for (std::atomic<StateData*>& p : fast_) p.store(nullptr, std::memory_order_relaxed);
}

CycleState::~CycleState() = default;

StateData* CycleState::RawOverflow(uint32_t slot) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = owned_.find(slot);
  return it == owned_.end() ? nullptr : it->second.get();
}

std::shared_ptr<StateData> CycleState::Owned(uint32_t slot) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = owned_.find(slot);
  return it == owned_.end() ? nullptr : it->second;
}

util::StatusOr<std::shared_ptr<StateData>> CycleState::Read(const StateKey& key) const {
  std::shared_ptr<StateData> v = Owned(key.slot());
  if (v == nullptr) return util::NotFound("not found");
  return v;
}

util::StatusOr<std::shared_ptr<StateData>> CycleState::Read(std::string_view key) const {
  std::optional<uint32_t> slot = StateKey::Find(key);
  std::shared_ptr<StateData> v = slot ? Owned(*slot) : nullptr;
  if (v == nullptr) return util::NotFound("not found");
  return v;
}

void CycleState::SetLocked(uint32_t slot, std::shared_ptr<StateData> value) {
  StateData* raw = value.get();
  auto it = owned_.find(slot);
  if (it != owned_.end()) {
    // A reader may hold the old raw pointer: keep the value alive.
    if (it->second != nullptr) retired_.push_back(std::move(it->second));
    if (value == nullptr) {
      owned_.erase(it);
    } else {
      it->second = std::move(value);
    }
  } else if (value != nullptr) {
    owned_.emplace(slot, std::move(value));
  }
  if (slot < kInlineSlots) fast_[slot].store(raw, std::memory_order_release);
}

void CycleState::Write(const StateKey& key, std::shared_ptr<StateData> value) {
  std::lock_guard<std::mutex> l(mu_);
  SetLocked(key.slot(), std::move(value));
}

void CycleState::Delete(const StateKey& key) {
  std::lock_guard<std::mutex> l(mu_);
  SetLocked(key.slot(), nullptr);
}

void CycleState::Delete(std::string_view key) {
  std::optional<uint32_t> slot = StateKey::Find(key);
  if (!slot) return;  // never interned: nothing can be stored under it
  std::lock_guard<std::mutex> l(mu_);
  SetLocked(*slot, nullptr);
}

void CycleState::ReleaseSchedulingCycleOnly() {
  std::lock_guard<std::mutex> l(mu_);
  for (auto it = owned_.begin(); it != owned_.end();) {
    if (it->second->ReadAfterSchedulingCycle()) {
      ++it;
      continue;
    }
    if (it->first < kInlineSlots) fast_[it->first].store(nullptr, std::memory_order_release);
    it = owned_.erase(it);
  }
  std::erase_if(retired_, [](const std::shared_ptr<StateData>& v) { return !v->ReadAfterSchedulingCycle(); });
}

std::unique_ptr<CycleState> CycleState::Clone() const {
  auto out = std::make_unique<CycleState>();
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [slot, value] : owned_) {
      std::shared_ptr<StateData> copy = value->Clone();
      if (slot < kInlineSlots) out->fast_[slot].store(copy.get(), std::memory_order_relaxed);
      out->owned_.emplace(slot, std::move(copy));
    }
  }
  out->skip_filter_plugins_ = skip_filter_plugins_;
  out->skip_score_plugins_ = skip_score_plugins_;
  out->skip_pre_bind_plugins_ = skip_pre_bind_plugins_;
  out->parallel_pre_bind_plugins_ = parallel_pre_bind_plugins_;
  out->skip_filter_mask_owner_ = skip_filter_mask_owner_;
  out->skip_filter_mask_ = skip_filter_mask_;
  out->filter_resource_memo_ = filter_resource_memo_;
  out->record_plugin_metrics_ = record_plugin_metrics_;
  return out;
}

const StateKey& PodsToActivateKey() {
  static const StateKey* key = new StateKey(kPodsToActivateKey);
  return *key;
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
