// AttemptRecord: the daemon's bounded memory of recent scheduling attempts,
// for /debug/explain and `kubectl ksched why`. Per pod (namespace/name), the
// last attempt only:
//   - Filter's verdicts counted by plugin and reason, as the FailedScheduling
//     message counts them ("3 Insufficient cpu"), the plugin named;
//   - for the best `top_nodes` scored nodes, each Score plugin's raw,
//     normalized and weighted score (total order: weighted sum, then the
//     scheduler's node order);
//   - the outcome: node assumed, or the failure's message, the nominated node
//     and the preemption victims; the scheduling cycle and the wall time.
// At most `capacity` pods are kept; the least recently attempted goes first.
//
// It is a framework::CycleObserver: the daemon installs it as
// SchedulerOptions::observer only when --explain-record-size > 0, so with
// the record off a cycle pays one null check per hook and nothing else.
// Cost with it on: Filter's explicit statuses are walked once (the
// FailedScheduling message walks them too); the top nodes are picked from
// the framework's totals in one pass of integer comparisons, O(nodes x
// top_nodes) at worst, and only their scores are read (the framework keeps
// the raw scores of the plugins with a NormalizeScore, one integer per
// node). An attempt owns everything it holds but its ScoreColumns, shared
// with the other attempts that ran the same Score plugins: it outlives the
// snapshot and the framework's score lists. An attempt is built in place
// in its LRU list node (published by a splice, not copied), and the node
// of an evicted attempt is reused with its buffers: a full record
// allocates little more than its map entry per attempt. SchedulingBasic,
// 500 nodes: +1.8 % instructions per pod (docs/performance.md).
//
// Thread-safety: ObserveFilter, ObserveScores and ObserveOutcome come from
// the one scheduling thread and build the attempt outside the lock;
// ObserveOutcome publishes it under `mu_`. ObservePreemptionVictim,
// ObserveBindingFailure and every reader may run on any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/scheduler/framework/cycle_observer.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler {

struct FilterCount {
  std::string plugin;  // "" for a status without a plugin
  std::string reason;
  int nodes = 0;
};

// The Score plugins of a cycle (profile order) and their weights.
// Immutable once built: the record shares one per distinct list among its
// attempts.
struct ScoreColumns {
  std::vector<std::string> plugins;
  std::vector<int64_t> weights;
  // Per plugin, its column among the raw scores an attempt keeps, or -1 for
  // a plugin without NormalizeScore, whose raw score is its normalized one.
  // Empty: every plugin keeps its raw score.
  std::vector<int32_t> raw_column;
  size_t num_raw = 0;  // the columns >= 0 in raw_column

  size_t NumRaw() const { return raw_column.empty() ? plugins.size() : num_raw; }
  int32_t RawColumn(size_t plugin) const {
    return raw_column.empty() ? static_cast<int32_t>(plugin) : raw_column[plugin];
  }
};

// One of an attempt's best scored nodes. Its name is at
// [name_begin, name_begin + name_size) of Attempt::top_node_names (one
// string per attempt rather than one per row).
struct NodeScoreRow {
  uint32_t name_begin = 0;
  uint32_t name_size = 0;
  int64_t total = 0;  // sum of the weighted scores
};

struct VictimRef {
  std::string namespace_;
  std::string name;
  std::string node;
};

inline constexpr std::string_view kScheduled = "Scheduled";
inline constexpr std::string_view kUnschedulable = "Unschedulable";
inline constexpr std::string_view kError = "Error";
inline constexpr std::string_view kBindingFailed = "BindingFailed";

// A field added here must be reset by Clear() too (the record reuses an
// evicted attempt's buffers).
struct Attempt {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string profile;
  int64_t cycle = 0;
  util::WallTime time{};
  // "Scheduled" (assumed on `node`), "Unschedulable", "Error" or
  // "BindingFailed" (assumed, then its binding cycle failed: `message`):
  // one of the k* constants below (static storage).
  std::string_view result;
  std::string node;
  std::string message;
  std::string nominated_node;
  std::vector<VictimRef> victims;
  int num_all_nodes = 0;
  int evaluated_nodes = 0;
  int feasible_nodes = 0;
  // Sorted by nodes (descending), then reason.
  std::vector<FilterCount> filter_counts;
  // The Score plugins that ran; null when Score did not run.
  std::shared_ptr<const ScoreColumns> score_columns;
  int scored_nodes = 0;
  std::vector<NodeScoreRow> top_nodes;  // best first; the chosen node first among equals
  std::string top_node_names;           // the rows' names, back to back
  // Per row, per column of score_columns: the normalized score (weighted =
  // normalized * weight), and the raw one of the plugins with a
  // NormalizeScore (score_columns->RawColumn). Normalized scores lie in
  // [kMinNodeScore, kMaxNodeScore] (the framework fails a cycle with any
  // other), so a byte holds each: 1,000 attempts of 10 rows and 8 plugins,
  // 4 of them normalizing, keep 0.8 MB less than with two int64 per cell.
  std::vector<int64_t> top_raw;
  std::vector<uint8_t> top_normalized;

