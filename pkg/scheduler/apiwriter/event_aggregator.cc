#include "pkg/scheduler/apiwriter/event_aggregator.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace ksched::scheduler::apiwriter {

namespace {

// Length-prefixed, so no field value can imitate a separator.
void AppendField(std::string& key, const std::string& field) {
  key += std::to_string(field.size());
  key += ':';
  key += field;
}

void AppendReference(std::string& key, const api::ObjectReference& ref) {
  AppendField(key, ref.kind);
  AppendField(key, ref.api_version);
  AppendField(key, ref.namespace_);
  AppendField(key, ref.name);
  AppendField(key, ref.uid);
  AppendField(key, ref.field_path);
}

}  // namespace

std::string EventAggregator::AggregationKey(const api::Event& event) {
  std::string key;
  AppendField(key, event.type);
  AppendField(key, event.reason);
  AppendField(key, event.action);
  AppendField(key, event.reporting_controller);
  AppendField(key, event.reporting_instance);
  AppendField(key, event.note);
  AppendReference(key, event.regarding);
  key += event.related ? 'r' : '-';
  if (event.related) AppendReference(key, *event.related);
  return key;
}

EventAggregator::Recorded EventAggregator::Record(const api::Event& event, util::TimePoint now) {
  std::string key = AggregationKey(event);
  auto found = by_key_.find(key);
  if (found == by_key_.end()) {
    uint64_t id = next_id_++;
    Entry e;
    e.key = key;
    e.event = event;
    e.event.series.reset();
    e.last_observed = now;
    entries_.emplace(id, std::move(e));
    by_key_.emplace(std::move(key), id);
    return {id, true};
  }
  uint64_t id = found->second;
  Entry& e = entries_.at(id);
  e.last_observed = now;
  e.finishing = false;  // occurring again: the series goes on
  std::optional<api::Time> observed = event.event_time;
  if (!e.event.series) {
    e.event.series = api::EventSeries{2, observed};
    return {id, true};
  }
  if (e.event.series->count < INT32_MAX) ++e.event.series->count;
  e.event.series->last_observed_time = observed;
  return {id, false};
}

std::optional<EventAggregator::Write> EventAggregator::NextWrite(uint64_t id) const {
  auto it = entries_.find(id);
  if (it == entries_.end() || !Pending(it->second)) return std::nullopt;
  const Entry& e = it->second;
  return Write{e.event, !e.created, Count(e)};
}

void EventAggregator::Written(uint64_t id, const Write& write, const api::Event* stored) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  e.created = true;
  if (stored != nullptr && !stored->metadata.name.empty()) {
    e.event.metadata.name = stored->metadata.name;
    e.event.metadata.namespace_ = stored->metadata.namespace_;
  }
  e.written_count = std::max(e.written_count, write.count);
  e.refresh = false;
  if (e.finishing && !Pending(e)) Erase(it);
}

void EventAggregator::Drop(uint64_t id) {
  auto it = entries_.find(id);
  if (it != entries_.end()) Erase(it);
}

std::vector<uint64_t> EventAggregator::FinishSeries(util::TimePoint now) {
  std::vector<uint64_t> to_write;
  for (auto it = entries_.begin(); it != entries_.end();) {
    Entry& e = it->second;
    if (e.last_observed + finish_after_ >= now) {
      ++it;
      continue;
    }
    if (e.event.series && Pending(e)) {
      e.finishing = true;
      to_write.push_back(it->first);
      ++it;
      continue;
    }
    auto next = std::next(it);
    Erase(it);
    it = next;
  }
  std::sort(to_write.begin(), to_write.end());
  return to_write;
}

std::vector<uint64_t> EventAggregator::RefreshSeries() {
  std::vector<uint64_t> ids;
  for (auto& [id, e] : entries_) {
    if (!e.event.series) continue;
    e.refresh = true;
    ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<uint64_t> EventAggregator::Unwritten() const {
  std::vector<uint64_t> ids;
  for (const auto& [id, e] : entries_) {
    if (Pending(e)) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

void EventAggregator::Erase(std::unordered_map<uint64_t, Entry>::iterator it) {
  by_key_.erase(it->second.key);
  entries_.erase(it);
}

}  // namespace ksched::scheduler::apiwriter
