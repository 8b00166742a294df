// Boxed<T>: an optional value kept on the heap, for the large members of API
// objects that are usually absent. A std::optional holds its value's bytes
// whether set or not: a pod's Volume held eleven source types inline, 1.3 KB
// per volume, where a volume has at most one source. Boxed costs one pointer
// when empty and one allocation when set.
//
// The interface is std::optional's subset the code uses (has_value, bool,
// *, ->, value, emplace, reset, assignment from a T or std::nullopt), so a
// member can change between the two without touching its readers. Copies
// are deep.
//
// Thread-safety: as a T; not synchronized.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

namespace ksched::api {

template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT: as std::optional
  Boxed(T value) : value_(std::make_unique<T>(std::move(value))) {}  // NOLINT: as std::optional
  Boxed(const Boxed& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(std::nullopt_t) {
    value_.reset();
    return *this;
  }

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return value_.get(); }
  const T* operator->() const { return value_.get(); }
  const T& value() const {
    if (!value_) throw std::bad_optional_access();
    return *value_;
  }
  T& emplace() {
    value_ = std::make_unique<T>();
    return *value_;
  }
  void reset() { value_.reset(); }

  friend bool operator==(const Boxed& a, const Boxed& b) {
    if (!a.has_value() || !b.has_value()) return a.has_value() == b.has_value();
    return *a == *b;
  }
  friend bool operator==(const Boxed& a, std::nullopt_t) { return !a.has_value(); }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace ksched::api
