// Prints to stdout the /metrics exposition of a SchedulerMetrics,
// LeaderElectionMetrics and ProcessCollector in which every family has
// series. CTest pipes it into `promtool check metrics`.
#include <iostream>
#include <memory>

#include "pkg/metrics/exposition.h"
#include "pkg/metrics/leader_election_metrics.h"
#include "pkg/metrics/metrics_test_util.h"
#include "pkg/metrics/process_collector.h"
#include "pkg/metrics/scheduler_metrics.h"

int main() {
  using namespace ksched::metrics;
  SchedulerMetrics metrics;
  LeaderElectionMetrics leader_election(*metrics.Registry());
  testing::ObserveEveryFamily(metrics, leader_election);
  std::cout << CollectText({metrics.Registry(), std::make_shared<ProcessCollector>()});
  return std::cout.good() ? 0 : 1;
}
