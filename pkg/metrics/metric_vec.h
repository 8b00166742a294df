// MetricVec<T, N>: a prometheus-cpp Family<T> with N label names, plus a
// read-mostly cache from label values to the child metric.
//
// Why: Family<T>::Add builds a std::map of labels, hashes it and takes the
// family mutex on every call. With(values) instead hashes the N string_views
// and takes a shared lock, allocating nothing once the child exists; callers
// on hot paths keep the returned reference (children live as long as the
// family, i.e. as long as the registry) and skip even that.
//
// Children are created lazily, on first use, as the Go client's *Vec types
// do, so a label combination that never happened is never exported.
//
// Thread-safety: With() is thread-safe. Complexity: O(sum of value lengths).
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/labels.h>

namespace ksched::metrics {

// Go's prometheus.ExponentialBuckets(start, factor, count): start,
// start*factor, ... computed by repeated multiplication so the bounds are
// bit-identical to kube-scheduler's. Written E(start, factor, count) in the
// semantics document.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

template <class T, std::size_t N>
class MetricVec {
 public:
  using Values = std::array<std::string_view, N>;

  // `buckets` is used only when T is prometheus::Histogram.
  MetricVec(prometheus::Family<T>& family, std::array<std::string, N> label_names,
            std::vector<double> buckets = {})
      : family_(family), label_names_(std::move(label_names)), buckets_(std::move(buckets)) {}

  MetricVec(const MetricVec&) = delete;
  MetricVec& operator=(const MetricVec&) = delete;

  T& With(const Values& values) {
    {
      std::shared_lock<std::shared_mutex> lock(mu_);
      auto it = children_.find(values);
      if (it != children_.end()) return *it->second;
    }
    prometheus::Labels labels;
    for (std::size_t i = 0; i < N; ++i) labels.emplace(label_names_[i], std::string(values[i]));
    T* child;
    if constexpr (std::is_same_v<T, prometheus::Histogram>) {
      child = &family_.Add(labels, buckets_);
    } else {
      child = &family_.Add(labels);
    }
    std::unique_lock<std::shared_mutex> lock(mu_);
    Key key;
    for (std::size_t i = 0; i < N; ++i) key[i] = std::string(values[i]);
    children_.emplace(std::move(key), child);
    return *child;
  }

  prometheus::Family<T>& family() { return family_; }

 private:
  using Key = std::array<std::string, N>;

  struct Hash {
    using is_transparent = void;
    template <class Array>
    std::size_t operator()(const Array& a) const {
      std::size_t h = 0;
      for (const auto& s : a) {
        // Boost's hash_combine mixing; the separator-free combination is
        // fine because equality compares element by element.
        h ^= std::hash<std::string_view>{}(std::string_view(s)) + 0x9e3779b97f4a7c15ULL +
             (h << 6) + (h >> 2);
      }
      return h;
    }
  };
  struct Eq {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      for (std::size_t i = 0; i < N; ++i) {
        if (std::string_view(a[i]) != std::string_view(b[i])) return false;
      }
      return true;
    }
  };

  prometheus::Family<T>& family_;
  const std::array<std::string, N> label_names_;
  const std::vector<double> buckets_;
  std::shared_mutex mu_;
  std::unordered_map<Key, T*, Hash, Eq> children_;
};

}  // namespace ksched::metrics
