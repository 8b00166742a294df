#include "pkg/scheduler/queue/metrics.h"

namespace ksched::scheduler::queue {

std::string_view QueueNameLabel(QueueName q) {
  switch (q) {
    case QueueName::kActive: return "active";
    case QueueName::kBackoff: return "backoff";
    case QueueName::kUnschedulable: return "unschedulable";
    case QueueName::kGated: return "gated";
  }
  return "";
}

NoopQueueMetrics& NoopQueueMetrics::Get() {
  static NoopQueueMetrics m;
  return m;
}

void CountingQueueMetrics::AddPendingPods(QueueName queue, int64_t delta) {
  std::lock_guard<std::mutex> l(mu_);
  pending_[queue] += delta;
}

void CountingQueueMetrics::IncIncomingPods(QueueName queue, std::string_view event) {
  std::lock_guard<std::mutex> l(mu_);
  ++incoming_[{queue, std::string(event)}];
}

void CountingQueueMetrics::ObserveQueueingHintDuration(std::string_view plugin, std::string_view event,
                                                       std::string_view hint, double seconds) {
  std::lock_guard<std::mutex> l(mu_);
  std::tuple<std::string, std::string, std::string> key{plugin, event, hint};
  hint_seconds_[key] += seconds;
  ++hints_[std::move(key)];
}

void CountingQueueMetrics::AddInFlightEvents(std::string_view event, int64_t delta) {
  std::lock_guard<std::mutex> l(mu_);
  in_flight_[std::string(event)] += delta;
}

void CountingQueueMetrics::AddUnschedulablePods(std::string_view plugin, std::string_view profile, int64_t delta) {
  std::lock_guard<std::mutex> l(mu_);
  unschedulable_[{std::string(plugin), std::string(profile)}] += delta;
}

void CountingQueueMetrics::ObservePreEnqueueDuration(std::string_view profile, double /*seconds*/) {
  std::lock_guard<std::mutex> l(mu_);
  ++pre_enqueue_[std::string(profile)];
}

void CountingQueueMetrics::ObservePreEnqueuePluginDuration(std::string_view plugin, framework::Code status,
                                                           double /*seconds*/) {
  std::lock_guard<std::mutex> l(mu_);
  ++pre_enqueue_plugins_[{std::string(plugin), status}];
}

int64_t CountingQueueMetrics::PreEnqueueRuns(std::string_view profile) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = pre_enqueue_.find(profile);
  return it == pre_enqueue_.end() ? 0 : it->second;
}

int64_t CountingQueueMetrics::PreEnqueuePluginRuns(std::string_view plugin, framework::Code status) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = pre_enqueue_plugins_.find(std::tuple<std::string, framework::Code>(std::string(plugin), status));
  return it == pre_enqueue_plugins_.end() ? 0 : it->second;
}

int64_t CountingQueueMetrics::PendingPods(QueueName queue) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = pending_.find(queue);
  return it == pending_.end() ? 0 : it->second;
}

int64_t CountingQueueMetrics::IncomingPods(QueueName queue, std::string_view event) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = incoming_.find(std::tuple<QueueName, std::string>(queue, std::string(event)));
  return it == incoming_.end() ? 0 : it->second;
}

int64_t CountingQueueMetrics::IncomingPods(QueueName queue) const {
  std::lock_guard<std::mutex> l(mu_);
  int64_t total = 0;
  for (const auto& [k, v] : incoming_) {
    if (std::get<0>(k) == queue) total += v;
  }
  return total;
}

int64_t CountingQueueMetrics::HintExecutions(std::string_view plugin, std::string_view event,
                                             std::string_view hint) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = hints_.find(std::tuple<std::string, std::string, std::string>(plugin, event, hint));
  return it == hints_.end() ? 0 : it->second;
}

double CountingQueueMetrics::HintSeconds(std::string_view plugin, std::string_view event,
                                         std::string_view hint) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = hint_seconds_.find(std::tuple<std::string, std::string, std::string>(plugin, event, hint));
  return it == hint_seconds_.end() ? 0 : it->second;
}

int64_t CountingQueueMetrics::InFlightEvents(std::string_view event) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = in_flight_.find(event);
  return it == in_flight_.end() ? 0 : it->second;
}

int64_t CountingQueueMetrics::UnschedulablePods(std::string_view plugin, std::string_view profile) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = unschedulable_.find(std::tuple<std::string, std::string>(plugin, profile));
  return it == unschedulable_.end() ? 0 : it->second;
}

}  // namespace ksched::scheduler::queue
