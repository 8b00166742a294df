// LeaderElectionMetrics: client-go's leader-election families, as
// kube-scheduler exports them through component-base:
//   leader_election_master_status{name}  gauge, 1 = leader, 0 = standby
//   leader_election_slowpath_total{name} counter, renewals that had to GET
//                                        the lease before updating it
// `name` is the lease name. Register on the same registry as
// SchedulerMetrics (SchedulerMetrics::Registry()).
//
// Thread-safety: every method is thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include "pkg/metrics/metric_vec.h"

namespace ksched::metrics {

class LeaderElectionMetrics {
 public:
  explicit LeaderElectionMetrics(prometheus::Registry& registry);

  // Sets leader_election_master_status{name} to 1 (leading) or 0.
  void SetLeading(std::string_view name, bool leading) {
    master_status_->With({name}).Set(leading ? 1.0 : 0.0);
  }
  void IncSlowpath(std::string_view name) { slowpath_->With({name}).Increment(); }

  prometheus::Gauge& MasterStatus(std::string_view name) { return master_status_->With({name}); }
  prometheus::Counter& Slowpath(std::string_view name) { return slowpath_->With({name}); }

 private:
  std::unique_ptr<MetricVec<prometheus::Gauge, 1>> master_status_;
  std::unique_ptr<MetricVec<prometheus::Counter, 1>> slowpath_;
};

}  // namespace ksched::metrics
