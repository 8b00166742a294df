#include "pkg/scheduler/framework/runtime/framework.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "pkg/log/log.h"
#include "pkg/util/cycle_clock.h"
#include "pkg/util/seconds.h"
#include "spdlog/fmt/fmt.h"

namespace ksched::scheduler::framework::runtime {

namespace {

using config::ExtensionPoint;

// kube's Go %q of a plugin name.
std::string Quoted(std::string_view s) { return fmt::format("\"{}\"", s); }

Status WrapError(std::string_view prefix, const Status& s) {
  return Status::Error(fmt::format("{}: {}", prefix, s.Message()));
}

// kube's errors of a failed NormalizeScore and of a normalized score out of
// range.
Status NormalizeError(std::string_view plugin, const Status& s) {
  return WrapError("running Normalize on Score plugins",
                   WrapError(fmt::format("plugin {} failed with", Quoted(plugin)), s));
}
Status ScoreRangeError(std::string_view plugin, int64_t score) {
  return Status::Error(fmt::format("applying score defaultWeights on Score plugins: plugin {} returns an invalid score "
                                   "{}, it should in the range of [{}, {}] after normalizing",
                                   Quoted(plugin), score, kMinNodeScore, kMaxNodeScore));
}

// An insertion-ordered set of names.
class OrderedNames {
 public:
  void Insert(const std::string& s) {
    if (set_.insert(s).second) list_.push_back(s);
  }
  bool Has(const std::string& s) const { return set_.count(s) > 0; }
  const std::vector<std::string>& list() const { return list_; }

