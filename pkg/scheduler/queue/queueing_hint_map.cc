#include "pkg/scheduler/queue/queueing_hint_map.h"

#include <utility>

namespace ksched::scheduler::queue {

using framework::ActionType;
using framework::ClusterEvent;

void QueueingHintMap::Register(const ClusterEvent& event, std::string plugin, framework::QueueingHintFn fn) {
  for (Entry& e : entries_) {
    if (e.event == event) {
      e.hints.push_back(QueueingHintFunction{std::move(plugin), std::move(fn)});
      return;
    }
  }
  entries_.push_back(Entry{event, {QueueingHintFunction{std::move(plugin), std::move(fn)}}});
}

bool QueueingHintMap::Matches(const ClusterEvent& incoming) const {
  for (const Entry& e : entries_) {
    if (framework::Match(e.event, incoming)) return true;
  }
  return false;
}

void QueueingHintMap::Match(const ClusterEvent& incoming, MatchedHints* out) const {
  out->plugins.clear();
  for (const Entry& e : entries_) {
    if (!framework::Match(e.event, incoming)) continue;
    for (const QueueingHintFunction& h : e.hints) {
      PluginHints* ph = nullptr;
      for (PluginHints& existing : out->plugins) {
        if (existing.plugin == h.plugin_name) {
          ph = &existing;
          break;
        }
      }
      if (ph == nullptr) {
        out->plugins.push_back(PluginHints{h.plugin_name, {}});
        ph = &out->plugins.back();
      }
      ph->fns.push_back(&h.fn);
    }
  }
}

util::StatusOr<QueueingHintMap> BuildQueueingHintMap(const std::vector<const framework::Plugin*>& plugins,
                                                     const framework::FeatureGates& gates) {
  QueueingHintMap map;
  std::string errors;
  for (const framework::Plugin* p : plugins) {
    std::vector<framework::ClusterEventWithHint> events;
    if (const auto* ext = dynamic_cast<const framework::EnqueueExtensions*>(p)) {
      util::StatusOr<std::vector<framework::ClusterEventWithHint>> got = ext->EventsToRegister();
      if (!got.ok()) {
        if (!errors.empty()) errors += "; ";
        errors += std::string(p->Name()) + ": " + got.status().message();
        continue;
      }
      events = std::move(got).value();
    } else {
      for (ClusterEvent& e : framework::UnrollWildCardResource()) {
        events.push_back(framework::ClusterEventWithHint{std::move(e), nullptr});
      }
    }
    bool node_added = false;
    bool node_taint_updated = false;
    for (framework::ClusterEventWithHint& e : events) {
      if (e.event.resource == framework::resource::kNode) {
        node_added |= framework::Intersects(e.event.action_type, ActionType::kAdd);
        node_taint_updated |= framework::Intersects(e.event.action_type, ActionType::kUpdateNodeTaint);
      }
      framework::QueueingHintFn fn = gates.scheduler_queueing_hints ? std::move(e.queueing_hint_fn) : nullptr;
      map.Register(e.event, std::string(p->Name()), std::move(fn));
    }
    if (node_added && !node_taint_updated) {
      // With hints off a node add can be hidden by the handler's preCheck,
      // so a later taint update must still reach these pods.
      map.Register(ClusterEvent(framework::resource::kNode, ActionType::kUpdateNodeTaint), std::string(p->Name()),
                   nullptr);
    }
  }
  if (!errors.empty()) return util::InvalidArgument("EventsToRegister: " + errors);
  return map;
}

std::unordered_map<std::string, std::shared_ptr<const std::vector<ClusterEvent>>> BuildPluginToEventsMap(
    const QueueingHintMapPerProfile& maps) {
  std::unordered_map<std::string, std::vector<ClusterEvent>> tmp;
  for (const auto& [profile, map] : maps) {
    for (const QueueingHintMap::Entry& e : map.entries()) {
      for (const QueueingHintFunction& h : e.hints) tmp[h.plugin_name].push_back(e.event);
    }
  }
  std::unordered_map<std::string, std::shared_ptr<const std::vector<ClusterEvent>>> out;
  for (auto& [plugin, events] : tmp) {
    out.emplace(plugin, std::make_shared<const std::vector<ClusterEvent>>(std::move(events)));
  }
  return out;
}

}  // namespace ksched::scheduler::queue