  size_t NumScorePlugins() const { return score_columns ? score_columns->plugins.size() : 0; }
  std::string_view TopNodeName(size_t row) const {
    const NodeScoreRow& r = top_nodes[row];
    return std::string_view(top_node_names).substr(r.name_begin, r.name_size);
  }
  size_t NumRawScores() const { return score_columns ? score_columns->NumRaw() : 0; }
  int64_t Raw(size_t row, size_t column) const {
    const int32_t raw = score_columns->RawColumn(column);
    return raw < 0 ? Normalized(row, column) : top_raw[row * NumRawScores() + static_cast<size_t>(raw)];
  }
  int64_t Normalized(size_t row, size_t column) const { return top_normalized[row * NumScorePlugins() + column]; }
  // Empties every field, keeping the strings' and vectors' capacity.
  void Clear();
  // Appends a row (after score_columns is set), its scores zero, and
  // returns its index.
  size_t AddTopNode(std::string_view node, int64_t total);
  // Sets one plugin's scores of a row; `normalized` is clamped to [0, 255].
  // `raw` is dropped for a plugin without NormalizeScore (it is
  // `normalized`).
  void SetScore(size_t row, size_t column, int64_t raw, int64_t normalized);
};

class AttemptRecord final : public framework::CycleObserver {
 public:
  static constexpr size_t kDefaultTopNodes = 10;
  // Attempts remembered for the rate (a ring of their times).
  static constexpr size_t kRateWindowAttempts = 4096;

  // `capacity` > 0 pods; `clock` outlives the record.
  AttemptRecord(size_t capacity, size_t top_nodes, const util::Clock& clock);

  void ObserveFilter(const api::Pod& pod, const framework::NodeInfoList& feasible,
                     const framework::NodeToStatus& rejected) override;
  void ObserveScores(const api::Pod& pod, const ScoreView& scores) override;
  void ObserveOutcome(const api::Pod& pod, const Outcome& outcome) override;
  void ObservePreemptionVictim(const api::Pod& preemptor, const api::Pod& victim, std::string_view node) override;
  void ObserveBindingFailure(const api::Pod& pod, std::string_view message) override;

  // The pod's last attempt; nullopt when none is remembered. O(1).
  std::optional<Attempt> Get(std::string_view namespace_, std::string_view name) const;
  // Pods remembered.
  size_t Size() const;
  // Attempts whose outcome was observed in the last `window` (at most
  // kRateWindowAttempts counted) and since the start.
  size_t AttemptsWithin(util::Duration window) const;
  uint64_t TotalAttempts() const;

 private:
  using Lru = std::list<Attempt>;
  // Resets the attempt being built (a new one when none is) and returns it.
  Attempt& StartBuilding();
  // Moves the built attempt (building_'s node) to the front of lru_ as the
  // last attempt of the pod `key` ("ns/name"). Holds mu_.
  void PublishLocked(std::string key);
  // The shared columns equal to (plugins, weights), built on a miss.
  // `raw_normalized` as in ScoreView: empty for a plugin without NormalizeScore.
  std::shared_ptr<const ScoreColumns> Columns(const std::vector<std::string_view>& plugins,
                                              const std::vector<int64_t>& weights,
                                              const std::vector<std::vector<int64_t>>& raw_normalized);

  const size_t capacity_;
  const size_t top_nodes_;
  const util::Clock& clock_;

  // The attempt being built by the scheduling thread, in a one-node list
  // that ObserveOutcome splices into lru_ (no lock: only that thread
  // touches it between ObserveFilter and ObserveOutcome).
  Lru building_;
  // At most one attempt's node, replaced or evicted from lru_, reused with
  // its buffers by the next StartBuilding (scheduling thread only: only
  // ObserveOutcome, under mu_, and StartBuilding touch it).
  Lru spare_;
  // ObserveScores' indexes of the best nodes (scheduling thread only).
  std::vector<size_t> best_scratch_;
  // Columns' raw_column being matched (scheduling thread only).
  std::vector<int32_t> raw_column_scratch_;
  // The distinct ScoreColumns seen lately, most recent last (scheduling
  // thread only); at most kColumnsCached.
  static constexpr size_t kColumnsCached = 8;
  std::vector<std::shared_ptr<const ScoreColumns>> columns_;
  std::string building_uid_;
  // Absent-nodes status of the cycle's Filter, counted at the outcome
  // (which knows how many nodes there were).
  std::string absent_plugin_;
  std::vector<std::string> absent_reasons_;
  int explicit_statuses_ = 0;

  mutable std::mutex mu_;
  Lru lru_;  // most recent first
  std::unordered_map<std::string, Lru::iterator> by_key_;  // "ns/name"
  // The pod whose cycle is between Filter and its outcome, and the victims
  // reported for it meanwhile (synchronous preemption runs in PostFilter);
  // later victims (asynchronous preemption) join its published attempt.
  std::string in_cycle_uid_;
  std::vector<VictimRef> cycle_victims_;
  std::deque<util::TimePoint> recent_;  // outcome times, oldest first
  uint64_t total_ = 0;
};

}  // namespace ksched::scheduler