 private:
  std::set<std::string> set_;
  std::vector<std::string> list_;
};

// The extension points a framework builds lists for, with the interface
// test and kube's type name for error messages.
struct PointSpec {
  ExtensionPoint point;
  const char* type_name;
  bool (*implements)(Plugin*);
};

template <class T>
bool Implements(Plugin* p) {
  return dynamic_cast<T*>(p) != nullptr;
}

const std::vector<PointSpec>& PointSpecs() {
  static const std::vector<PointSpec> specs = {
      {ExtensionPoint::kPreEnqueue, "PreEnqueuePlugin", &Implements<PreEnqueuePlugin>},
      {ExtensionPoint::kQueueSort, "QueueSortPlugin", &Implements<QueueSortPlugin>},
      {ExtensionPoint::kPreFilter, "PreFilterPlugin", &Implements<PreFilterPlugin>},
      {ExtensionPoint::kFilter, "FilterPlugin", &Implements<FilterPlugin>},
      {ExtensionPoint::kPostFilter, "PostFilterPlugin", &Implements<PostFilterPlugin>},
      {ExtensionPoint::kPreScore, "PreScorePlugin", &Implements<PreScorePlugin>},
      {ExtensionPoint::kScore, "ScorePlugin", &Implements<ScorePlugin>},
      {ExtensionPoint::kReserve, "ReservePlugin", &Implements<ReservePlugin>},
      {ExtensionPoint::kPermit, "PermitPlugin", &Implements<PermitPlugin>},
      {ExtensionPoint::kPreBind, "PreBindPlugin", &Implements<PreBindPlugin>},
      {ExtensionPoint::kBind, "BindPlugin", &Implements<BindPlugin>},
      {ExtensionPoint::kPostBind, "PostBindPlugin", &Implements<PostBindPlugin>},
  };
  return specs;
}

template <class T>
std::vector<T*> Cast(const std::vector<Plugin*>& in) {
  std::vector<T*> out;
  out.reserve(in.size());
  for (Plugin* p : in) out.push_back(dynamic_cast<T*>(p));
  return out;
}

template <class T>
std::vector<std::string> NamesOf(const std::vector<T*>& plugins) {
  std::vector<std::string> names;
  names.reserve(plugins.size());
  for (const T* p : plugins) names.emplace_back(p->Name());
  return names;
}

// The Score plugins PreScore did not skip, in run order, with their weights.
struct ScorePluginsToRun {
  std::vector<InstrumentedScorePlugin*> plugins;
  std::vector<int64_t> weights;
};

ScorePluginsToRun NonSkippedScorePlugins(const std::vector<InstrumentedScorePlugin*>& all,
                                         const std::vector<int64_t>& weights, const PluginSet& skip) {
  ScorePluginsToRun run;
  for (size_t i = 0; i < all.size(); ++i) {
    if (skip.Has(all[i]->Name())) continue;
    run.plugins.push_back(all[i]);
    run.weights.push_back(weights[i]);
  }
  return run;
}

// The calling thread's per-plugin score lists, resized to p lists of n
// entries. Kept across cycles: RunScorePlugins sets every entry before it
// reads one, so a cycle allocates and clears nothing.
std::vector<NodeScoreList>& ThreadScoreLists(size_t p, size_t n) {
  thread_local std::vector<NodeScoreList> lists;
  lists.resize(p);
  for (NodeScoreList& list : lists) list.resize(n);
  return lists;
}

bool InScoreRange(int64_t score) { return score >= kMinNodeScore && score <= kMaxNodeScore; }

// totals[i] += scores[i].score * weight for each of the n nodes; whether
// every score was InScoreRange. (A function of its own so that n stays in
// a register: the caller's is captured by reference, and each store to
// totals would reload it.)
bool AddWeightedScores(const NodeScore* scores, int64_t weight, size_t n, int64_t* totals) {
  bool all_in_range = true;
#pragma GCC unroll 2
  for (size_t i = 0; i < n; ++i) {
    all_in_range &= InScoreRange(scores[i].score);
    totals[i] += scores[i].score * weight;
  }
  return all_in_range;
}

// The raw scores of the plugins with a NormalizeScore, kept for a
// CycleObserver (which may read any of them): one list per plugin, empty
// for a plugin without NormalizeScore. Reused, so it allocates only when a
// cycle has more plugins or nodes than any before on this thread.
std::vector<std::vector<int64_t>>& ThreadRawScores(size_t p) {
  thread_local std::vector<std::vector<int64_t>> lists;
  lists.resize(p);
  for (std::vector<int64_t>& list : lists) list.clear();
  return lists;
}

}  // namespace

// ---------------------------------------------------------------- construction

struct Framework::PluginLists {
  std::vector<PreEnqueuePlugin*> pre_enqueue;
  std::vector<QueueSortPlugin*> queue_sort;
  std::vector<PreFilterPlugin*> pre_filter;
  std::vector<FilterPlugin*> filter;
  std::vector<PostFilterPlugin*> post_filter;
  std::vector<PreScorePlugin*> pre_score;
  std::vector<ScorePlugin*> score;
  std::vector<ReservePlugin*> reserve;
  std::vector<PermitPlugin*> permit;
  std::vector<PreBindPlugin*> pre_bind;
  std::vector<BindPlugin*> bind;
  std::vector<PostBindPlugin*> post_bind;
};

Framework::Framework(FrameworkOptions options) : options_(std::move(options)) {}

Framework::~Framework() = default;

util::StatusOr<std::unique_ptr<Framework>> Framework::New(const Registry& registry,
                                                          const config::KubeSchedulerProfile& profile,
                                                          FrameworkOptions options) {
  if (options.snapshot_lister == nullptr) return util::InvalidArgument("framework: snapshot_lister is required");
  if (options.parallelizer == nullptr) return util::InvalidArgument("framework: parallelizer is required");
  if (options.clock == nullptr) return util::InvalidArgument("framework: clock is required");
  std::unique_ptr<Framework> f(new Framework(std::move(options)));
  if (f->options_.listers == nullptr) f->options_.listers = &f->empty_listers_;
  if (f->options_.metrics == nullptr) f->options_.metrics = &f->nop_metrics_;
  if (f->options_.waiting_pods == nullptr) f->options_.waiting_pods = std::make_shared<WaitingPodsMap>();
  if (f->options_.pods_in_pre_bind == nullptr) f->options_.pods_in_pre_bind = std::make_shared<PodsInPreBind>();
  util::Status s = f->Init(registry, profile);
  if (!s.ok()) return s;
  return f;
}

util::Status Framework::Init(const Registry& registry, const config::KubeSchedulerProfile& profile) {
  profile_name_ = profile.scheduler_name.value_or("");
  percentage_of_nodes_to_score_ = profile.percentage_of_nodes_to_score;

  std::map<std::string, const config::PluginArgs*, std::less<>> args_by_name;
  for (const config::PluginConfig& pc : profile.plugin_config) {
    if (!args_by_name.emplace(pc.name, &pc.args).second) {
      return util::InvalidArgument("repeated config for plugin " + pc.name);
    }
  }

  // Instantiate every plugin enabled anywhere, once, in name order.
  static const config::PluginArgs kNoArgs;
  for (const std::string& name : config::EnabledPluginNames(profile.plugins)) {
    const PluginFactory* factory = registry.Find(name);
    if (factory == nullptr) return util::InvalidArgument(fmt::format("plugin {} does not exist", Quoted(name)));
    auto args = args_by_name.find(name);
    util::StatusOr<std::shared_ptr<Plugin>> p = (*factory)(args == args_by_name.end() ? kNoArgs : *args->second, *this);
    if (!p.ok()) {
      return util::InvalidArgument(fmt::format("initializing plugin {}: {}", Quoted(name), p.status().message()));
    }
    if (*p == nullptr) return util::InvalidArgument(fmt::format("initializing plugin {}: no plugin", Quoted(name)));
    if ((*p)->Name() != name) {
      return util::InvalidArgument(
          fmt::format("plugin {} reports the name {}", Quoted(name), Quoted((*p)->Name())));
    }
    by_name_.emplace(name, p->get());
    instances_.emplace_back(name, std::move(p).value());
  }

  PluginLists lists;
  util::Status s = ExpandMultiPoint(profile.plugins, &lists);
  if (!s.ok()) return s;

  pre_enqueue_ = lists.pre_enqueue;
  queue_sort_list_ = lists.queue_sort;
  if (queue_sort_list_.size() != 1) {
    return util::InvalidArgument(fmt::format(
        "only one queue sort plugin required for profile with scheduler name {}, but got {}",
        Quoted(profile_name_), queue_sort_list_.size()));
  }
  queue_sort_ = queue_sort_list_[0];
  if (lists.bind.empty()) {
    return util::InvalidArgument(
        fmt::format("at least one bind plugin is needed for profile with scheduler name {}", Quoted(profile_name_)));
  }
  s = ComputeScoreWeights(profile.plugins, lists.score);
  if (!s.ok()) return s;
  Instrument(lists);
  return util::Status();
}

void Framework::Instrument(const PluginLists& lists) {
  // Without a recorder no per-node duration is read, so the CycleClock's
  // calibration is not paid: `ksched simulate` runs without metrics and
  // starts once per what-if question.
  const bool time_per_node = options_.metrics != &nop_metrics_;
  instrumentation_ = Instrumentation{options_.metrics, options_.clock, nullptr, time_per_node};
  // The per-node points' slots in the per-thread cells: Filter plugin i has
  // counter i and duration series i; Score plugin j has series F + j only,
  // its wrapper adding its evaluations per cycle to score_counters[j].
  std::vector<EvaluationCounter*> filter_counters;
  std::vector<EvaluationCounter*> score_counters;
  std::vector<ThreadMetrics::DurationSeries> series;
  auto add_plugin = [&](std::string_view point, std::string_view plugin) {
    per_node_evaluations_.push_back(options_.metrics->NewEvaluationCounter(point, plugin, profile_name_));
    series.push_back({point, plugin});
    return per_node_evaluations_.back().get();
  };
  for (FilterPlugin* p : lists.filter) filter_counters.push_back(add_plugin(extension_point::kFilter, p->Name()));
  for (ScorePlugin* p : lists.score) score_counters.push_back(add_plugin(extension_point::kScore, p->Name()));
  per_node_metrics_ = std::make_unique<ThreadMetrics>(*options_.metrics, filter_counters, std::move(series),
                                                      time_per_node ? util::CycleClock::NanosPerTick() : 1.0);
  instrumentation_.per_node = per_node_metrics_.get();

  auto own = [&](auto wrapper) {
    auto* raw = wrapper.get();
    wrappers_.push_back(std::move(wrapper));
    return raw;
  };
  const Instrumentation& in = instrumentation_;
  for (PreFilterPlugin* p : lists.pre_filter) {
    pre_filter_.push_back(own(std::make_unique<InstrumentedPreFilterPlugin>(*p, in, profile_name_)));
  }
  for (size_t i = 0; i < lists.filter.size(); ++i) {
    filter_.push_back(own(std::make_unique<InstrumentedFilterPlugin>(*lists.filter[i], in, i)));
  }
  for (PostFilterPlugin* p : lists.post_filter) {
    post_filter_.push_back(own(std::make_unique<InstrumentedPostFilterPlugin>(*p, in)));
  }
  for (PreScorePlugin* p : lists.pre_score) {
    pre_score_.push_back(own(std::make_unique<InstrumentedPreScorePlugin>(*p, in, profile_name_)));
  }
  for (size_t i = 0; i < lists.score.size(); ++i) {
    score_.push_back(own(std::make_unique<InstrumentedScorePlugin>(*lists.score[i], in, lists.filter.size() + i,
                                                                    *score_counters[i])));
  }
  for (ReservePlugin* p : lists.reserve) reserve_.push_back(own(std::make_unique<InstrumentedReservePlugin>(*p, in)));
  for (PermitPlugin* p : lists.permit) permit_.push_back(own(std::make_unique<InstrumentedPermitPlugin>(*p, in)));
  for (PreBindPlugin* p : lists.pre_bind) {
    pre_bind_.push_back(own(std::make_unique<InstrumentedPreBindPlugin>(*p, in)));
  }
  for (BindPlugin* p : lists.bind) bind_.push_back(own(std::make_unique<InstrumentedBindPlugin>(*p, in)));
  for (PostBindPlugin* p : lists.post_bind) {
    post_bind_.push_back(own(std::make_unique<InstrumentedPostBindPlugin>(*p, in)));
  }
  pre_filter_subsets_ = std::make_unique<PluginSubsets>(NamesOf(pre_filter_));
  pre_score_subsets_ = std::make_unique<PluginSubsets>(NamesOf(pre_score_));
  pre_bind_subsets_ = std::make_unique<PluginSubsets>(NamesOf(pre_bind_));
  // A plugin skipped at PreFilter is skipped at Filter too.
  for (InstrumentedPreFilterPlugin* pl : pre_filter_) {
    uint64_t bit = 0;
    for (size_t i = 0; i < filter_.size() && i < 64; ++i) {
      if (filter_[i]->Name() == pl->Name()) bit = uint64_t{1} << i;
    }
    pre_filter_filter_bits_.push_back(bit);
  }
}

util::Status Framework::ExpandMultiPoint(const config::Plugins& plugins, PluginLists* lists) {
  const config::PluginSet& multi = plugins.multi_point;
  for (const PointSpec& spec : PointSpecs()) {
    const config::PluginSet& set = plugins.Get(spec.point);
    // The explicit list, validated.
    OrderedNames enabled;
    for (const config::Plugin& e : set.enabled) {
      auto it = by_name_.find(e.name);
      if (it == by_name_.end()) {
        return util::InvalidArgument(fmt::format("{} {} does not exist", spec.type_name, Quoted(e.name)));
      }
      if (!spec.implements(it->second)) {
        return util::InvalidArgument(
            fmt::format("plugin {} does not extend {} plugin", Quoted(e.name), spec.type_name));
      }
      if (enabled.Has(e.name)) {
        return util::InvalidArgument(
            fmt::format("plugin {} already registered as {}", Quoted(e.name), Quoted(spec.type_name)));
      }
      enabled.Insert(e.name);
    }
    std::set<std::string, std::less<>> disabled;
    for (const config::Plugin& d : set.disabled) disabled.insert(d.name);

    // multiPoint entries that apply here.
    OrderedNames from_multi;
    OrderedNames overridden;
    if (disabled.count("*") == 0) {
      for (const config::Plugin& e : multi.enabled) {
        auto it = by_name_.find(e.name);
        if (it == by_name_.end()) {
          return util::InvalidArgument(fmt::format("{} {} does not exist", spec.type_name, Quoted(e.name)));
        }
        if (!spec.implements(it->second) || disabled.count(e.name) > 0) continue;
        if (enabled.Has(e.name)) {
          // Explicit per-point configuration wins over multiPoint.
          overridden.Insert(e.name);
          continue;
        }
        if (from_multi.Has(e.name)) {
          return util::InvalidArgument(
              fmt::format("plugin {} already registered as {}", Quoted(e.name), Quoted(spec.type_name)));
        }
        from_multi.Insert(e.name);
      }
    }

    // kube's order: explicitly re-configured multiPoint plugins (in their
    // explicit order), then multiPoint ones, then the other explicit ones.
    std::vector<Plugin*> list;
    for (const std::string& n : enabled.list()) {
      if (overridden.Has(n)) list.push_back(by_name_.find(n)->second);
    }
    for (const std::string& n : from_multi.list()) list.push_back(by_name_.find(n)->second);
    for (const std::string& n : enabled.list()) {
      if (!overridden.Has(n)) list.push_back(by_name_.find(n)->second);
    }

    switch (spec.point) {
      case ExtensionPoint::kPreEnqueue: lists->pre_enqueue = Cast<PreEnqueuePlugin>(list); break;
      case ExtensionPoint::kQueueSort: lists->queue_sort = Cast<QueueSortPlugin>(list); break;
      case ExtensionPoint::kPreFilter: lists->pre_filter = Cast<PreFilterPlugin>(list); break;
      case ExtensionPoint::kFilter: lists->filter = Cast<FilterPlugin>(list); break;
      case ExtensionPoint::kPostFilter: lists->post_filter = Cast<PostFilterPlugin>(list); break;
      case ExtensionPoint::kPreScore: lists->pre_score = Cast<PreScorePlugin>(list); break;
      case ExtensionPoint::kScore: lists->score = Cast<ScorePlugin>(list); break;
      case ExtensionPoint::kReserve: lists->reserve = Cast<ReservePlugin>(list); break;
      case ExtensionPoint::kPermit: lists->permit = Cast<PermitPlugin>(list); break;
      case ExtensionPoint::kPreBind: lists->pre_bind = Cast<PreBindPlugin>(list); break;
      case ExtensionPoint::kBind: lists->bind = Cast<BindPlugin>(list); break;
      case ExtensionPoint::kPostBind: lists->post_bind = Cast<PostBindPlugin>(list); break;
      case ExtensionPoint::kMultiPoint: break;
    }
  }
  return util::Status();
}

util::Status Framework::ComputeScoreWeights(const config::Plugins& plugins, const std::vector<ScorePlugin*>& score) {
  std::map<std::string, int64_t, std::less<>> weights;
  int64_t total = 0;
  auto consider = [&](const config::Plugin& e) -> util::Status {
    auto it = by_name_.find(e.name);
    if (it == by_name_.end() || dynamic_cast<ScorePlugin*>(it->second) == nullptr) return util::Status();
    // The score list comes first, so its weight wins over multiPoint's.
    if (weights.count(e.name) > 0) return util::Status();
    int64_t w = e.weight.value_or(0);
    if (w == 0) w = 1;
    if (w * kMaxNodeScore > kMaxTotalScore - total) {
      return util::InvalidArgument("total score of Score plugins could overflow");
    }
    total += w * kMaxNodeScore;
    weights.emplace(e.name, w);
    return util::Status();
  };
  for (const config::Plugin& e : plugins.score.enabled) {
    util::Status s = consider(e);
    if (!s.ok()) return s;
  }
  for (const config::Plugin& e : plugins.multi_point.enabled) {
    util::Status s = consider(e);
    if (!s.ok()) return s;
  }
  score_weights_.clear();
  for (ScorePlugin* p : score) {
    auto it = weights.find(p->Name());
    if (it == weights.end()) {
      return util::InvalidArgument(fmt::format("score plugin {} is not configured with weight", Quoted(p->Name())));
    }
    score_weights_.push_back(it->second);
  }
  return util::Status();
}

// ---------------------------------------------------------------- metrics helpers

double Framework::SecondsSince(util::TimePoint start) const {
  return util::Seconds(options_.clock->Since(start));
}

void Framework::ObservePoint(std::string_view point, const Status& status, util::TimePoint start) const {
  options_.metrics->ObserveExtensionPointDuration(point, status.code(), profile_name_, SecondsSince(start));
}

void Framework::FlushMetrics() {
  if (per_node_metrics_) per_node_metrics_->Flush();
}

// ---------------------------------------------------------------- Handle

std::vector<PodInfoPtr> Framework::NominatedPodsForNode(std::string_view node_name) const {
  if (options_.nominator == nullptr) return {};
  return options_.nominator->NominatedPodsForNode(node_name);
}

void Framework::Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  if (options_.activator != nullptr && !pods.empty()) options_.activator->Activate(pods);
}

