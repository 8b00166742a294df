// ResourceList: resource name -> quantity ("cpu", "memory", "pods",
// "ephemeral-storage", extended resources such as "nvidia.com/gpu"), as
// container requests and limits, pod overhead and node capacity hold them.
//
// A flat map: one vector of (name, quantity) entries, sorted by name, names
// unique. Every pod and node holds several of these lists with a handful of
// entries each, where a std::map spent a tree node (about 112 heap bytes
// with malloc's overhead) per entry; here an entry is 64 bytes in a single
// allocation per list, and the empty list is three pointers.
//
// What it keeps of std::map<std::string, Quantity> (the subset the code
// uses): iteration in name order (byte order, as std::string's operator<),
// so JSON output, comparisons and anything derived from the order are
// unchanged; find/count/at/operator[]/emplace/emplace_hint/try_emplace
// with the same results; equality entry by entry. Lookups take a std::string_view, so
// callers need not build a string.
//
// What differs:
// - Any insertion (operator[] of an absent name, emplace) may move
//   the entries: it invalidates every iterator, pointer and reference into
//   the list, where std::map's stayed valid. Do not hold a Quantity& or an
//   iterator across an insertion into the same list.
// - value_type is std::pair<std::string, Quantity> (the name is not const):
//   changing a name through an iterator breaks the order; only the
//   quantity may be assigned.
//
// Complexity: lookup O(log n); insertion O(n) (entries after the
// position move); building from names in sorted order appends, O(1) each.
//
// Thread-safety: as a std::vector; concurrent reads are safe, a mutation
// needs exclusive access.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/quantity.h"

namespace ksched::api {

class ResourceList {
 public:
  using key_type = std::string;
  using mapped_type = Quantity;
  using value_type = std::pair<std::string, Quantity>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  ResourceList() = default;
  // As std::map's: a name given twice keeps its first quantity.
  ResourceList(std::initializer_list<value_type> entries) {  // NOLINT: as std::map
    entries_.reserve(entries.size());
    for (const value_type& e : entries) emplace(e.first, e.second);
  }

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }

  // The entry named `name`, or end().
  iterator find(std::string_view name) {
    auto it = LowerBound(name);
    return it != entries_.end() && it->first == name ? it : entries_.end();
  }
  const_iterator find(std::string_view name) const {
    return const_cast<ResourceList*>(this)->find(name);
  }
  size_t count(std::string_view name) const { return find(name) != end() ? 1 : 0; }

  // Throws std::out_of_range when `name` is absent, as std::map::at.
  const Quantity& at(std::string_view name) const {
    auto it = find(name);
    if (it == entries_.end()) throw std::out_of_range("ResourceList::at: no " + std::string(name));
    return it->second;
  }

  // The quantity named `name`, inserted as zero when absent (which
  // invalidates iterators and references, see above).
  Quantity& operator[](std::string_view name) { return emplace(name, Quantity()).first->second; }

  // Inserts (name, quantity) unless `name` is present, in which case the
  // list is unchanged. Returns the entry named `name` and whether it was
  // inserted.
  std::pair<iterator, bool> emplace(std::string_view name, const Quantity& quantity) {
    auto it = LowerBound(name);
    if (it != entries_.end() && it->first == name) return {it, false};
    return {entries_.emplace(it, std::string(name), quantity), true};
  }

  // As emplace; the hint only keeps std::map's signature, since appending
  // in name order is found without a search anyway.
  iterator emplace_hint(const_iterator /*hint*/, std::string_view name, const Quantity& quantity) {
    return emplace(name, quantity).first;
  }
  // As emplace of a zero quantity.
  std::pair<iterator, bool> try_emplace(std::string_view name) { return emplace(name, Quantity()); }

  // Drops unused capacity: a decoded list is kept for the object's life.
  void shrink_to_fit() { entries_.shrink_to_fit(); }

  friend bool operator==(const ResourceList& a, const ResourceList& b) = default;

 private:
  // The first entry whose name is not less than `name`; names appended in
  // increasing order (decoding, copying another list) are found at the end
  // without a search.
  iterator LowerBound(std::string_view name) {
    if (entries_.empty() || std::string_view(entries_.back().first) < name) return entries_.end();
    return std::lower_bound(entries_.begin(), entries_.end(), name,
                            [](const value_type& e, std::string_view n) { return std::string_view(e.first) < n; });
  }

  std::vector<value_type> entries_;  // sorted by name, names unique
};

}  // namespace ksched::api
