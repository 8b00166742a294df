// Interning: one copy of each distinct value among those alive, for the
// parts of API objects that many objects repeat (a workload's pods come from
// one template). The copy-on-write holders SharedList, SharedMap
// (shared_collection.h) and SharedBox (shared_box.h) keep their values this
// way.
//
// Thread-safety: Intern() is; a SharedValue is immutable once shared.
// Memory: the table keeps a weak entry per distinct value, swept when it has
// doubled since the last sweep, so a value lives only while objects hold it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace ksched::api {

// A value as the holders keep it. `interned` is set before the value is
// published and never after: an interned value may be handed out again by
// the table, so its holders copy it before writing even when they are its
// only holder.
template <class V>
struct SharedValue {
  V value;
  bool interned = false;
};

// The one interned value equal to `value` still alive, or `value`, interned
// now. Values with one hash are told apart by V's operator==. The codec
// hashes a value's encoded text, so equal values written differently (a
// Quantity as "1" and as "1000m") hash apart and are kept as two copies:
// that costs memory, never correctness.
// O(values with that hash) comparisons, under a lock per V.
template <class V>
std::shared_ptr<const SharedValue<V>> Intern(size_t hash, V value) {
  struct Table {
    std::mutex mu;
    std::unordered_multimap<size_t, std::weak_ptr<const SharedValue<V>>> values;
    size_t sweep_at = 64;
  };
  static Table table;
  std::lock_guard<std::mutex> lock(table.mu);
  auto [first, last] = table.values.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    std::shared_ptr<const SharedValue<V>> live = it->second.lock();
    if (live && live->value == value) return live;
  }
  auto node = std::make_shared<SharedValue<V>>();
  node->value = std::move(value);
  node->interned = true;
  table.values.emplace(hash, node);
  if (table.values.size() >= table.sweep_at) {
    std::erase_if(table.values, [](const auto& entry) { return entry.second.expired(); });
    table.sweep_at = std::max<size_t>(64, 2 * table.values.size());
  }
  return node;
}

// The value of `*node` to write: `*node` itself when this holder is its only
// holder and it is not interned, else a private copy that replaces it.
// `node` must not be null.
template <class V>
V& MutableShared(std::shared_ptr<const SharedValue<V>>* node) {
  if ((*node)->interned || node->use_count() != 1) {
    auto copy = std::make_shared<SharedValue<V>>();
    copy->value = (*node)->value;
    *node = std::move(copy);
  }
  return const_cast<SharedValue<V>&>(**node).value;
}

}  // namespace ksched::api