std::shared_ptr<PodInPreBind> Framework::GetPodInPreBind(std::string_view uid) const {
  return options_.pods_in_pre_bind->Get(uid);
}

std::shared_ptr<WaitingPod> Framework::GetWaitingPod(std::string_view uid) const {
  return options_.waiting_pods->Get(uid);
}

void Framework::IterateOverWaitingPods(const std::function<void(WaitingPod&)>& fn) const {
  options_.waiting_pods->Iterate(fn);
}

bool Framework::RejectWaitingPod(std::string_view uid) {
  std::shared_ptr<WaitingPod> wp = options_.waiting_pods->Get(uid);
  if (wp == nullptr) return false;
  wp->Reject("", "removed");
  return true;
}

// ---------------------------------------------------------------- queue side

std::vector<const Plugin*> Framework::EnqueueExtensionPlugins() const {
  std::vector<const Plugin*> out;
  for (const auto& [name, p] : instances_) {
    Plugin* raw = p.get();
    if (Implements<PreEnqueuePlugin>(raw) || Implements<PreFilterPlugin>(raw) || Implements<FilterPlugin>(raw) ||
        Implements<ReservePlugin>(raw) || Implements<PermitPlugin>(raw)) {
      out.push_back(raw);
    }
  }
  return out;
}

