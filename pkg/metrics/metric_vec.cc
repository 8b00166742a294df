#include "pkg/metrics/metric_vec.h"

#include <cassert>

namespace ksched::metrics {

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  assert(start > 0 && factor > 1 && count > 0);
  std::vector<double> buckets;
  buckets.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    buckets.push_back(start);
    start *= factor;
  }
  return buckets;
}

}  // namespace ksched::metrics
