#include "pkg/scheduler/framework/node_memo.h"

namespace ksched::scheduler::framework {

namespace {
std::atomic<uint64_t> g_last_key{0};
}  // namespace

size_t NodeMemoKeys::Hash::operator()(const std::vector<int64_t>& v) const {
  uint64_t h = 0x9e3779b97f4a7c15u;
  for (int64_t x : v) h = (h ^ static_cast<uint64_t>(x)) * 0x100000001b3u + (h >> 29);
  return static_cast<size_t>(h);
}

uint64_t NodeMemoKeys::KeyFor(std::span<const int64_t> fingerprint) {
  std::vector<int64_t> k(fingerprint.begin(), fingerprint.end());
  std::lock_guard<std::mutex> lock(mu_);
  auto it = keys_.find(k);
  if (it != keys_.end()) return it->second;
  const uint64_t key = g_last_key.fetch_add(1, std::memory_order_relaxed) + 1;
  if (key > NodeMemo::kMaxKey) return 0;
  if (keys_.size() >= kCapacity) keys_.clear();
  keys_.emplace(std::move(k), key);
  return key;
}

}  // namespace ksched::scheduler::framework