Status Framework::RunPreEnqueuePlugins(const api::Pod& pod) {
  for (PreEnqueuePlugin* pl : pre_enqueue_) {
    Status s = pl->PreEnqueue(pod);
    if (s.IsSuccess()) continue;
    if (s.IsRejected()) {
      s.WithPlugin(std::string(pl->Name()));
      return s;
    }
    Status err = WrapError("running PreEnqueue plugin " + Quoted(pl->Name()), s);
    err.WithPlugin(std::string(pl->Name()));
    return err;
  }
  return Status();
}

// ---------------------------------------------------------------- scheduling cycle

std::optional<std::string> Framework::SignPod(const PodSigner& signer, const api::Pod& pod) const {
  const util::TimePoint start = options_.clock->Now();
  const PodSigner::Metrics metrics{options_.clock, options_.metrics};
  std::optional<std::string> signature = signer.Sign(pod, &metrics);
  ObservePoint(extension_point::kSign, Status(), start);
  return signature;
}

PreFilterOutcome Framework::RunPreFilterPlugins(CycleState& state, const api::Pod& pod) {
  FlushMetrics();
  const util::TimePoint start = options_.clock->Now();
  SkippedPlugins skip;
  PreFilterOutcome out;
  std::optional<Status> rejection;
  const NodeInfoList& nodes = options_.snapshot_lister->NodeInfos().List();
  auto finish = [&](PreFilterOutcome o) {
    // Resolve the skipped plugins once into a mask over filter_, for the
    // per-node check in RunFilterPlugins.
    state.SetSkipFilterPlugins(skip.Set(*pre_filter_subsets_));
    if (filter_.size() <= 64) {
      uint64_t mask = 0;
      for (uint64_t left = skip.bits(); left != 0; left &= left - 1) {
        mask |= pre_filter_filter_bits_[static_cast<size_t>(std::countr_zero(left))];
      }
      for (size_t i = 0; i < filter_.size() && !skip.beyond().empty(); ++i) {
        if (skip.beyond().Has(filter_[i]->Name())) mask |= uint64_t{1} << i;
      }
      state.SetSkipFilterMask(this, mask);
    }
    ObservePoint(extension_point::kPreFilter, o.status, start);
    return o;
  };
  for (size_t i = 0; i < pre_filter_.size(); ++i) {
    PreFilterPlugin* pl = pre_filter_[i];
    const std::string_view name = pl->Name();
    auto [result, s] = pl->PreFilter(state, pod, nodes);
    if (s.IsSkip()) {
      skip.Add(i, name);
      continue;
    }
    if (!s.IsSuccess()) {
      s.WithPlugin(std::string(name));
      if (s.code() == Code::kUnschedulableAndUnresolvable) {
        // Preemption cannot help: no need to run the other PreFilters.
        return finish(PreFilterOutcome{PreFilterResult{}, std::move(s), PluginSet{}});
      }
      if (s.code() == Code::kUnschedulable) {
        // Preemption may help; it needs every PreFilter's state. As in
        // kube-scheduler, a later Unschedulable replaces an earlier one.
        rejection = std::move(s);
        continue;
      }
      Status err = WrapError("running PreFilter plugin " + Quoted(name), s);
      err.WithPlugin(std::string(name));
      return finish(PreFilterOutcome{PreFilterResult{}, std::move(err), PluginSet{}});
    }
    if (!result.AllNodes()) out.plugins_with_nodes.Insert(name);
    out.result = out.result.Merge(result);
    if (!out.result.AllNodes() && out.result.node_names->empty()) {
      std::string msg;
      if (out.plugins_with_nodes.size() == 1) {
        msg = "node(s) didn't satisfy plugin " + out.plugins_with_nodes.names()[0];
      } else {
        msg = fmt::format("node(s) didn't satisfy plugin(s) [{}] simultaneously",
                          fmt::join(out.plugins_with_nodes.names(), " "));
      }
      out.status = Status(Code::kUnschedulableAndUnresolvable, std::move(msg));
      return finish(std::move(out));
    }
  }
  if (rejection) out.status = std::move(*rejection);
  return finish(std::move(out));
}

