#include "pkg/metrics/leader_election_metrics.h"

namespace ksched::metrics {

LeaderElectionMetrics::LeaderElectionMetrics(prometheus::Registry& registry) {
  master_status_ = std::make_unique<MetricVec<prometheus::Gauge, 1>>(
      prometheus::BuildGauge()
          .Name("leader_election_master_status")
          .Help("[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 "
                "indicates backup, 1 indicates master. 'name' is the string used to identify "
                "the lease. Please make sure to group by name.")
          .Register(registry),
      std::array<std::string, 1>{"name"});
  slowpath_ = std::make_unique<MetricVec<prometheus::Counter, 1>>(
      prometheus::BuildCounter()
          .Name("leader_election_slowpath_total")
          .Help("[ALPHA] Total number of slow path exercised in renewing leader leases. 'name' "
                "is the string used to identify the lease. Please make sure to group by name.")
          .Register(registry),
      std::array<std::string, 1>{"name"});
}

}  // namespace ksched::metrics
