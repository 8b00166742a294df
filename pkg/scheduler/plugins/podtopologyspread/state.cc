#include "pkg/scheduler/plugins/podtopologyspread/state.h"

#include <algorithm>

namespace ksched::scheduler::plugins::podtopologyspread {

DomainMatches::DomainMatches(const SpreadCounter& counter, size_t c)
    : index_(counter.index(c)), count_(counter.domain_pods(c).begin(), counter.domain_pods(c).end()) {
  const std::vector<int32_t>& nodes = counter.domain_nodes(c);
  eligible_.resize(nodes.size());
  for (size_t d = 0; d < nodes.size(); ++d) {
    if (nodes[d] <= 0) continue;
    eligible_[d] = 1;
    ++num_domains_;
    min_ = std::min(min_, count_[d]);
  }
}

int64_t DomainMatches::Count(std::string_view value) const {
  const int32_t id = index_->Find(value);
  return id < 0 || !eligible_[id] ? 0 : count_[id];
}

void DomainMatches::BuildHistogram() {
  histogram_.clear();
  for (size_t d = 0; d < count_.size(); ++d) {
    if (eligible_[d]) ++histogram_[count_[d]];
  }
  histogram_built_ = true;
}

void DomainMatches::Add(const std::string& value, int64_t delta) {
  if (!histogram_built_) BuildHistogram();
  int32_t id = index_->Find(value);
  if (id < 0) {
    // A value the counted nodes did not have: extend a private copy.
    auto copy = std::make_shared<ValueIndex>(*index_);
    id = copy->Intern(value);
    index_ = std::move(copy);
    count_.push_back(0);
    eligible_.push_back(0);
  }
  if (!eligible_[id]) {
    eligible_[id] = 1;
    ++num_domains_;
    count_[id] = delta;
    ++histogram_[delta];
    min_ = std::min(min_, delta);
    return;
  }
  const int64_t old = count_[id];
  const int64_t cur = old + delta;
  count_[id] = cur;
  auto it = histogram_.find(old);
  if (--it->second == 0) histogram_.erase(it);
  ++histogram_[cur];
  if (cur < min_) {
    min_ = cur;
  } else if (old == min_ && histogram_.count(old) == 0) {
    // The last domain at the minimum moved up.
    min_ = kNoMinimum;
    for (const auto& [count, domains] : histogram_) min_ = std::min(min_, count);
  }
}

std::map<std::string, int64_t> DomainMatches::Entries() const {
  std::map<std::string, int64_t> out;
  for (size_t d = 0; d < count_.size(); ++d) {
    if (eligible_[d]) out[index_->Value(static_cast<int32_t>(d))] = count_[d];
  }
  return out;
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