Status Framework::RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod_to_schedule,
                                              const PodInfoPtr& pod_info_to_add, const NodeInfo& node_info) {
  const PluginSet& skip = state.SkipFilterPlugins();
  for (PreFilterPlugin* pl : pre_filter_) {
    PreFilterExtensions* ext = pl->GetPreFilterExtensions();
    if (ext == nullptr || skip.Has(pl->Name())) continue;
    Status s = ext->AddPod(state, pod_to_schedule, pod_info_to_add, node_info);
    if (!s.IsSuccess()) return WrapError("running AddPod on PreFilter plugin " + Quoted(pl->Name()), s);
  }
  return Status();
}

Status Framework::RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod_to_schedule,
                                                 const PodInfoPtr& pod_info_to_remove, const NodeInfo& node_info) {
  const PluginSet& skip = state.SkipFilterPlugins();
  for (PreFilterPlugin* pl : pre_filter_) {
    PreFilterExtensions* ext = pl->GetPreFilterExtensions();
    if (ext == nullptr || skip.Has(pl->Name())) continue;
    Status s = ext->RemovePod(state, pod_to_schedule, pod_info_to_remove, node_info);
    if (!s.IsSuccess()) return WrapError("running RemovePod on PreFilter plugin " + Quoted(pl->Name()), s);
  }
  return Status();
}

namespace {

// The first failure of `pl` as RunFilterPlugins reports it.
Status FilterFailure(InstrumentedFilterPlugin& pl, Status s) {
  // Filters may only reject; anything else is an error of the plugin.
  if (!s.IsRejected()) s = WrapError("running " + Quoted(pl.Name()) + " filter plugin", s);
  s.WithPlugin(pl.Name());
  return s;
}

}  // namespace

template <class Visit>
void Framework::VisitFilterPluginsToRun(const CycleState& state, const Visit& visit) const {
  // When PreFilter resolved a skip mask for this framework, only the
  // plugins it left to run are visited.
  if (const std::optional<uint64_t> mask = state.SkipFilterMask(this)) {
    const uint64_t all = filter_.size() == 64 ? ~uint64_t{0} : (uint64_t{1} << filter_.size()) - 1;
    for (uint64_t run = all & ~*mask; run != 0; run &= run - 1) {
      if (!visit(*filter_[static_cast<size_t>(std::countr_zero(run))])) return;
    }
    return;
  }
  const PluginSet& skip = state.SkipFilterPlugins();
  for (InstrumentedFilterPlugin* pl : filter_) {
    if (!skip.empty() && skip.Has(pl->Name())) continue;
    if (!visit(*pl)) return;
  }
}

bool Framework::FilterReadsNodeLabels(const CycleState& state) const {
  bool reads = false;
  VisitFilterPluginsToRun(state, [&](InstrumentedFilterPlugin& pl) {
    reads = pl.ReadsNodeLabels();
    return !reads;
  });
  return reads;
}

Status Framework::RunFilterPlugins(CycleState& state, const api::Pod& pod, const NodeInfo& node_info) {
  Status failure;
  VisitFilterPluginsToRun(state, [&](InstrumentedFilterPlugin& pl) {
    Status s = pl.Filter(state, pod, node_info);
    if (s.IsSuccess()) return true;
    failure = FilterFailure(pl, std::move(s));
    return false;
  });
  return failure;
}

void Framework::RunFilterPluginsOnNodes(CycleState& state, const api::Pod& pod,
                                        std::span<const NodeInfo* const> nodes, uint64_t* alive, Status* out) {
  if (options_.nominator != nullptr && options_.nominator->HasNominatedPods()) {
    FilterEachAlive(nodes, alive, out,
                    [&](const NodeInfo& node) { return RunFilterPluginsWithNominatedPods(state, pod, node); });
    return;
  }
  // Each plugin over the nodes that passed the plugins before it, as
  // RunFilterPlugins stops at a node's first failure.
  VisitFilterPluginsToRun(state, [&](InstrumentedFilterPlugin& pl) {
    const uint64_t before = *alive;
    pl.FilterNodes(state, pod, nodes, alive, out);
    for (uint64_t failed = before & ~*alive; failed != 0; failed &= failed - 1) {
      const size_t i = static_cast<size_t>(std::countr_zero(failed));
      out[i] = FilterFailure(pl, std::move(out[i]));
    }
    return *alive != 0;
  });
}

Status Framework::RunFilterPluginsWithNominatedPods(CycleState& state, const api::Pod& pod,
                                                    const NodeInfo& node_info) {
  if (options_.nominator == nullptr) return RunFilterPlugins(state, pod, node_info);
  const std::vector<PodInfoPtr> nominated = NominatedPodsForNode(node_info.node_name());
  // The common case, per node: nothing nominated, one pass.
  if (nominated.empty()) return RunFilterPlugins(state, pod, node_info);
  return RunFilterPluginsWithNominatedPods(state, pod, node_info, nominated);
}

Status Framework::RunFilterPluginsWithNominatedPods(CycleState& state, const api::Pod& pod, const NodeInfo& node_info,
                                                    const std::vector<PodInfoPtr>& nominated) {
  // Pass 1 treats the nominated pods of priority >= the pod's as running;
  // pass 2 (only if pods were added and pass 1 passed) treats them as
  // absent. Both must pass: resource and anti-affinity filters are stricter
  // with them, pod affinity without them.
  const int32_t priority = PodPriority(pod);
  std::unique_ptr<CycleState> state_with;
  std::optional<NodeInfo> node_with;
  for (const PodInfoPtr& pi : nominated) {
    if (pi->priority() < priority || pi->pod().metadata.uid == pod.metadata.uid) continue;
    if (!node_with) {
      node_with.emplace(node_info.Clone());
      state_with = state.Clone();
    }
    node_with->AddPodInfo(pi);
    Status s = RunPreFilterExtensionAddPod(*state_with, pod, pi, *node_with);
    if (!s.IsSuccess()) return Status::Error(s.Message());
  }
  if (!node_with) return RunFilterPlugins(state, pod, node_info);
  Status status = RunFilterPlugins(*state_with, pod, *node_with);
  if (!status.IsSuccess()) return status;
  return RunFilterPlugins(state, pod, node_info);
}

