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
    : options_(std::move(options)),
      inclusion_(std::move(inclusion)),
      totals_(options_.constraints.size()),
      slots_(std::make_shared<NodeSlots>(options_.constraints.size())) {}

void SpreadCounter::Count(const framework::NodeInfo& ni, Contribution* out) const {
  const size_t n = options_.constraints.size();
  for (size_t c = 0; c < n; ++c) out[c] = Contribution{};
  const api::Node* node = ni.node();
  if (node == nullptr) return;
  const api::StringMap& labels = node->metadata.labels;
  bool has_all_keys = true;
  for (size_t c = 0; c < n; ++c) {
    auto it = labels.find(options_.constraints[c].topology_key);
    if (it == labels.end()) {
      has_all_keys = false;
    } else {
      out[c].label = &it->second;
    }
  }
  if (options_.require_all_topology_keys && !has_all_keys) return;
  for (size_t c = 0; c < n; ++c) {
    if (!options_.counted[c]) continue;
    const Constraint& constraint = options_.constraints[c];
    if (!inclusion_.Includes(constraint, *node)) continue;
    out[c].domain = out[c].label != nullptr ? out[c].label : &EmptyValue();
    out[c].count = CountMatchingPods(ni.pods(), constraint, options_.namespace_);
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
  t.refs.push_back(0);
  return id;
}

void SpreadCounter::Ref(size_t c, int32_t id, int32_t delta) {
  if (id < 0) return;
  int32_t& refs = totals_[c].refs[id];
  if (refs == 0) ++live_values_;
  refs += delta;
  if (refs == 0) --live_values_;
}

NodeSlots& SpreadCounter::MutableSlots() {
  if (slots_.use_count() != 1) slots_ = std::make_shared<NodeSlots>(*slots_);
  return *slots_;
}

void SpreadCounter::Remove(size_t slot) {
  const size_t n = options_.constraints.size();
  for (size_t c = 0; c < n; ++c) {
    int32_t& d = slot_domain_[slot * n + c];
    if (slot < slots_->num_slots()) Ref(c, slots_->value(static_cast<int32_t>(slot), c), -1);
    if (d < 0) continue;
    --totals_[c].nodes[d];
    Ref(c, d, -1);
    totals_[c].pods[d] -= slot_count_[slot * n + c];
    d = -1;
    slot_count_[slot * n + c] = 0;
  }
  slot_node_[slot] = nullptr;
  slot_generation_[slot] = 0;
}

void SpreadCounter::Sync(const framework::NodeInfoList& nodes, util::Parallelizer& parallelizer) {
  const size_t n = options_.constraints.size();
  bool relocated = false;  // some slot holds another NodeInfo: rebuild the address table
  if (slots_->num_slots() != nodes.size()) {
    for (size_t i = nodes.size(); i < slot_node_.size(); ++i) Remove(i);
    MutableSlots().Resize(nodes.size());
    relocated = true;
  }
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
  if (changed.empty()) {
    if (relocated) MutableSlots().Rebuild();
    return;
  }

  std::vector<Contribution> contributions(changed.size() * n);
  auto count_range = [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) Count(*nodes[changed[k]], &contributions[k * n]);
  };
  if (changed.size() < kMinChangedToParallelize) {
    count_range(0, changed.size());
  } else {
    helper::ParallelChunks chunks(parallelizer, static_cast<int>(changed.size()));
    chunks.Run([&](int, int begin, int end) { count_range(begin, end); });
  }

  std::vector<int32_t> ids(n);
  for (size_t k = 0; k < changed.size(); ++k) {
    const size_t slot = changed[k];
    Remove(slot);
    bool values_changed = slots_->node(slot) != nodes[slot];
    for (size_t c = 0; c < n; ++c) {
      const Contribution& contribution = contributions[k * n + c];
      int32_t& id = ids[c];
      if (contribution.label == nullptr) {
        id = NodeSlots::kNoValue;
      } else if (!options_.counted[c]) {
        id = NodeSlots::kNotInterned;
      } else {
        id = Intern(c, *contribution.label);
      }
      Ref(c, id, +1);
      values_changed = values_changed || slots_->value(static_cast<int32_t>(slot), c) != id;
      if (contribution.domain == nullptr) continue;
      const int32_t d = Intern(c, *contribution.domain);
      ++totals_[c].nodes[d];
      Ref(c, d, +1);
      totals_[c].pods[d] += contribution.count;
      slot_domain_[slot * n + c] = d;
      slot_count_[slot * n + c] = contribution.count;
    }
    if (values_changed) {
      NodeSlots& slots = MutableSlots();
      relocated = relocated || slots.node(slot) != nodes[slot];
      slots.SetNode(slot, nodes[slot]);
      for (size_t c = 0; c < n; ++c) slots.SetValue(slot, c, ids[c]);
    }
    slot_node_[slot] = nodes[slot];
    slot_generation_[slot] = nodes[slot]->generation();
  }
  if (relocated) MutableSlots().Rebuild();
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
