// Scores from a utilization shape (kube-scheduler's
// helper.BuildBrokenLinearFunction): NodeResourcesFit's
// RequestedToCapacityRatio and VolumeBinding's storage capacity scoring.
//
// Thread-safety: pure functions. Complexity: O(points).
#pragma once

#include <cstdint>
#include <vector>

#include "pkg/config/args_fields.h"

namespace ksched::scheduler::plugins::helper {

// A shape point with its score on the node-score scale (0-100).
struct ShapePoint {
  int64_t utilization;
  int64_t score;
};

// The configured points (scores 0-10) scaled to node scores (0-100).
inline std::vector<ShapePoint> ScaledShape(const std::vector<config::UtilizationShapePoint>& shape,
                                           int64_t max_node_score) {
  std::vector<ShapePoint> points;
  points.reserve(shape.size());
  for (const config::UtilizationShapePoint& p : shape) {
    points.push_back({p.utilization, p.score * (max_node_score / config::kMaxCustomPriorityScore)});
  }
  return points;
}

// The first point's score up to its utilization, the last point's beyond
// the last one, linear (integer arithmetic) between; 0 for no points.
inline int64_t BrokenLinear(const std::vector<ShapePoint>& shape, int64_t utilization) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (utilization <= shape[i].utilization) {
      if (i == 0) return shape[0].score;
      const ShapePoint& a = shape[i - 1];
      const ShapePoint& b = shape[i];
      return a.score + (b.score - a.score) * (utilization - a.utilization) / (b.utilization - a.utilization);
    }
  }
  return shape.empty() ? 0 : shape.back().score;
}

}  // namespace ksched::scheduler::plugins::helper
