#include "pkg/scheduler/attempt_record.h"

#include <algorithm>
#include <utility>

namespace ksched::scheduler {

namespace {

std::string RecordKey(std::string_view namespace_, std::string_view name) {
  std::string key(namespace_);
  key += '/';
  key += name;
  return key;
}

// Adds `n` to the (plugin, reason) count; few distinct reasons per cycle,
// so a linear search beats hashing.
void CountReason(std::vector<FilterCount>& counts, const std::string& plugin, const std::string& reason, int n) {
  for (FilterCount& c : counts) {
    if (c.reason == reason && c.plugin == plugin) {
      c.nodes += n;
      return;
    }
  }
  counts.push_back(FilterCount{plugin, reason, n});
}

}  // namespace

size_t Attempt::AddTopNode(std::string_view node, int64_t total) {
  NodeScoreRow r;
  r.name_begin = static_cast<uint32_t>(top_node_names.size());
  r.name_size = static_cast<uint32_t>(node.size());
  r.total = total;
  top_node_names.append(node);
  top_nodes.push_back(r);
  top_raw.resize(top_nodes.size() * NumRawScores(), 0);
  top_normalized.resize(top_nodes.size() * NumScorePlugins(), 0);
  return top_nodes.size() - 1;
}

void Attempt::SetScore(size_t row, size_t column, int64_t raw, int64_t normalized) {
  const int64_t clamped = std::clamp<int64_t>(normalized, 0, UINT8_MAX);
  top_normalized[row * NumScorePlugins() + column] = static_cast<uint8_t>(clamped);
  const int32_t raw_column = score_columns->RawColumn(column);
  if (raw_column >= 0) top_raw[row * NumRawScores() + static_cast<size_t>(raw_column)] = raw;
}

AttemptRecord::AttemptRecord(size_t capacity, size_t top_nodes, const util::Clock& clock)
    : capacity_(std::max<size_t>(capacity, 1)), top_nodes_(top_nodes), clock_(clock) {}

void Attempt::Clear() {
  namespace_.clear();
  name.clear();
  uid.clear();
  profile.clear();
  cycle = 0;
  time = {};
  result = {};
  node.clear();
  message.clear();
  nominated_node.clear();
  victims.clear();
  num_all_nodes = 0;
  evaluated_nodes = 0;
  feasible_nodes = 0;
  filter_counts.clear();
  score_columns.reset();
  scored_nodes = 0;
  top_nodes.clear();
  top_node_names.clear();
  top_raw.clear();
  top_normalized.clear();
}

Attempt& AttemptRecord::StartBuilding() {
  if (building_.empty()) {
    if (spare_.empty()) {
      building_.emplace_back();
      return building_.front();
    }
    building_.splice(building_.begin(), spare_);
  }
  building_.front().Clear();
  return building_.front();
}

void AttemptRecord::ObserveFilter(const api::Pod& pod, const framework::NodeInfoList& feasible,
                                  const framework::NodeToStatus& rejected) {
  Attempt& b = StartBuilding();
  building_uid_ = pod.metadata.uid;
  b.feasible_nodes = static_cast<int>(feasible.size());
  for (const auto& [node, status] : rejected.ExplicitStatuses()) {
    for (const std::string& r : status.reasons()) CountReason(b.filter_counts, status.plugin(), r, 1);
  }
  explicit_statuses_ = static_cast<int>(rejected.Len());
  const framework::Status& absent = rejected.AbsentNodesStatus();
  absent_plugin_ = absent.plugin();
  absent_reasons_ = absent.reasons();
  std::lock_guard<std::mutex> l(mu_);
  in_cycle_uid_ = pod.metadata.uid;
  cycle_victims_.clear();
}

void AttemptRecord::ObserveScores(const api::Pod& pod, const ScoreView& scores) {
  if (building_uid_ != pod.metadata.uid || building_.empty()) return;
  Attempt& b = building_.front();
  b.score_columns = Columns(scores.plugins, scores.weights, scores.raw_normalized);
  b.scored_nodes = static_cast<int>(scores.nodes.size());
  // The best k in node order: a node enters only with a strictly higher
  // total than the worst kept, so among equal totals the earlier stays.
  const int64_t* totals = scores.totals.data();
  const size_t n = std::min(scores.nodes.size(), scores.totals.size());
  const size_t k = std::min(top_nodes_, n);
  std::vector<size_t>& best = best_scratch_;
  best.clear();
  auto insert = [&](size_t i) {
    auto at = std::upper_bound(best.begin(), best.end(), i,
                               [&](size_t x, size_t y) { return totals[x] > totals[y]; });
    best.insert(at, i);
  };
  size_t i = 0;
  for (; i < n && best.size() < k; ++i) insert(i);
  if (!best.empty()) {
    // Most nodes are not better than the worst kept: four at a time, one
    // branch for their maximum.
    int64_t worst = totals[best.back()];
    auto consider = [&](size_t j) {
      if (totals[j] <= worst) return;
      best.pop_back();
      insert(j);
      worst = totals[best.back()];
    };
    for (; i + 4 <= n; i += 4) {
      const int64_t most = std::max(std::max(totals[i], totals[i + 1]), std::max(totals[i + 2], totals[i + 3]));
      if (most <= worst) continue;
      for (size_t j = i; j < i + 4; ++j) consider(j);
    }
    for (; i < n; ++i) consider(i);
  }
  const size_t p = scores.plugins.size();
  const size_t m = best.size();
  b.top_nodes.resize(m);
  b.top_raw.resize(m * b.NumRawScores());
  b.top_normalized.resize(m * p);
  size_t names = 0;
  for (size_t r : best) names += scores.nodes[r]->node_name().size();
  b.top_node_names.clear();
  b.top_node_names.reserve(names);
  for (size_t r = 0; r < m; ++r) {
    const size_t node = best[r];
    const std::string& name = scores.nodes[node]->node_name();
    NodeScoreRow& row = b.top_nodes[r];
    row.name_begin = static_cast<uint32_t>(b.top_node_names.size());
    row.name_size = static_cast<uint32_t>(name.size());
    row.total = totals[node];
    b.top_node_names.append(name);
    for (size_t j = 0; j < p; ++j) b.SetScore(r, j, scores.Raw(j, node), scores.Normalized(j, node));
  }
}

std::shared_ptr<const ScoreColumns> AttemptRecord::Columns(const std::vector<std::string_view>& plugins,
                                                           const std::vector<int64_t>& weights,
                                                           const std::vector<std::vector<int64_t>>& raw_normalized) {
  std::vector<int32_t>& raw_column = raw_column_scratch_;
  raw_column.clear();
  int32_t num_raw = 0;
  for (size_t j = 0; j < plugins.size(); ++j) {
    const bool normalizes = j < raw_normalized.size() && !raw_normalized[j].empty();
    raw_column.push_back(normalizes ? num_raw++ : -1);
  }
  auto same = [&](const ScoreColumns& c) {
    return c.weights == weights && c.raw_column == raw_column &&
           std::equal(c.plugins.begin(), c.plugins.end(), plugins.begin(), plugins.end());
  };
  for (auto it = columns_.rbegin(); it != columns_.rend(); ++it) {
    if (same(**it)) return *it;
  }
  auto c = std::make_shared<ScoreColumns>();
  c->plugins.assign(plugins.begin(), plugins.end());
  c->weights = weights;
  c->raw_column = raw_column;
  c->num_raw = static_cast<size_t>(num_raw);
  if (columns_.size() == kColumnsCached) columns_.erase(columns_.begin());
  columns_.push_back(c);
  return c;
}

void AttemptRecord::ObserveOutcome(const api::Pod& pod, const Outcome& outcome) {
  if (building_uid_ != pod.metadata.uid || building_.empty()) {
    // The cycle failed before Filter reported (no nodes, snapshot or
    // PreFilter error).
    StartBuilding();
    absent_reasons_.clear();
    explicit_statuses_ = 0;
  }
  building_uid_.clear();
  Attempt& a = building_.front();
  a.namespace_ = pod.metadata.namespace_;
  a.name = pod.metadata.name;
  a.uid = pod.metadata.uid;
  a.profile = outcome.profile;
  a.cycle = outcome.cycle;
  a.time = clock_.WallNow();
  a.result = outcome.scheduled ? kScheduled : outcome.unschedulable ? kUnschedulable : kError;
  a.node = outcome.node;
  a.message = outcome.message;
  a.nominated_node = outcome.nominated_node;
  a.num_all_nodes = outcome.num_all_nodes;
  if (outcome.scheduled && !a.top_nodes.empty()) {
    // Among nodes of the best total the chosen one (a random tie-break)
    // goes first.
    size_t row = 0;
    while (row < a.top_nodes.size() && a.TopNodeName(row) != outcome.node) ++row;
    if (row < a.top_nodes.size() && a.top_nodes[row].total == a.top_nodes.front().total) {
      const auto at = static_cast<ptrdiff_t>(row);
      const auto width = static_cast<ptrdiff_t>(a.NumScorePlugins());
      const auto raw_width = static_cast<ptrdiff_t>(a.NumRawScores());
      std::rotate(a.top_nodes.begin(), a.top_nodes.begin() + at, a.top_nodes.begin() + at + 1);
      std::rotate(a.top_raw.begin(), a.top_raw.begin() + at * raw_width, a.top_raw.begin() + (at + 1) * raw_width);
      std::rotate(a.top_normalized.begin(), a.top_normalized.begin() + at * width,
                  a.top_normalized.begin() + (at + 1) * width);
    }
  }
  if (outcome.scheduled) {
    a.evaluated_nodes = outcome.evaluated_nodes;
    a.feasible_nodes = outcome.feasible_nodes;
  } else {
    a.evaluated_nodes = a.feasible_nodes + explicit_statuses_;
  }
  // Nodes with no explicit status count the absent-nodes status's reasons,
  // as the FailedScheduling message does.
  const int absent = a.num_all_nodes - explicit_statuses_ - a.feasible_nodes;
  if (absent > 0) {
    for (const std::string& r : absent_reasons_) CountReason(a.filter_counts, absent_plugin_, r, absent);
  }
  std::sort(a.filter_counts.begin(), a.filter_counts.end(), [](const FilterCount& x, const FilterCount& y) {
    if (x.nodes != y.nodes) return x.nodes > y.nodes;
    if (x.reason != y.reason) return x.reason < y.reason;
    return x.plugin < y.plugin;
  });
  std::string key = RecordKey(a.namespace_, a.name);
  const util::TimePoint now = clock_.Now();
  std::lock_guard<std::mutex> l(mu_);
  if (in_cycle_uid_ == a.uid) a.victims = std::move(cycle_victims_);
  in_cycle_uid_.clear();
  cycle_victims_.clear();
  PublishLocked(std::move(key));
  recent_.push_back(now);
  if (recent_.size() > kRateWindowAttempts) recent_.pop_front();
  ++total_;
}

void AttemptRecord::ObservePreemptionVictim(const api::Pod& preemptor, const api::Pod& victim, std::string_view node) {
  VictimRef v{victim.metadata.namespace_, victim.metadata.name, std::string(node)};
  std::lock_guard<std::mutex> l(mu_);
  if (in_cycle_uid_ == preemptor.metadata.uid) {
    cycle_victims_.push_back(std::move(v));
    return;
  }
  auto it = by_key_.find(RecordKey(preemptor.metadata.namespace_, preemptor.metadata.name));
  if (it == by_key_.end() || it->second->uid != preemptor.metadata.uid) return;
  it->second->victims.push_back(std::move(v));
}

void AttemptRecord::ObserveBindingFailure(const api::Pod& pod, std::string_view message) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_key_.find(RecordKey(pod.metadata.namespace_, pod.metadata.name));
  if (it == by_key_.end() || it->second->uid != pod.metadata.uid || it->second->result != kScheduled) return;
  it->second->result = kBindingFailed;
  it->second->message = message;
}

