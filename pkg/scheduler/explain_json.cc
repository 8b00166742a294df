#include "pkg/scheduler/explain_json.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "pkg/api/codec.h"
#include "pkg/api/pod_helpers.h"

namespace ksched::scheduler {

namespace {

using Json = nlohmann::ordered_json;
using framework::ActionType;

// Single action bits in a readable order.
constexpr ActionType kActionBits[] = {
    ActionType::kAdd,
    ActionType::kDelete,
    ActionType::kUpdateNodeAllocatable,
    ActionType::kUpdateNodeLabel,
    ActionType::kUpdateNodeTaint,
    ActionType::kUpdateNodeCondition,
    ActionType::kUpdateNodeAnnotation,
    ActionType::kUpdateNodeDeclaredFeature,
    ActionType::kUpdatePodLabel,
    ActionType::kUpdatePodScaleDown,
    ActionType::kUpdatePodToleration,
    ActionType::kUpdatePodSchedulingGatesEliminated,
    ActionType::kUpdatePodGeneratedResourceClaim,
};

std::string ActionsText(ActionType a) {
  if (a == ActionType::kAll) return "All";
  std::string out;
  ActionType rest = a;
  if ((a & ActionType::kUpdate) == ActionType::kUpdate) {
    out = "Update";
    rest = static_cast<ActionType>(static_cast<int64_t>(a) & ~static_cast<int64_t>(ActionType::kUpdate));
  }
  for (ActionType bit : kActionBits) {
    if (!framework::Intersects(rest, bit)) continue;
    if (!out.empty()) out += "/";
    out += framework::ActionTypeString(bit);
  }
  return out;
}

std::string WallOf(util::TimePoint t, const util::Clock& clock) {
  const util::WallTime wall = clock.WallNow() + std::chrono::duration_cast<util::WallTime::duration>(t - clock.Now());
  return api::FormatMicroTime(wall);
}

}  // namespace

std::string DescribeClusterEvent(const framework::ClusterEvent& event) {
  if (!event.custom_label.empty()) return event.custom_label;
  return event.resource + " " + ActionsText(event.action_type);
}

std::vector<RequeueEvent> RequeueEventsFor(const queue::QueueingHintMap& map, const framework::PluginSet& plugins) {
  std::vector<RequeueEvent> out;
  for (const queue::QueueingHintMap::Entry& e : map.entries()) {
    RequeueEvent r;
    for (const queue::QueueingHintFunction& h : e.hints) {
      if (!plugins.Has(h.plugin_name)) continue;
      if (std::find(r.plugins.begin(), r.plugins.end(), h.plugin_name) == r.plugins.end()) {
        r.plugins.push_back(h.plugin_name);
      }
      if (h.fn) r.hinted = true;
    }
    if (r.plugins.empty()) continue;
    r.event = DescribeClusterEvent(e.event);
    out.push_back(std::move(r));
  }
  return out;
}

Json AttemptJson(const Attempt& a) {
  Json j;
  j["cycle"] = a.cycle;
  j["time"] = api::FormatMicroTime(a.time);
  j["profile"] = a.profile;
  j["result"] = std::string(a.result);
  j["node"] = a.node;
  j["message"] = a.message;
  j["nominatedNode"] = a.nominated_node;
  Json victims = Json::array();
  for (const VictimRef& v : a.victims) victims.push_back({{"namespace", v.namespace_}, {"name", v.name}, {"node", v.node}});
  j["victims"] = std::move(victims);
  j["nodes"] = a.num_all_nodes;
  j["evaluatedNodes"] = a.evaluated_nodes;
  j["feasibleNodes"] = a.feasible_nodes;
  Json counts = Json::array();
  for (const FilterCount& c : a.filter_counts) {
    counts.push_back({{"plugin", c.plugin}, {"reason", c.reason}, {"nodes", c.nodes}});
  }
  j["filterCounts"] = std::move(counts);
  Json plugins = Json::array();
  const size_t p = a.NumScorePlugins();
  for (size_t i = 0; i < p; ++i) {
    plugins.push_back({{"name", a.score_columns->plugins[i]},
                       {"weight", i < a.score_columns->weights.size() ? a.score_columns->weights[i] : 0}});
  }
  j["scorePlugins"] = std::move(plugins);
  j["scoredNodes"] = a.scored_nodes;
  Json rows = Json::array();
  for (size_t r = 0; r < a.top_nodes.size(); ++r) {
    Json row;
    row["node"] = a.TopNodeName(r);
    row["total"] = a.top_nodes[r].total;
    Json scores = Json::array();
    for (size_t i = 0; i < p; ++i) {
      const int64_t w = i < a.score_columns->weights.size() ? a.score_columns->weights[i] : 0;
      const int64_t n = a.Normalized(r, i);
      scores.push_back({{"plugin", a.score_columns->plugins[i]}, {"raw", a.Raw(r, i)}, {"normalized", n}, {"weighted", n * w}});
    }
    row["scores"] = std::move(scores);
    rows.push_back(std::move(row));
  }
  j["topNodes"] = std::move(rows);
  return j;
}

std::string ExplainPodJson(const PodExplainState& s, const std::optional<Attempt>& attempt, bool record_enabled,
                           const util::Clock& clock) {
  Json j;
  j["pod"] = {{"namespace", s.namespace_}, {"name", s.name}, {"uid", s.uid}, {"schedulerName", s.scheduler_name}};
  j["location"] = s.location;
  j["node"] = s.node;
  j["attempts"] = s.attempts;
  if (s.backoff_until) j["backoffUntil"] = WallOf(*s.backoff_until, clock);
  if (s.unschedulable_since) j["unschedulableSince"] = WallOf(*s.unschedulable_since, clock);
  j["unschedulablePlugins"] = s.unschedulable_plugins;
  j["pendingPlugins"] = s.pending_plugins;
  j["gatingPlugin"] = s.gating_plugin;
  j["waitingOnPermitPlugins"] = s.waiting_on_permit_plugins;
  Json events = Json::array();
  for (const RequeueEvent& e : s.requeue_events) {
    events.push_back({{"event", e.event}, {"plugins", e.plugins}, {"hinted", e.hinted}});
  }
  j["requeueEvents"] = std::move(events);
  if (s.location == "unschedulable") {
    j["unschedulableTimeoutSeconds"] = std::chrono::duration_cast<std::chrono::seconds>(s.unschedulable_timeout).count();
  }
  j["lastFailureMessage"] = s.last_failure_message;
  j["recordEnabled"] = record_enabled;
  j["lastAttempt"] = attempt ? AttemptJson(*attempt) : Json(nullptr);
  return j.dump(2) + "\n";
}

std::string QueueSummaryJson(const std::vector<PendingPodDebug>& pods, const std::optional<AttemptRate>& rate,
                             size_t oldest) {
  Json counts = Json::object();
  for (const char* q : {"activeQ", "backoffQ", "unschedulable", "gated", "inFlight"}) counts[q] = 0;
  std::map<std::string, int> rejecting;
  for (const PendingPodDebug& d : pods) {
    const std::string q = d.queue == "active" ? "activeQ" : d.queue == "backoff" ? "backoffQ" : d.queue;
    counts[q] = counts.value(q, 0) + 1;
    for (const std::string& p : d.unschedulable_plugins) ++rejecting[p];
  }
  std::vector<const PendingPodDebug*> order;
  order.reserve(pods.size());
  for (const PendingPodDebug& d : pods) order.push_back(&d);
  auto created = [](const PendingPodDebug* d) { return d->pod->metadata.creation_timestamp.value_or(api::Time::max()); };
  const size_t n = std::min(oldest, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [&](const PendingPodDebug* a, const PendingPodDebug* b) {
                      if (created(a) != created(b)) return created(a) < created(b);
                      return api::PodKey(*a->pod) < api::PodKey(*b->pod);
                    });
  Json list = Json::array();
  for (size_t i = 0; i < n; ++i) {
    const PendingPodDebug& d = *order[i];
    Json p;
    p["namespace"] = d.pod->metadata.namespace_;
    p["name"] = d.pod->metadata.name;
    p["queue"] = d.queue == "active" ? "activeQ" : d.queue == "backoff" ? "backoffQ" : d.queue;
    p["created"] = d.pod->metadata.creation_timestamp ? api::FormatTime(*d.pod->metadata.creation_timestamp) : "";
    p["attempts"] = d.attempts;
    p["unschedulablePlugins"] = d.unschedulable_plugins;
    list.push_back(std::move(p));
  }
  Json out;
  out["counts"] = std::move(counts);
  out["rejectingPlugins"] = rejecting;
  out["oldestPending"] = std::move(list);
  if (rate) {
    out["attempts"] = {{"lastMinute", rate->last_minute},
                       {"perSecond", static_cast<double>(rate->last_minute) / 60.0},
                       {"total", rate->total}};
  }
  return out.dump(2) + "\n";
}

ExplainResponse ServeExplain(const Scheduler& scheduler, const AttemptRecord* record,
                             const std::optional<std::string>& pod) {
  if (!pod) {
    std::optional<AttemptRate> rate;
    if (record != nullptr) rate = AttemptRate{record->AttemptsWithin(std::chrono::minutes(1)), record->TotalAttempts()};
    return {200, QueueSummaryJson(scheduler.PendingPodsDebug(), rate, 10)};
  }
  std::string ns = "default";
  std::string name = *pod;
  if (size_t slash = pod->find('/'); slash != std::string::npos) {
    ns = pod->substr(0, slash);
    name = pod->substr(slash + 1);
  }
  if (ns.empty() || name.empty() || name.find('/') != std::string::npos || name.size() > 253 || ns.size() > 63) {
    Json err;
    err["error"] = "pod must be NAMESPACE/NAME";
    return {400, err.dump() + "\n"};
  }
  std::optional<Attempt> attempt;
  if (record != nullptr) attempt = record->Get(ns, name);
  return {200, ExplainPodJson(scheduler.ExplainPod(ns, name), attempt, record != nullptr, scheduler.Clock())};
}

}  // namespace ksched::scheduler
