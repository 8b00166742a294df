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
#include <string>
#include <string_view>
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

// The interned values that JSON texts decoded to, by text: the decoder looks
// a value's text up here first and decodes only texts it has not seen, so a
// workload's pods, whose lists and maps repeat one template's text, skip
// decoding, re-encoding and comparing them. Only the text of a value that
// was already held elsewhere when it was decoded is remembered: a value
// held once (a pod's own labels) costs no copy of its text here.
//
// Thread-safety: thread-safe (a lock per V). Memory: one copy of each
// remembered text and a weak entry, swept as Intern's table is, at most
// kMaxTextBytes of text.
// Find and Remember are O(text) plus O(entries with that hash).
template <class V>
class TextInterned {
 public:
  using Node = std::shared_ptr<const SharedValue<V>>;

  static size_t Hash(std::string_view text) { return std::hash<std::string_view>{}(text); }

  // The live value `text` decoded to, or null.
  static Node Find(size_t hash, std::string_view text) {
    Table& t = table();
    std::lock_guard<std::mutex> lock(t.mu);
    Entry* entry = FindLocked(t, hash, text);
    return entry != nullptr ? entry->value.lock() : nullptr;
  }

  // Records that `text` decodes to `node`, if `node` is held elsewhere too
  // and the remembered texts stay under kMaxTextBytes.
  static void RememberIfShared(size_t hash, std::string_view text, const Node& node) {
    if (node == nullptr || node.use_count() < 2) return;
    Table& t = table();
    std::lock_guard<std::mutex> lock(t.mu);
    if (Entry* entry = FindLocked(t, hash, text); entry != nullptr) {
      entry->value = node;
      return;
    }
    if (t.text_bytes + text.size() > kMaxTextBytes) {
      // Full: sweep once the refusals since the last sweep match the
      // entries, so a full table costs O(1) per refusal.
      if (++t.refused < t.entries.size()) return;
      Sweep(t);
      if (t.text_bytes + text.size() > kMaxTextBytes) return;
    }
    t.entries.emplace(hash, Entry{std::string(text), node});
    t.text_bytes += text.size();
    if (t.entries.size() >= t.sweep_at) Sweep(t);
  }

  // Bounds the texts kept per V: pods whose texts differ (a per-pod
  // service account token mount) would otherwise add one per pod.
  static constexpr size_t kMaxTextBytes = 256 * 1024;

 private:
  struct Entry {
    std::string text;
    std::weak_ptr<const SharedValue<V>> value;
  };
  struct Table {
    std::mutex mu;
    std::unordered_multimap<size_t, Entry> entries;
    size_t text_bytes = 0;
    size_t refused = 0;
    size_t sweep_at = 64;
  };
  static Table& table() {
    static Table t;
    return t;
  }
  // The entry of `text`, or null. Requires t.mu.
  static Entry* FindLocked(Table& t, size_t hash, std::string_view text) {
    auto [first, last] = t.entries.equal_range(hash);
    for (auto it = first; it != last; ++it) {
      if (it->second.text == text) return &it->second;
    }
    return nullptr;
  }
  static void Sweep(Table& t) {
    std::erase_if(t.entries, [](const auto& entry) { return entry.second.value.expired(); });
    t.text_bytes = 0;
    for (const auto& [hash, entry] : t.entries) t.text_bytes += entry.text.size();
    t.refused = 0;
    t.sweep_at = std::max<size_t>(64, 2 * t.entries.size());
  }
};

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