std::pair<PostFilterResult, Status> Framework::RunPostFilterPlugins(CycleState& state, const api::Pod& pod,
                                                                    const NodeToStatus& filtered_node_status) {
  const util::TimePoint start = options_.clock->Now();
  auto finish = [&](PostFilterResult r, Status s) {
    ObservePoint(extension_point::kPostFilter, s, start);
    return std::make_pair(std::move(r), std::move(s));
  };
  PostFilterResult result;  // the last non-noop result
  std::vector<std::string> reasons;
  std::string rejector;
  for (PostFilterPlugin* pl : post_filter_) {
    const std::string_view name = pl->Name();
    auto [r, s] = pl->PostFilter(state, pod, filtered_node_status);
    if (s.IsSuccess()) return finish(std::move(r), std::move(s));
    if (s.code() == Code::kUnschedulableAndUnresolvable) {
      s.WithPlugin(std::string(name));
      return finish(std::move(r), std::move(s));
    }
    if (!s.IsRejected()) {
      Status err = Status::Error(s.Message());
      err.WithPlugin(std::string(name));
      return finish(PostFilterResult{}, std::move(err));
    }
    if (r.Mode() != NominatingMode::kNoop) result = std::move(r);
    reasons.insert(reasons.end(), s.reasons().begin(), s.reasons().end());
    if (rejector.empty()) rejector = std::string(name);
  }
  Status s(Code::kUnschedulable, std::move(reasons));
  s.WithPlugin(std::move(rejector));
  return finish(std::move(result), std::move(s));
}

Status Framework::RunPreScorePlugins(CycleState& state, const api::Pod& pod, const NodeInfoList& nodes) {
  const util::TimePoint start = options_.clock->Now();
  SkippedPlugins skip;
  Status status;
  for (size_t i = 0; i < pre_score_.size(); ++i) {
    PreScorePlugin* pl = pre_score_[i];
    const std::string_view name = pl->Name();
    Status s = pl->PreScore(state, pod, nodes);
    if (s.IsSkip()) {
      skip.Add(i, name);
      continue;
    }
    if (!s.IsSuccess()) {
      status = WrapError("running PreScore plugin " + Quoted(name), s);
      break;
    }
  }
  state.SetSkipScorePlugins(skip.Set(*pre_score_subsets_));
  ObservePoint(extension_point::kPreScore, status, start);
  return status;
}

Status Framework::RunScorePlugins(CycleState& state, const api::Pod& pod, const NodeInfoList& nodes, NodeScores* out,
                                  bool keep_raw) {
  const util::TimePoint start = options_.clock->Now();
  auto finish = [&](Status s) {
    ObservePoint(extension_point::kScore, s, start);
    return s;
  };
  const ScorePluginsToRun run = NonSkippedScorePlugins(score_, score_weights_, state.SkipScorePlugins());
  const std::vector<InstrumentedScorePlugin*>& plugins = run.plugins;
  const std::vector<int64_t>& weights = run.weights;
  const size_t n = nodes.size();
  const size_t p = plugins.size();
  std::vector<NodeScoreList>& per_plugin = ThreadScoreLists(p, n);

  std::mutex err_mu;
  std::optional<Status> first_error;
  auto fail = [&](Status s, util::CancelFlag* cancel) {
    std::lock_guard<std::mutex> l(err_mu);
    if (!first_error) first_error = std::move(s);
    if (cancel != nullptr) cancel->Cancel();
  };

  if (p > 0 && n > 0) {
    util::CancelFlag cancel;
    // Nodes are scored in runs, each plugin over the whole run
    // (ScorePlugin::ScoreNodes), so that a plugin's per-call work is paid
    // per run rather than per node.
    const size_t run_length =
        static_cast<size_t>(util::ChunkSizeFor(static_cast<int>(n), options_.parallelizer->parallelism()));
    const size_t runs = (n + run_length - 1) / run_length;
    auto score_run = [&](int run) {
      const size_t begin = static_cast<size_t>(run) * run_length;
      const std::span<const NodeInfo* const> run_nodes(nodes.data() + begin, std::min(run_length, n - begin));
      // Only NormalizeScore reads the names: the lists of plugins without
      // one carry scores alone.
      const NodeScore* named = nullptr;  // the run's first list with names
      for (size_t j = 0; j < p; ++j) {
        NodeScore* out = per_plugin[j].data() + begin;
        if (plugins[j]->GetScoreExtensions() != nullptr) {
          for (size_t i = 0; i < run_nodes.size(); ++i) {
            out[i].name = named != nullptr ? named[i].name : run_nodes[i]->node_name_view();
          }
          named = out;
        }
        Status s = plugins[j]->ScoreNodes(state, pod, run_nodes, out);
        if (!s.IsSuccess()) {
          fail(WrapError(fmt::format("plugin {} failed with", Quoted(plugins[j]->Name())), s), &cancel);
          return;
        }
      }
    };
    options_.parallelizer->ParallelFor(static_cast<int>(runs), score_run, &cancel, 1);
    for (InstrumentedScorePlugin* pl : plugins) pl->AddEvaluations(static_cast<int64_t>(n));
    if (first_error) return finish(WrapError("running Score plugins", *first_error));
  }

  out->raw.resize(keep_raw ? p : 0);
  for (size_t j = 0; j < out->raw.size(); ++j) {
    out->raw[j].resize(n);
    for (size_t i = 0; i < n; ++i) out->raw[j][i] = per_plugin[j][i].score;
  }
  // An observer may read raw scores, which NormalizeScore overwrites: only
  // then are they kept, and only for the plugins that normalize.
  std::vector<std::vector<int64_t>>* raw = options_.observer != nullptr ? &ThreadRawScores(p) : nullptr;
  for (size_t j = 0; j < p; ++j) {
    ScoreExtensions* ext = plugins[j]->GetScoreExtensions();
    if (ext == nullptr) continue;
    if (raw != nullptr) {
      std::vector<int64_t>& keep = (*raw)[j];
      keep.resize(n);
      int64_t* to = keep.data();
      const NodeScore* from = per_plugin[j].data();
#pragma GCC unroll 4
      for (size_t i = 0; i < n; ++i) to[i] = from[i].score;
    }
    Status s = ext->NormalizeScore(state, pod, per_plugin[j]);
    if (!s.IsSuccess()) {
      return finish(NormalizeError(plugins[j]->Name(), s));
    }
  }

  out->plugins.clear();
  for (ScorePlugin* pl : plugins) out->plugins.push_back(pl->Name());
  // Plugin by plugin, as kube applies the weights: a contiguous pass per
  // plugin. (With several scores out of range, kube's parallel loop reports
  // any one of them; this reports the first plugin's first.)
  out->totals.assign(n, 0);
  int64_t* totals = out->totals.data();
  for (size_t j = 0; j < p; ++j) {
    const NodeScore* scores = per_plugin[j].data();
    if (!AddWeightedScores(scores, weights[j], n, totals)) {
      for (size_t i = 0; i < n; ++i) {
        if (!InScoreRange(scores[i].score)) return finish(ScoreRangeError(plugins[j]->Name(), scores[i].score));
      }
    }
    if (log::V(10)) {
      for (size_t i = 0; i < n; ++i) {
        KLOG_V(10, "Plugin {} scored node {} for pod {}: {}", plugins[j]->Name(), nodes[i]->node_name(),
               api::PodKey(pod), scores[i].score * weights[j]);
      }
    }
  }
  if (raw != nullptr) {
    options_.observer->ObserveScores(pod, CycleObserver::ScoreView{nodes, out->plugins, weights, per_plugin, *raw,
                                                                   out->totals});
  }
  return finish(Status());
}

