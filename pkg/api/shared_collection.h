// SharedCollection<C, Self>: the holder that SharedList (shared_list.h) and
// SharedMap (shared_map.h) are made of: a standard container member of an
// API object that many objects share, copy-on-write. The pods of one
// workload come from one template; the decoder interns their equal lists
// and maps (interned.h), so they hold one copy and copying a pod copies a
// pointer.
//
// Reads are C's const interface (and a conversion to `const C&`); Self adds
// C's element reads. Writes go through Mutable(), clear, assignment and the
// element writes Self adds on top of Mutable(), which first copy a
// container that is shared or interned; so iteration is const only, and
// reading a non-const object never copies.
//
// Self is the derived class (the curiously recurring template pattern), so
// Interned() and assignment return it.
//
// Thread-safety: as a C for one holder. The container it points to is
// immutable once shared, so holders that share it may be used on different
// threads. Interned() is thread-safe.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>

#include "pkg/api/interned.h"

namespace ksched::api {

template <class C, class Self>
class SharedCollection {
 public:
  using value_type = typename C::value_type;
  using size_type = size_t;
  using const_iterator = typename C::const_iterator;
  using iterator = const_iterator;  // elements are written through Mutable()

  SharedCollection() = default;
  SharedCollection(C items) { Assign(std::move(items)); }  // NOLINT: as a C
  SharedCollection(std::initializer_list<value_type> items) { Assign(C(items)); }
  Self& operator=(C items) {
    Assign(std::move(items));
    return static_cast<Self&>(*this);
  }
  Self& operator=(std::initializer_list<value_type> items) {
    Assign(C(items));
    return static_cast<Self&>(*this);
  }

  using Value = C;

  // The interned container equal to `items` (see Intern in interned.h).
  static Self Interned(size_t hash, C items) {
    if (items.empty()) return Self();
    if constexpr (requires { items.shrink_to_fit(); }) items.shrink_to_fit();
    return FromNode(Intern(hash, std::move(items)));
  }
  // A holder of `node` (an interned container: TextInterned); empty for null.
  static Self FromNode(std::shared_ptr<const SharedValue<C>> node) {
    Self held;
    static_cast<SharedCollection&>(held).node_ = std::move(node);
    return held;
  }
  // The container object held; null when empty.
  const std::shared_ptr<const SharedValue<C>>& node() const { return node_; }

  const C& get() const { return node_ ? node_->value : Empty(); }
  operator const C&() const { return get(); }  // NOLINT: reads as a C

  bool empty() const { return get().empty(); }
  size_t size() const { return get().size(); }
  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }

  // The container to write: a private copy when the current one is shared
  // with another holder or interned.
  C& Mutable() {
    if (!node_) node_ = std::make_shared<SharedValue<C>>();
    return MutableShared(&node_);
  }
  void clear() { node_.reset(); }

  // True when both hold the same container object (not merely equal ones).
  bool SharesWith(const SharedCollection& other) const { return node_ == other.node_; }

  friend bool operator==(const Self& a, const Self& b) {
    return a.SharesWith(b) || a.get() == b.get();
  }
  friend bool operator==(const Self& a, const C& b) { return a.get() == b; }

 private:
  static const C& Empty() {
    static const C empty;
    return empty;
  }

  void Assign(C items) {
    if (items.empty()) {
      node_.reset();
      return;
    }
    auto node = std::make_shared<SharedValue<C>>();
    node->value = std::move(items);
    node_ = std::move(node);
  }

  std::shared_ptr<const SharedValue<C>> node_;  // null: empty
};

}  // namespace ksched::api
