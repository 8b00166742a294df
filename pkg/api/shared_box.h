// SharedBox<T>: Boxed<T> (boxed.h) for members that many objects repeat:
// an optional value kept on the heap, shared copy-on-write. The pods of one
// workload carry equal affinity; the decoder interns it (interned.h), so
// they hold one copy and copying a pod copies a pointer.
//
// Reads are Boxed's (has_value, bool, *, ->, value) and value_or_default,
// const only. Writes go through emplace() (a new value), Mutable() (the
// value to change: a private copy when it is shared or interned, a new one
// when unset), assignment or reset().
//
// Thread-safety: as a T for one SharedBox object; the value it points to is
// immutable once shared, so objects that share it may be used on different
// threads.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "pkg/api/interned.h"

namespace ksched::api {

template <class T>
class SharedBox {
 public:
  SharedBox() = default;
  SharedBox(std::nullopt_t) {}  // NOLINT: as std::optional
  SharedBox(T value) { emplace() = std::move(value); }  // NOLINT: as std::optional
  SharedBox& operator=(std::nullopt_t) {
    reset();
    return *this;
  }

  using Value = T;

  // The interned value equal to `value` (see Intern in interned.h).
  static SharedBox Interned(size_t hash, T value) {
    return FromNode(Intern(hash, std::move(value)));
  }
  // A box holding `node` (an interned value: TextInterned), or unset.
  static SharedBox FromNode(std::shared_ptr<const SharedValue<T>> node) {
    SharedBox box;
    box.node_ = std::move(node);
    return box;
  }
  // The value object held; null when unset.
  const std::shared_ptr<const SharedValue<T>>& node() const { return node_; }

  bool has_value() const { return node_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  const T& operator*() const { return node_->value; }
  const T* operator->() const { return &node_->value; }
  const T& value() const {
    if (!node_) throw std::bad_optional_access();
    return node_->value;
  }
  // The value, or a default T when unset.
  const T& value_or_default() const {
    static const T kDefault{};
    return node_ ? node_->value : kDefault;
  }

  // A new, default value to fill in.
  T& emplace() {
    auto node = std::make_shared<SharedValue<T>>();
    T& value = node->value;
    node_ = std::move(node);
    return value;
  }
  // The value to change: a new default T when unset.
  T& Mutable() { return node_ ? MutableShared(&node_) : emplace(); }
  void reset() { node_.reset(); }

  // True when both hold the same value object (not merely equal values).
  bool SharesWith(const SharedBox& other) const { return node_ == other.node_; }

  friend bool operator==(const SharedBox& a, const SharedBox& b) {
    if (!a.has_value() || !b.has_value()) return a.has_value() == b.has_value();
    return a.node_ == b.node_ || *a == *b;
  }
  friend bool operator==(const SharedBox& a, std::nullopt_t) { return !a.has_value(); }

 private:
  std::shared_ptr<const SharedValue<T>> node_;  // null: unset
};

}  // namespace ksched::api