std::pair<Framework::RawScores, Status> Framework::RunRawScorePlugins(CycleState& state, const api::Pod& pod,
                                                                      const NodeInfo& node) {
  RawScores out;
  for (InstrumentedScorePlugin* pl : NonSkippedScorePlugins(score_, score_weights_, state.SkipScorePlugins()).plugins) {
    auto [score, s] = pl->Score(state, pod, node);
    if (!s.IsSuccess()) {
      return {RawScores{}, WrapError(fmt::format("plugin {} failed with", Quoted(pl->Name())), s)};
    }
    out.plugins.push_back(pl->Name());
    out.scores.push_back(score);
  }
  return {std::move(out), Status()};
}

std::pair<std::vector<int64_t>, Status> Framework::NormalizeScores(
    CycleState& state, const api::Pod& pod, const std::vector<std::string_view>& nodes,
    const std::function<int64_t(std::string_view plugin, size_t node)>& raw) {
  const auto [plugins, weights] = NonSkippedScorePlugins(score_, score_weights_, state.SkipScorePlugins());
  std::vector<int64_t> totals(nodes.size(), 0);
  NodeScoreList list(nodes.size());
  for (size_t k = 0; k < plugins.size(); ++k) {
    InstrumentedScorePlugin* pl = plugins[k];
    for (size_t i = 0; i < nodes.size(); ++i) list[i] = NodeScore{nodes[i], raw(pl->Name(), i)};
    if (ScoreExtensions* ext = pl->GetScoreExtensions()) {
      Status s = ext->NormalizeScore(state, pod, list);
      if (!s.IsSuccess()) return {{}, NormalizeError(pl->Name(), s)};
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!InScoreRange(list[i].score)) {
        return {{}, ScoreRangeError(pl->Name(), list[i].score)};
      }
      totals[i] += list[i].score * weights[k];
    }
  }
  return {std::move(totals), Status()};
}

Status Framework::RunReservePluginsReserve(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const util::TimePoint start = options_.clock->Now();
  Status status;
  for (ReservePlugin* pl : reserve_) {
    Status s = pl->Reserve(state, pod, node_name);
    if (s.IsSuccess()) continue;
    if (s.IsRejected()) {
      KLOG_V(4, "Pod {} rejected by Reserve plugin {}: {}", api::KeyOf(pod.metadata), pl->Name(), s.Message());
      s.WithPlugin(std::string(pl->Name()));
      status = std::move(s);
    } else {
      status = WrapError("running Reserve plugin " + Quoted(pl->Name()), s);
    }
    break;
  }
  ObservePoint(extension_point::kReserve, status, start);
  return status;
}

void Framework::RunReservePluginsUnreserve(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const util::TimePoint start = options_.clock->Now();
  // Reverse order of Reserve.
  for (auto it = reserve_.rbegin(); it != reserve_.rend(); ++it) (*it)->Unreserve(state, pod, node_name);
  ObservePoint(extension_point::kUnreserve, Status(), start);
}

Status Framework::RunPermitPlugins(CycleState& state, const std::shared_ptr<const api::Pod>& pod,
                                   std::string_view node_name) {
  const util::TimePoint start = options_.clock->Now();
  auto finish = [&](Status s) {
    ObservePoint(extension_point::kPermit, s, start);
    return s;
  };
  std::map<std::string, util::Duration> waits;
  for (PermitPlugin* pl : permit_) {
    auto [s, timeout] = pl->Permit(state, *pod, node_name);
    if (s.IsSuccess()) continue;
    if (s.IsRejected()) {
      KLOG_V(4, "Pod {} rejected by Permit plugin {}: {}", api::KeyOf(pod->metadata), pl->Name(), s.Message());
      s.WithPlugin(std::string(pl->Name()));
      return finish(std::move(s));
    }
    if (s.IsWait()) {
      waits[std::string(pl->Name())] = std::min<util::Duration>(timeout, kMaxPermitTimeout);
      continue;
    }
    Status err = WrapError("running Permit plugin " + Quoted(pl->Name()), s);
    err.WithPlugin(std::string(pl->Name()));
    return finish(std::move(err));
  }
  if (waits.empty()) return finish(Status());
  options_.waiting_pods->Add(std::make_shared<WaitingPod>(pod, waits, *options_.clock));
  KLOG_V(4, "One or more plugins asked to wait and no plugin rejected pod {}", api::KeyOf(pod->metadata));
  return finish(Status(Code::kWait, fmt::format("one or more plugins asked to wait and no plugin rejected pod {}",
                                                Quoted(pod->metadata.name))));
}

// ---------------------------------------------------------------- binding cycle

bool Framework::WillWaitOnPermit(const api::Pod& pod) const {
  return options_.waiting_pods->Get(pod.metadata.uid) != nullptr;
}

Status Framework::WaitOnPermit(const api::Pod& pod) {
  std::shared_ptr<WaitingPod> wp = options_.waiting_pods->Get(pod.metadata.uid);
  if (wp == nullptr) return Status();
  const util::TimePoint start = options_.clock->Now();
  Status s = wp->Wait();
  options_.waiting_pods->Remove(pod.metadata.uid);
  options_.metrics->ObservePermitWaitDuration(s.code(), SecondsSince(start));
  if (s.IsSuccess() || s.IsRejected()) return s;
  Status err = WrapError("waiting on permit for pod", s);
  err.WithPlugin(s.plugin());
  return err;
}

