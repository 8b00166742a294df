#include "pkg/scheduler/apiwriter/event_aggregator.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <string_view>

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

// Reads back what AppendField wrote at `pos`.
std::string ReadField(std::string_view key, size_t& pos) {
  const size_t colon = key.find(':', pos);
  const size_t size = std::stoul(std::string(key.substr(pos, colon - pos)));
  std::string field(key.substr(colon + 1, size));
  pos = colon + 1 + size;
  return field;
}

void ReadReference(std::string_view key, size_t& pos, api::ObjectReference& ref) {
  ref.kind = ReadField(key, pos);
  ref.api_version = ReadField(key, pos);
  ref.namespace_ = ReadField(key, pos);
  ref.name = ReadField(key, pos);
  ref.uid = ReadField(key, pos);
  ref.field_path = ReadField(key, pos);
}

}  // namespace

EventAggregator::Fingerprint EventAggregator::FingerprintOf(std::string_view key) {
  // Two unrelated 64-bit hashes: libstdc++'s (Murmur) and FNV-1a.
  uint64_t fnv = 0xcbf29ce484222325ULL;
  for (unsigned char c : key) fnv = (fnv ^ c) * 0x100000001b3ULL;
  return Fingerprint{std::hash<std::string_view>()(key), fnv};
}

std::string EventAggregator::AggregationKey(const api::Event& event) {
  std::string key;
  key.reserve(256);
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

api::Event EventAggregator::Rebuild(const Entry& e) {
  // The fields in AggregationKey's order.
  const WriteState& w = *e.write;
  const std::string_view key = w.key;
  size_t pos = 0;
  api::Event event;
  event.type = ReadField(key, pos);
  event.reason = ReadField(key, pos);
  event.action = ReadField(key, pos);
  event.reporting_controller = ReadField(key, pos);
  event.reporting_instance = ReadField(key, pos);
  event.note = ReadField(key, pos);
  ReadReference(key, pos, event.regarding);
  event.regarding.resource_version = w.regarding_resource_version;
  if (key[pos++] == 'r') {
    event.related.emplace();
    ReadReference(key, pos, *event.related);
    event.related->resource_version = w.related_resource_version;
  }
  event.metadata.name = e.names.get();
  event.metadata.namespace_ = e.names.get() + event.metadata.name.size() + 1;
  event.event_time = e.event_time;
  event.series = w.series;
  return event;
}

std::unique_ptr<EventAggregator::WriteState> EventAggregator::NewWriteState(std::string key,
                                                                          const api::Event& event) {
  auto w = std::make_unique<WriteState>();
  w->key = std::move(key);
  w->key.shrink_to_fit();
  w->regarding_resource_version = event.regarding.resource_version;
  if (event.related) w->related_resource_version = event.related->resource_version;
  return w;
}

EventAggregator::Recorded EventAggregator::Record(const api::Event& event, util::TimePoint now) {
  std::string key = AggregationKey(event);
  const Fingerprint fingerprint = FingerprintOf(key);
  auto [found, inserted] = by_key_.try_emplace(fingerprint, 0);
  if (inserted) {
    const uint64_t id = next_id_++;
    found->second = id;
    Entry e;
    e.fingerprint = fingerprint;
    const std::string& name = event.metadata.name;
    const std::string& namespace_ = event.metadata.namespace_;
    e.names = std::make_unique_for_overwrite<char[]>(name.size() + namespace_.size() + 2);
    std::memcpy(e.names.get(), name.c_str(), name.size() + 1);
    std::memcpy(e.names.get() + name.size() + 1, namespace_.c_str(), namespace_.size() + 1);
    e.event_time = event.event_time;
    e.last_observed = now;
    e.write = NewWriteState(std::move(key), event);
    entries_.emplace(id, std::move(e));
    return {id, true};
  }
  const uint64_t id = found->second;
  Entry& e = entries_.at(id);
  e.last_observed = now;
  e.finishing = false;  // occurring again: the series goes on
  std::optional<api::Time> observed = event.event_time;
  if (!IsSeries(e)) {
    // A series is patched, and created again if the server lost it.
    if (!e.write) e.write = NewWriteState(std::move(key), event);
    e.write->series = api::EventSeries{2, observed};
    return {id, true};
  }
  api::EventSeries& series = *e.write->series;
  if (series.count < INT32_MAX) ++series.count;
  series.last_observed_time = observed;
  return {id, false};
}

std::optional<EventAggregator::Write> EventAggregator::NextWrite(uint64_t id) const {
  auto it = entries_.find(id);
  if (it == entries_.end() || !Pending(it->second)) return std::nullopt;
  const Entry& e = it->second;
  return Write{Rebuild(e), !e.created, Count(e)};
}

void EventAggregator::Written(uint64_t id, const Write& write) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  e.created = true;
  e.written_count = std::max(e.written_count, write.count);
  e.refresh = false;
  if (e.finishing && !Pending(e)) {
    Erase(it);
    return;
  }
  // The server has a single Event: nothing rebuilds it unless it recurs.
  if (!IsSeries(e) && !Pending(e)) e.write.reset();
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
    if (IsSeries(e) && Pending(e)) {
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
    if (!IsSeries(e)) continue;
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
  by_key_.erase(it->second.fingerprint);
  entries_.erase(it);
}

}  // namespace ksched::scheduler::apiwriter