void AttemptRecord::PublishLocked(std::string key) {
  // A replaced or evicted attempt's node is kept (one at most) for the
  // next attempt, with its buffers.
  auto retire = [&](Lru::iterator at) {
    if (spare_.empty()) {
      spare_.splice(spare_.begin(), lru_, at);
    } else {
      lru_.erase(at);
    }
  };
  auto it = by_key_.find(key);
  if (it != by_key_.end()) {
    retire(it->second);
    by_key_.erase(it);
  }
  // The attempt's list node moves; the Attempt itself is not copied.
  lru_.splice(lru_.begin(), building_);
  by_key_.emplace(std::move(key), lru_.begin());
  while (lru_.size() > capacity_) {
    by_key_.erase(RecordKey(lru_.back().namespace_, lru_.back().name));
    retire(std::prev(lru_.end()));
  }
}

std::optional<Attempt> AttemptRecord::Get(std::string_view namespace_, std::string_view name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_key_.find(RecordKey(namespace_, name));
  if (it == by_key_.end()) return std::nullopt;
  return *it->second;
}

size_t AttemptRecord::Size() const {
  std::lock_guard<std::mutex> l(mu_);
  return lru_.size();
}

size_t AttemptRecord::AttemptsWithin(util::Duration window) const {
  const util::TimePoint since = clock_.Now() - window;
  std::lock_guard<std::mutex> l(mu_);
  auto first = std::lower_bound(recent_.begin(), recent_.end(), since);
  return static_cast<size_t>(recent_.end() - first);
}

uint64_t AttemptRecord::TotalAttempts() const {
  std::lock_guard<std::mutex> l(mu_);
  return total_;
}

}  // namespace ksched::scheduler
