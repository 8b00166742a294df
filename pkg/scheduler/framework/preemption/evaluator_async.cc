// Asynchronous preemption (SchedulerAsyncPreemption): step 5 of
// Evaluator::Preempt when the API calls run after the scheduling cycle.
// kube runs them in a goroutine; here every eviction is already
// asynchronous (the API writer's workers), so the steps are chained by the
// evictions' completions instead of a thread waiting on them.
#include <mutex>

#include <spdlog/spdlog.h>

#include "pkg/api/pod_helpers.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/framework/preemption/evaluator.h"

namespace ksched::scheduler::framework::preemption {

struct Evaluator::AsyncRun {
  std::shared_ptr<const api::Pod> preemptor;
  std::string node;
  std::vector<std::shared_ptr<const api::Pod>> victims;  // to evict, the last one last
  util::TimePoint started;

  std::mutex mu;
  size_t outstanding = 0;  // evictions before the last one not yet done
  bool failed = false;
};

void Evaluator::PrepareCandidateAsync(const Candidate& c, std::shared_ptr<const api::Pod> pod) {
  PreemptionWriter* writer = handle_.Preemption();
  if (writer != nullptr) writer->ObservePreemptionVictims(static_cast<int>(c.victims.size()));

  auto run = std::make_shared<AsyncRun>();
  run->preemptor = std::move(pod);
  run->node = c.name;
  run->started = handle_.Clock().Now();
  for (const auto& victim : c.victims) {
    // Graceful deletion has started already: another call would change nothing.
    if (victim->metadata.deletion_timestamp) {
      KLOG_V(2, "Victim pod {} of preemptor {} is already being deleted, skipping the API call for it",
             api::PodKey(*victim), api::PodKey(*run->preemptor));
      continue;
    }
    run->victims.push_back(victim);
  }
  if (run->victims.empty()) return;
  {
    std::lock_guard<std::mutex> l(mu_);
    preempting_[run->preemptor->metadata.uid] = std::nullopt;
  }
  KLOG_V(2, "Start the preemption asynchronously: preemptor {}, node {}, {} victims, {} to delete",
         api::PodKey(*run->preemptor), run->node, c.victims.size(), run->victims.size());

  // Lower-priority pods nominated to this node may no longer fit there:
  // clearing their nomination sends them looking elsewhere sooner. (The
  // writer retries these patches; they never fail the run.)
  if (writer != nullptr) {
    const int32_t priority = PodPriority(*run->preemptor);
    for (const PodInfoPtr& pi : handle_.NominatedPodsForNode(run->node)) {
      if (pi->priority() < priority && !pi->pod().status.nominated_node_name.empty()) {
        writer->ClearNominatedNodeName(pi->pod());
      }
    }
  }

  // Every victim but the last at once; the last one once they are done, so
  // that the pod stops being "preempting" no later than the last deletion
  // can reach the queue (else that deletion could be filtered out by the
  // gate and leave the pod stranded among the unschedulable ones).
  const size_t first = run->victims.size() - 1;
  if (first == 0) {
    EvictLastVictim(run);
    return;
  }
  run->outstanding = first;
  for (size_t i = 0; i < first; ++i) {
    Evict(*run, run->victims[i], [this, run](util::Status s) {
      bool last = false;
      bool failed = false;
      {
        std::lock_guard<std::mutex> l(run->mu);
        if (!s.ok()) run->failed = true;
        last = --run->outstanding == 0;
        failed = run->failed;
      }
      if (!last) return;
      if (failed) {
        // Skip the last victim: the pod is activated to try again sooner.
        FinishAsync(*run, false);
      } else {
        EvictLastVictim(run);
      }
    });
  }
}

void Evaluator::Evict(const AsyncRun& run, const std::shared_ptr<const api::Pod>& victim, EvictionDone done) {
  PreemptionWriter* writer = handle_.Preemption();
  if (StopVictimInMemory(*victim, *run.preemptor, run.node)) {
    done(util::Status::Ok());
    return;
  }
  if (writer == nullptr) {
    done(util::Status::Ok());
    return;
  }
  std::shared_ptr<const api::Pod> preemptor = run.preemptor;
  std::string node = run.node;
  writer->DeleteVictim(*victim, *preemptor,
                       [writer, victim, preemptor, node, done = std::move(done)](util::Status s) {
                         if (s.ok()) {
                           KLOG_V(2, "Preemptor pod {} preempted victim pod {} on node {}", api::PodKey(*preemptor),
                                  api::PodKey(*victim), node);
                           writer->RecordPreempted(*victim, *preemptor, node, false);
                         } else {
                           spdlog::error("Error occurred during async preemption of pod {} for {}: {}",
                                         api::PodKey(*victim), api::PodKey(*preemptor), s.ToString());
                         }
                         done(std::move(s));
                       });
}

void Evaluator::EvictLastVictim(const std::shared_ptr<AsyncRun>& run) {
  const std::shared_ptr<const api::Pod>& last = run->victims.back();
  {
    std::lock_guard<std::mutex> l(mu_);
    preempting_[run->preemptor->metadata.uid] = LastVictim{last->metadata.namespace_, last->metadata.name};
  }
  Evict(*run, last, [this, run](util::Status s) { FinishAsync(*run, s.ok()); });
}

void Evaluator::FinishAsync(const AsyncRun& run, bool success) {
  {
    std::lock_guard<std::mutex> l(mu_);
    preempting_.erase(run.preemptor->metadata.uid);
  }
  KLOG_V(2, "Async preemption finished: preemptor {}, node {}, result {}", api::PodKey(*run.preemptor), run.node,
         success ? "success" : "error");
  if (PreemptionWriter* writer = handle_.Preemption()) {
    writer->ObservePreemptionGoroutine(success, handle_.Clock().Since(run.started));
  }
  // A failed call may leave the pod among the unschedulable ones with no
  // event to bring it back.
  if (!success) handle_.Activate({run.preemptor});
}

bool Evaluator::IsPodRunningPreemption(const api::Pod& pod) const {
  std::optional<LastVictim> last;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = preempting_.find(pod.metadata.uid);
    if (it == preempting_.end()) return false;
    if (!it->second) return true;  // the last victim's eviction is not issued yet
    last = it->second;
  }
  // The last victim's eviction was issued: done once the informer shows it
  // gone or terminating.
  std::shared_ptr<const api::Pod> victim = handle_.Listers().Pods().Get(last->ns, last->name);
  return victim != nullptr && !victim->metadata.deletion_timestamp;
}

}  // namespace ksched::scheduler::framework::preemption
