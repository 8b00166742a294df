#include "pkg/scheduler/plugins/podtopologyspread/spread_counter.h"

#include <utility>

#include "pkg/scheduler/plugins/helper/parallel_chunks.h"

namespace ksched::scheduler::plugins::podtopologyspread {

namespace {

const std::string& EmptyValue() {
  static const std::string empty;
  return empty;
}

// Below this many changed nodes re-counting runs on the caller.
constexpr size_t kMinChangedToParallelize = 64;

}  // namespace

// ---------------------------------------------------------------- ValueIndex

ValueIndex::ValueIndex(const ValueIndex& other) : ids_(other.ids_), values_(other.values_.size()) {
  for (const auto& [value, id] : ids_) values_[id] = &value;
}

int32_t ValueIndex::Find(std::string_view value) const {
  auto it = ids_.find(value);
  return it == ids_.end() ? -1 : it->second;
}

int32_t ValueIndex::Intern(const std::string& value) {
  auto [it, inserted] = ids_.try_emplace(value, static_cast<int32_t>(values_.size()));
  if (inserted) values_.push_back(&it->first);
  return it->second;
}

// ---------------------------------------------------------------- SpreadCounter

SpreadCounter::SpreadCounter(Options options, NodeInclusion inclusion)
    : options_(std::move(options)), inclusion_(std::move(inclusion)), totals_(options_.constraints.size()) {}

void SpreadCounter::Count(const framework::NodeInfo& ni, const std::string** values, int32_t* counts) const {
  const size_t n = options_.constraints.size();
  for (size_t c = 0; c < n; ++c) {
    values[c] = nullptr;
    counts[c] = 0;
  }
  const api::Node* node = ni.node();
  if (node == nullptr) return;
  const api::StringMap& labels = node->metadata.labels;
  if (options_.require_all_topology_keys && !NodeHasAllTopologyKeys(labels, options_.constraints)) return;
  for (size_t c = 0; c < n; ++c) {
    if (!options_.counted[c]) continue;
    const Constraint& constraint = options_.constraints[c];
    if (!inclusion_.Includes(constraint, *node)) continue;
    auto it = labels.find(constraint.topology_key);
    values[c] = it == labels.end() ? &EmptyValue() : &it->second;
    counts[c] = CountMatchingPods(ni.pods(), constraint, options_.namespace_);
  }
}

int32_t SpreadCounter::Intern(size_t c, const std::string& value) {
  Totals& t = totals_[c];
  int32_t id = t.index->Find(value);
  if (id >= 0) return id;
  // States of earlier cycles may hold the index: publish a new one.
  if (t.index.use_count() != 1) t.index = std::make_shared<ValueIndex>(*t.index);
  id = t.index->Intern(value);
  ++interned_;
  t.nodes.push_back(0);
  t.pods.push_back(0);
  return id;
}

void SpreadCounter::Remove(size_t slot) {
  const size_t n = options_.constraints.size();
  for (size_t c = 0; c < n; ++c) {
    int32_t& d = slot_domain_[slot * n + c];
    if (d < 0) continue;
    if (--totals_[c].nodes[d] == 0) --live_domains_;
    totals_[c].pods[d] -= slot_count_[slot * n + c];
    d = -1;
    slot_count_[slot * n + c] = 0;
  }
  slot_node_[slot] = nullptr;
  slot_generation_[slot] = 0;
}

void SpreadCounter::Sync(const framework::NodeInfoList& nodes, util::Parallelizer& parallelizer) {
  const size_t n = options_.constraints.size();
  for (size_t i = nodes.size(); i < slot_node_.size(); ++i) Remove(i);
  slot_node_.resize(nodes.size(), nullptr);
  slot_generation_.resize(nodes.size(), 0);
  slot_domain_.resize(nodes.size() * n, -1);
  slot_count_.resize(nodes.size() * n, 0);

  std::vector<size_t> changed;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int64_t generation = nodes[i]->generation();
    // Generation 0 is a NodeInfo that never saw a mutation: always re-count.
    if (slot_node_[i] != nodes[i] || slot_generation_[i] != generation || generation == 0) changed.push_back(i);
  }
  last_recounted_ = changed.size();
  if (changed.empty()) return;

  std::vector<const std::string*> values(changed.size() * n);
  std::vector<int32_t> counts(changed.size() * n);
  auto count_range = [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) Count(*nodes[changed[k]], &values[k * n], &counts[k * n]);
  };
  if (changed.size() < kMinChangedToParallelize) {
    count_range(0, changed.size());
  } else {
    helper::ParallelChunks chunks(parallelizer, static_cast<int>(changed.size()));
    chunks.Run([&](int, int begin, int end) { count_range(begin, end); });
  }

  for (size_t k = 0; k < changed.size(); ++k) {
    const size_t slot = changed[k];
    Remove(slot);
    for (size_t c = 0; c < n; ++c) {
      const std::string* value = values[k * n + c];
      if (value == nullptr) continue;
      const int32_t d = Intern(c, *value);
      if (totals_[c].nodes[d]++ == 0) ++live_domains_;
      totals_[c].pods[d] += counts[k * n + c];
      slot_domain_[slot * n + c] = d;
      slot_count_[slot * n + c] = counts[k * n + c];
    }
    slot_node_[slot] = nodes[slot];
    slot_generation_[slot] = nodes[slot]->generation();
  }
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