Status Framework::RunPreBindPreFlights(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const util::TimePoint start = options_.clock->Now();
  Status status(Code::kSkip, std::string());
  SkippedPlugins skip;
  SkippedPlugins parallel;
  for (size_t i = 0; i < pre_bind_.size(); ++i) {
    PreBindPlugin* pl = pre_bind_[i];
    Status s = pl->PreBindPreFlight(state, pod, node_name);
    if (options_.features.parallel_pre_bind && pl->AllowsParallelPreBind()) parallel.Add(i, pl->Name());
    if (s.IsSuccess()) {
      status = Status();
    } else if (s.IsSkip()) {
      skip.Add(i, pl->Name());
    } else if (s.code() == Code::kError) {
      status = WrapError("running PreBindPreFlight " + Quoted(pl->Name()), s);
      break;
    } else {
      status = Status::Error("PreBindPreFlight " + std::string(pl->Name()) + " returned " +
                             Quoted(CodeName(s.code())) +
                             ", which is unsupported. It is supposed to return Success, Skip, or Error status");
      break;
    }
  }
  if (status.code() != Code::kError) {
    state.SetSkipPreBindPlugins(skip.Set(*pre_bind_subsets_));
    state.SetParallelPreBindPlugins(parallel.Set(*pre_bind_subsets_));
  }
  ObservePoint(extension_point::kPreBindPreFlight, status, start);
  return status;
}

std::vector<std::vector<InstrumentedPreBindPlugin*>> Framework::PreBindGroups(const CycleState& state) const {
  const PluginSet& skip = state.SkipPreBindPlugins();
  const PluginSet& parallel = state.ParallelPreBindPlugins();
  std::vector<std::vector<InstrumentedPreBindPlugin*>> groups;
  bool open = false;  // the last group gathers parallel plugins
  for (InstrumentedPreBindPlugin* pl : pre_bind_) {
    const bool runs = skip.empty() || !skip.Has(pl->Name());
    const bool joins = !parallel.empty() && parallel.Has(pl->Name());
    if (!joins) open = false;
    if (!runs) continue;
    if (!open) groups.emplace_back();
    groups.back().push_back(pl);
    open = joins;
  }
  return groups;
}

Status Framework::RunPreBindPlugin(PreBindPlugin& pl, CycleState& state, const api::Pod& pod,
                                   std::string_view node_name, const Cancellation* cancellation) {
  Status s = pl.PreBind(state, pod, node_name);
  if (s.IsSuccess()) return s;
  if (s.IsRejected()) {
    s.WithPlugin(std::string(pl.Name()));
    return s;
  }
  // A wait ended by the cancellation reports its cause, as kube reports
  // context.Cause for a context.Canceled error.
  if (cancellation != nullptr && cancellation->Cancelled() && s.error().code() == util::StatusCode::kCancelled) {
    s = Status::Error(cancellation->Cause());
  }
  return WrapError("running PreBind plugin " + Quoted(pl.Name()), s);
}

Status Framework::RunPreBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const util::TimePoint start = options_.clock->Now();
  Status status;
  Cancellation* const pod_cancellation = state.PreBindCancellation();
  for (const std::vector<InstrumentedPreBindPlugin*>& group : PreBindGroups(state)) {
    if (group.size() == 1) {
      status = RunPreBindPlugin(*group[0], state, pod, node_name, pod_cancellation);
    } else {
      status = RunParallelPreBindPlugins(group, state, pod, node_name);
    }
    if (!status.IsSuccess()) break;
  }
  ObservePoint(extension_point::kPreBind, status, start);
  return status;
}

Status Framework::RunParallelPreBindPlugins(const std::vector<InstrumentedPreBindPlugin*>& group, CycleState& state,
                                            const api::Pod& pod, std::string_view node_name) {
  // kube's child context: a failing plugin cancels the others' waits; the
  // pod's own cancellation (preemption) reaches them through it.
  Cancellation* const pod_cancellation = state.PreBindCancellation();
  Cancellation group_cancellation(pod_cancellation);
  state.SetPreBindCancellation(&group_cancellation);
  std::mutex mu;
  std::optional<Status> first_failure;  // guarded by mu
  auto run = [&](PreBindPlugin* pl) {
    Status s = RunPreBindPlugin(*pl, state, pod, node_name, &group_cancellation);
    if (s.IsSuccess()) return;
    std::lock_guard<std::mutex> l(mu);
    if (first_failure) return;
    first_failure = std::move(s);
    group_cancellation.Cancel("some other PreBind operation failed");
  };
  // PreBinds block (on the API server, on other controllers): each gets a
  // thread of its own rather than the parallelizer's CPU workers.
  std::vector<std::thread> others;
  for (size_t i = 1; i < group.size(); ++i) others.emplace_back(run, group[i]);
  run(group[0]);
  for (std::thread& t : others) t.join();
  state.SetPreBindCancellation(pod_cancellation);
  return first_failure ? std::move(*first_failure) : Status();
}

Status Framework::RunBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const util::TimePoint start = options_.clock->Now();
  Status status(Code::kSkip, std::string());
  for (BindPlugin* pl : bind_) {
    Status s = pl->Bind(state, pod, node_name);
    if (s.IsSkip()) {
      status = std::move(s);
      continue;
    }
    if (s.IsSuccess()) {
      status = std::move(s);
    } else if (s.IsRejected()) {
      s.WithPlugin(std::string(pl->Name()));
      status = std::move(s);
    } else {
      status = WrapError("running Bind plugin " + Quoted(pl->Name()), s);
    }
    break;
  }
  ObservePoint(extension_point::kBind, status, start);
  return status;
}

void Framework::RunPostBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const util::TimePoint start = options_.clock->Now();
  for (PostBindPlugin* pl : post_bind_) pl->PostBind(state, pod, node_name);
  ObservePoint(extension_point::kPostBind, Status(), start);
}

// ---------------------------------------------------------------- introspection

config::Plugins Framework::ListPlugins() const {
  config::Plugins out;
  auto add = [](config::PluginSet& set, const auto& list) {
    for (const auto* p : list) set.enabled.push_back(config::Plugin{std::string(p->Name()), std::nullopt, ""});
  };
  add(out.pre_enqueue, pre_enqueue_);
  add(out.queue_sort, queue_sort_list_);
  add(out.pre_filter, pre_filter_);
  add(out.filter, filter_);
  add(out.post_filter, post_filter_);
  add(out.pre_score, pre_score_);
  for (size_t i = 0; i < score_.size(); ++i) {
    out.score.enabled.push_back(
        config::Plugin{std::string(score_[i]->Name()), static_cast<int32_t>(score_weights_[i]), ""});
  }
  add(out.reserve, reserve_);
  add(out.permit, permit_);
  add(out.pre_bind, pre_bind_);
  add(out.bind, bind_);
  add(out.post_bind, post_bind_);
  return out;
}

Plugin* Framework::GetPlugin(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

int64_t Framework::ScorePluginWeight(std::string_view name) const {
  for (size_t i = 0; i < score_.size(); ++i) {
    if (score_[i]->Name() == name) return score_weights_[i];
  }
  return 0;
}

}  // namespace ksched::scheduler::framework::runtime
