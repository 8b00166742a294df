// ExplainRecorder: the CycleObserver of `ksched simulate --explain`. It
// keeps, per pod (by uid), the Filter verdict of every node and the Score
// breakdown of every scored node from the pod's latest cycle, and whether
// that cycle waited at Permit and how the wait ended.
//
// Thread-safety: the observer calls come from the scheduling thread; a
// mutex still guards the map so Take() may run on any thread.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/scheduler/framework/cycle_observer.h"
#include "pkg/simulate/result.h"

namespace ksched::simulate {

class ExplainRecorder final : public scheduler::framework::CycleObserver {
 public:
  // `node_names`: every node of the cluster (a verdict is given for each).
  explicit ExplainRecorder(std::vector<std::string> node_names) : node_names_(std::move(node_names)) {}

  void ObserveFilter(const api::Pod& pod, const scheduler::framework::NodeInfoList& feasible,
                     const scheduler::framework::NodeToStatus& rejected) override;
  void ObserveScores(const api::Pod& pod, const ScoreView& view) override;

  // The pod (assumed on `node`) waits at Permit for `plugins` in its
  // latest cycle. Called by the simulation after the cycle.
  void ObservePermitWait(const std::string& uid, const std::string& node, std::vector<std::string> plugins);
  // How the pod's open Permit wait ended ("allowed" or "rejected" with the
  // failure's message); ignored when no wait is open.
  void ObservePermitOutcome(const std::string& uid, const std::string& outcome, const std::string& message);

  // The explanation of the pod's latest cycle; nullopt if never observed.
  std::optional<PodExplain> Take(const std::string& uid);

 private:
  const std::vector<std::string> node_names_;
  std::mutex mu_;
  std::unordered_map<std::string, PodExplain> by_uid_;
};

}  // namespace ksched::simulate
