#include "pkg/scheduler/framework/runtime/framework.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include "pkg/scheduler/cache/snapshot.h"
#include "pkg/scheduler/framework/test_objects.h"
#include "spdlog/fmt/fmt.h"

namespace ksched::scheduler::framework::runtime {
namespace {

// An args type of no real plugin, to see args reach the factory.
struct TestArgs {
  static const config::ArgsCodec& Codec() {
    static const auto* const kCodec = new config::TypedArgsCodec<TestArgs>(
        {"TestArgs", [](config::YamlReader*, config::MapReader&, std::string_view, TestArgs*) {}, nullptr, nullptr,
         [](const TestArgs&, nlohmann::ordered_json*) {}});
    return *kCodec;
  }
};

using std::chrono::minutes;
using std::chrono::seconds;
using testing::MakeNode;
using testing::MakePod;

// ---------------------------------------------------------------- fakes

// Shared by every fake of a test: what each plugin does, and what was called.
struct World {
  std::mutex mu;
  std::vector<std::string> calls;
  void Log(std::string s) {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back(std::move(s));
  }
  std::vector<std::string> Calls() {
    std::lock_guard<std::mutex> l(mu);
    return calls;
  }
  void Clear() {
    std::lock_guard<std::mutex> l(mu);
    calls.clear();
  }
  size_t Count(const std::string& s) {
    std::lock_guard<std::mutex> l(mu);
    return std::count(calls.begin(), calls.end(), s);
  }
};

struct Behavior {
  Status pre_enqueue;
  Status pre_filter;
  std::optional<std::set<std::string, std::less<>>> pre_filter_nodes;
  std::map<std::string, Status> filter;  // by node; default Success
  // Filter rejects nodes holding at least this many pods (0: off).
  size_t max_pods = 0;
  Status add_pod;
  bool reads_node_labels = true;  // FilterPlugin::ReadsNodeLabels
  Status post_filter;
  PostFilterResult post_filter_result;
  Status pre_score;
  std::map<std::string, int64_t> scores;  // by node
  Status score;
  // NormalizeScore scales so the best node gets 100.
  bool normalize = false;
  Status reserve;
  Status permit;
  util::Duration permit_timeout{0};
  Status pre_bind_pre_flight;
  Status pre_bind;
  // When set, PreBind's answer (after logging the call).
  std::function<Status(CycleState&)> pre_bind_fn;
  bool parallel_pre_bind = false;
  Status bind;
  std::string args_kind;  // set by the factory
};

class FakeBase : public virtual Plugin {
 public:
  FakeBase(std::string name, Behavior& b, World& w) : name_(std::move(name)), b_(b), w_(w) {}
  std::string_view Name() const override { return name_; }

 protected:
  void Log(std::string_view what) { w_.Log(std::string(what) + ":" + name_); }
  std::string name_;
  Behavior& b_;
  World& w_;
};

class SortFake final : public FakeBase, public QueueSortPlugin {
 public:
  using FakeBase::FakeBase;
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override { return a.pod_info.priority() > b.pod_info.priority(); }
};

class FilterFake final : public FakeBase, public PreFilterPlugin, public FilterPlugin, public PreFilterExtensions {
 public:
  using FakeBase::FakeBase;
  std::pair<PreFilterResult, Status> PreFilter(CycleState&, const api::Pod&, const NodeInfoList&) override {
    Log("PreFilter");
    return {PreFilterResult{b_.pre_filter_nodes}, b_.pre_filter};
  }
  PreFilterExtensions* GetPreFilterExtensions() override { return this; }
  bool ReadsNodeLabels() const override { return b_.reads_node_labels; }
  Status Filter(CycleState&, const api::Pod&, const NodeInfo& ni) override {
    Log("Filter/" + ni.node_name() + "/" + std::to_string(ni.pods().size()));
    if (b_.max_pods > 0 && ni.pods().size() >= b_.max_pods) return Status(Code::kUnschedulable, "too many pods");
    auto it = b_.filter.find(ni.node_name());
    return it == b_.filter.end() ? Status() : it->second;
  }
  Status AddPod(CycleState&, const api::Pod&, const PodInfoPtr& pi, const NodeInfo&) override {
    Log("AddPod/" + pi->pod().metadata.name);
    return b_.add_pod;
  }
  Status RemovePod(CycleState&, const api::Pod&, const PodInfoPtr& pi, const NodeInfo&) override {
    Log("RemovePod/" + pi->pod().metadata.name);
    return Status();
  }
};

class FilterOnlyFake final : public FakeBase, public FilterPlugin {
 public:
  using FakeBase::FakeBase;
  Status Filter(CycleState&, const api::Pod&, const NodeInfo& ni) override {
    Log("Filter/" + ni.node_name() + "/" + std::to_string(ni.pods().size()));
    auto it = b_.filter.find(ni.node_name());
    return it == b_.filter.end() ? Status() : it->second;
  }
};

class ScoreFake final : public FakeBase, public PreScorePlugin, public ScorePlugin, public ScoreExtensions {
 public:
  using FakeBase::FakeBase;
  Status PreScore(CycleState&, const api::Pod&, const NodeInfoList&) override {
    Log("PreScore");
    return b_.pre_score;
  }
  std::pair<int64_t, Status> Score(CycleState&, const api::Pod&, const NodeInfo& ni) override {
    w_.Log("Score:" + name_);
    auto it = b_.scores.find(ni.node_name());
    return {it == b_.scores.end() ? 0 : it->second, b_.score};
  }
  ScoreExtensions* GetScoreExtensions() override { return b_.normalize ? this : nullptr; }
  Status NormalizeScore(CycleState&, const api::Pod&, NodeScoreList& scores) override {
    Log("Normalize");
    int64_t max = 1;
    for (const NodeScore& s : scores) max = std::max(max, s.score);
    for (NodeScore& s : scores) s.score = s.score * kMaxNodeScore / max;
    return Status();
  }
};

class CycleFake final : public FakeBase,
                        public PreEnqueuePlugin,
                        public PostFilterPlugin,
                        public ReservePlugin,
                        public PermitPlugin,
                        public PreBindPlugin,
                        public BindPlugin,
                        public PostBindPlugin {
 public:
  using FakeBase::FakeBase;
  Status PreEnqueue(const api::Pod&) override {
    Log("PreEnqueue");
    return b_.pre_enqueue;
  }
  std::pair<PostFilterResult, Status> PostFilter(CycleState&, const api::Pod&, const NodeToStatus&) override {
    Log("PostFilter");
    return {b_.post_filter_result, b_.post_filter};
  }
  Status Reserve(CycleState&, const api::Pod&, std::string_view) override {
    Log("Reserve");
    return b_.reserve;
  }
  void Unreserve(CycleState&, const api::Pod&, std::string_view) override { Log("Unreserve"); }
  std::pair<Status, util::Duration> Permit(CycleState&, const api::Pod&, std::string_view) override {
    Log("Permit");
    return {b_.permit, b_.permit_timeout};
  }
  Status PreBindPreFlight(CycleState&, const api::Pod&, std::string_view) override {
    Log("PreBindPreFlight");
    return b_.pre_bind_pre_flight;
  }
  bool AllowsParallelPreBind() const override { return b_.parallel_pre_bind; }
  Status PreBind(CycleState& state, const api::Pod&, std::string_view) override {
    Log("PreBind");
    return b_.pre_bind_fn ? b_.pre_bind_fn(state) : b_.pre_bind;
  }
  Status Bind(CycleState&, const api::Pod&, std::string_view node) override {
    Log("Bind/" + std::string(node));
    return b_.bind;
  }
  void PostBind(CycleState&, const api::Pod&, std::string_view) override { Log("PostBind"); }
};

class FakeNominator final : public PodNominator {
 public:
  std::vector<PodInfoPtr> NominatedPodsForNode(std::string_view node) const override {
    auto it = pods.find(std::string(node));
    return it == pods.end() ? std::vector<PodInfoPtr>{} : it->second;
  }
  bool HasNominatedPods() const override { return !pods.empty(); }
  std::map<std::string, std::vector<PodInfoPtr>> pods;
};

class FakeActivator final : public PodActivator {
 public:
  void Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods) override {
    for (const auto& p : pods) activated.push_back(p->metadata.name);
  }
  std::vector<std::string> activated;
};

class RecordingMetrics final : public FrameworkMetricsRecorder {
 public:
  void ObserveExtensionPointDuration(std::string_view point, Code status, std::string_view profile,
                                     double) override {
    std::lock_guard<std::mutex> l(mu);
    points.push_back(fmt::format("{}/{}/{}", point, CodeName(status), profile));
  }
  void ObservePluginDuration(std::string_view point, std::string_view plugin, Code status, double) override {
    std::lock_guard<std::mutex> l(mu);
    plugin_durations.push_back(fmt::format("{}/{}/{}", point, plugin, CodeName(status)));
  }
  void AddPluginEvaluations(std::string_view point, std::string_view plugin, std::string_view,
                            int64_t count) override {
    std::lock_guard<std::mutex> l(mu);
    evaluations[fmt::format("{}/{}", point, plugin)] += count;
  }
  void ObservePermitWaitDuration(Code result, double) override {
    std::lock_guard<std::mutex> l(mu);
    permit_waits.push_back(CodeName(result));
  }
  std::mutex mu;
  std::vector<std::string> points;
  std::vector<std::string> plugin_durations;
  std::map<std::string, int64_t> evaluations;
  std::vector<std::string> permit_waits;
};

config::Plugin P(std::string name, std::optional<int32_t> weight = std::nullopt) {
  return config::Plugin{std::move(name), weight, ""};
}

std::vector<std::string> Names(const config::PluginSet& set) {
  std::vector<std::string> out;
  for (const config::Plugin& p : set.enabled) out.push_back(p.name);
  return out;
}

using Strings = std::vector<std::string>;

// ---------------------------------------------------------------- fixture

class FrameworkTest : public ::testing::Test {
 protected:
  FrameworkTest() : parallelizer_(2) {
    snapshot_ = cache::Snapshot::FromObjects(
        {MakePod("existing").Node("n1").Obj()},
        {MakeNode("n1").Obj(), MakeNode("n2").Obj(), MakeNode("n3").Obj()});
    Register<SortFake>("Sort");
    Register<FilterFake>("F1");
    Register<FilterFake>("F2");
    Register<FilterOnlyFake>("FO");
    Register<ScoreFake>("S1");
    Register<ScoreFake>("S2");
    Register<CycleFake>("C1");
    Register<CycleFake>("C2");
    Register<CycleFake>("C3");
    profile_.scheduler_name = "test-profile";
    profile_.plugins.queue_sort.enabled = {P("Sort")};
  }

  template <class T>
  void Register(const std::string& name) {
    behaviors_[name] = std::make_unique<Behavior>();
    Behavior* b = behaviors_[name].get();
    ASSERT_TRUE(registry_
                    .Register(name,
                              AdaptFactory<T>([this, name, b](const config::PluginArgs& args,
                                                              Handle&) -> util::StatusOr<std::shared_ptr<T>> {
                                b->args_kind = std::string(args.kind());
                                return std::make_shared<T>(name, *b, world_);
                              }))
                    .ok());
  }

  FrameworkOptions Options() {
    FrameworkOptions o;
    o.snapshot_lister = snapshot_.get();
    o.parallelizer = &parallelizer_;
    o.clock = &clock_;
    o.nominator = &nominator_;
    o.activator = &activator_;
    o.metrics = &metrics_;
    return o;
  }

  std::unique_ptr<Framework> Build(const FeatureGates& features = {}) {
    FrameworkOptions options = Options();
    options.features = features;
    util::StatusOr<std::unique_ptr<Framework>> f = Framework::New(registry_, profile_, std::move(options));
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    return f.ok() ? std::move(f).value() : nullptr;
  }
  std::string BuildError() {
    util::StatusOr<std::unique_ptr<Framework>> f = Framework::New(registry_, profile_, Options());
    return f.ok() ? "" : f.status().message();
  }

  // S1 (weight 2) scores n1..n3 as 1..3 and normalizes them to 33/66/100;
  // S2 (weight 3) scores 100/0/50, already in range.
  std::unique_ptr<Framework> BuildTwoWeightedScorers() {
    profile_.plugins.multi_point.enabled = {P("S1", 2), P("S2", 3), P("C1")};
    auto f = Build();
    if (f == nullptr) return nullptr;
    B("S1").scores = {{"n1", 1}, {"n2", 2}, {"n3", 3}};
    B("S1").normalize = true;
    B("S2").scores = {{"n1", 100}, {"n2", 0}, {"n3", 50}};
    return f;
  }

  // F1 rejects n2, F2 fails with an error on n3.
  std::unique_ptr<Framework> BuildTwoFailingFilters() {
    profile_.plugins.multi_point.enabled = {P("F1"), P("F2"), P("C1")};
    auto f = Build();
    if (f == nullptr) return nullptr;
    B("F1").filter["n2"] = Status(Code::kUnschedulable, "Insufficient cpu");
    B("F2").filter["n3"] = Status::Error("broken");
    return f;
  }

  const NodeInfo& Node(const std::string& name) { return **snapshot_->Get(name); }

  Behavior& B(const std::string& name) { return *behaviors_.at(name); }

  World world_;
  std::map<std::string, std::unique_ptr<Behavior>> behaviors_;
  Registry registry_;
  config::KubeSchedulerProfile profile_;
  std::unique_ptr<cache::Snapshot> snapshot_;
  util::Parallelizer parallelizer_;
  util::FakeClock clock_;
  FakeNominator nominator_;
  FakeActivator activator_;
  RecordingMetrics metrics_;
  std::shared_ptr<const api::Pod> pod_ = MakePod("pod").Priority(10).Obj();
};

// ---------------------------------------------------------------- construction

TEST_F(FrameworkTest, MultiPointExpandsToEveryImplementedPoint) {
  profile_.plugins.queue_sort.enabled.clear();
  profile_.plugins.multi_point.enabled = {P("Sort"), P("F1"), P("S1", 2), P("C1"), P("FO")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  config::Plugins l = f->ListPlugins();
  EXPECT_EQ(Names(l.queue_sort), (Strings{"Sort"}));
  EXPECT_EQ(Names(l.pre_enqueue), (Strings{"C1"}));
  EXPECT_EQ(Names(l.pre_filter), (Strings{"F1"}));
  EXPECT_EQ(Names(l.filter), (Strings{"F1", "FO"}));
  EXPECT_EQ(Names(l.post_filter), (Strings{"C1"}));
  EXPECT_EQ(Names(l.pre_score), (Strings{"S1"}));
  EXPECT_EQ(Names(l.score), (Strings{"S1"}));
  EXPECT_EQ(l.score.enabled[0].weight, 2);
  EXPECT_EQ(Names(l.reserve), (Strings{"C1"}));
  EXPECT_EQ(Names(l.permit), (Strings{"C1"}));
  EXPECT_EQ(Names(l.pre_bind), (Strings{"C1"}));
  EXPECT_EQ(Names(l.bind), (Strings{"C1"}));
  EXPECT_EQ(Names(l.post_bind), (Strings{"C1"}));
  // One instance shared by all its points.
  EXPECT_EQ(dynamic_cast<Plugin*>(const_cast<QueueSortPlugin*>(&f->QueueSort())), f->GetPlugin("Sort"));
  EXPECT_EQ(f->PreEnqueuePlugins().size(), 1u);
  EXPECT_EQ(dynamic_cast<Plugin*>(f->PreEnqueuePlugins()[0]), f->GetPlugin("C1"));
  // Rejecting plugins feed the queue's hint map; Sort and S1 never reject.
  std::vector<std::string> enqueue;
  for (const Plugin* p : f->EnqueueExtensionPlugins()) enqueue.emplace_back(p->Name());
  EXPECT_EQ(enqueue, (Strings{"C1", "F1", "FO"}));
  EXPECT_TRUE(f->HasFilterPlugins());
  EXPECT_TRUE(f->HasScorePlugins());
  EXPECT_TRUE(f->HasPostFilterPlugins());
  EXPECT_EQ(f->ProfileName(), "test-profile");
}

TEST_F(FrameworkTest, ExplicitConfigurationOverridesMultiPoint) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("F2"), P("S1", 2), P("S2", 3), P("C1")};
  // F2 explicitly at Filter, then FO which multiPoint does not name.
  profile_.plugins.filter.enabled = {P("F2"), P("FO")};
  profile_.plugins.score.enabled = {P("S1", 5)};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  config::Plugins l = f->ListPlugins();
  // Re-configured first, then multiPoint's, then the other explicit ones.
  EXPECT_EQ(Names(l.filter), (Strings{"F2", "F1", "FO"}));
  EXPECT_EQ(Names(l.pre_filter), (Strings{"F1", "F2"}));
  EXPECT_EQ(Names(l.score), (Strings{"S1", "S2"}));
  // The score list's weight wins; multiPoint's applies otherwise.
  EXPECT_EQ(f->ScorePluginWeight("S1"), 5);
  EXPECT_EQ(f->ScorePluginWeight("S2"), 3);
  EXPECT_EQ(f->ScorePluginWeight("F1"), 0);
}

TEST_F(FrameworkTest, DisabledListsApplyToMultiPoint) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("F2"), P("S1"), P("C1")};
  profile_.plugins.filter.disabled = {P("F1")};
  profile_.plugins.score.disabled = {P("*")};
  profile_.plugins.post_bind.disabled = {P("*")};
  profile_.plugins.post_bind.enabled = {P("C2")};  // explicit entries survive "*"
  auto f = Build();
  ASSERT_NE(f, nullptr);
  config::Plugins l = f->ListPlugins();
  EXPECT_EQ(Names(l.filter), (Strings{"F2"}));
  EXPECT_EQ(Names(l.pre_filter), (Strings{"F1", "F2"}));  // only Filter was disabled
  EXPECT_TRUE(l.score.enabled.empty());
  EXPECT_EQ(Names(l.pre_score), (Strings{"S1"}));
  EXPECT_EQ(Names(l.post_bind), (Strings{"C2"}));
  EXPECT_FALSE(f->HasScorePlugins());
}

TEST_F(FrameworkTest, DefaultWeightIsOne) {
  profile_.plugins.multi_point.enabled = {P("S1"), P("S2", 0), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->ScorePluginWeight("S1"), 1);
  EXPECT_EQ(f->ScorePluginWeight("S2"), 1);
}

TEST_F(FrameworkTest, PassesPluginArgs) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("C1")};
  profile_.plugin_config.push_back(config::PluginConfig{"F1", TestArgs{}});
  ASSERT_NE(Build(), nullptr);
  EXPECT_EQ(B("F1").args_kind, "TestArgs");
  EXPECT_EQ(B("C1").args_kind, "");  // no args
}

TEST_F(FrameworkTest, ConstructionErrors) {
  profile_.plugins.bind.enabled = {P("C1")};

  profile_.plugins.filter.enabled = {P("Nope")};
  EXPECT_EQ(BuildError(), "plugin \"Nope\" does not exist");
  profile_.plugins.filter.enabled = {P("S1")};
  EXPECT_EQ(BuildError(), "plugin \"S1\" does not extend FilterPlugin plugin");
  profile_.plugins.filter.enabled = {P("F1"), P("F1")};
  EXPECT_EQ(BuildError(), "plugin \"F1\" already registered as \"FilterPlugin\"");
  profile_.plugins.filter.enabled.clear();

  profile_.plugins.queue_sort.enabled.clear();
  EXPECT_EQ(BuildError(),
            "only one queue sort plugin required for profile with scheduler name \"test-profile\", but got 0");
  profile_.plugins.queue_sort.enabled = {P("Sort")};

  profile_.plugins.bind.enabled.clear();
  EXPECT_EQ(BuildError(), "at least one bind plugin is needed for profile with scheduler name \"test-profile\"");
  profile_.plugins.bind.enabled = {P("C1")};

  profile_.plugin_config = {config::PluginConfig{"C1", {}}, config::PluginConfig{"C1", {}}};
  EXPECT_EQ(BuildError(), "repeated config for plugin C1");
  profile_.plugin_config.clear();

  ASSERT_TRUE(registry_
                  .Register("Failing",
                            [](const config::PluginArgs&, Handle&) -> util::StatusOr<std::shared_ptr<Plugin>> {
                              return util::InvalidArgument("bad args");
                            })
                  .ok());
  ASSERT_TRUE(registry_
                  .Register("Liar",
                            [this](const config::PluginArgs&, Handle&) -> util::StatusOr<std::shared_ptr<Plugin>> {
                              return std::shared_ptr<Plugin>(std::make_shared<FilterOnlyFake>("FO", B("FO"), world_));
                            })
                  .ok());
  profile_.plugins.filter.enabled = {P("Failing")};
  EXPECT_EQ(BuildError(), "initializing plugin \"Failing\": bad args");
  profile_.plugins.filter.enabled = {P("Liar")};
  EXPECT_EQ(BuildError(), "plugin \"Liar\" reports the name \"FO\"");
  profile_.plugins.filter.enabled.clear();

  EXPECT_EQ(Framework::New(registry_, profile_, FrameworkOptions{}).status().message(),
            "framework: snapshot_lister is required");
  EXPECT_NE(Build(), nullptr);
}

// ---------------------------------------------------------------- PreEnqueue

TEST_F(FrameworkTest, PreEnqueueAttributesRejection) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->RunPreEnqueuePlugins(*pod_).IsSuccess());
  B("C2").pre_enqueue = Status(Code::kUnschedulableAndUnresolvable, "gated");
  Status s = f->RunPreEnqueuePlugins(*pod_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.plugin(), "C2");
}

// ---------------------------------------------------------------- PreFilter / Filter

TEST_F(FrameworkTest, PreFilterSkipSkipsFilter) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("F2"), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  B("F1").pre_filter = Status(Code::kSkip);
  CycleState state;
  PreFilterOutcome pre = f->RunPreFilterPlugins(state, *pod_);
  EXPECT_TRUE(pre.status.IsSuccess());
  EXPECT_TRUE(pre.result.AllNodes());
  EXPECT_TRUE(state.SkipFilterPlugins().Has("F1"));
  world_.Clear();
  EXPECT_TRUE(f->RunFilterPlugins(state, *pod_, Node("n2")).IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"Filter/n2/0:F2"}));
  // Skipped plugins' extensions are skipped too.
  world_.Clear();
  EXPECT_TRUE(f->RunPreFilterExtensionAddPod(state, *pod_, std::make_shared<PodInfo>(MakePod("x").Obj()), Node("n2"))
                  .IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"AddPod/x:F2"}));
}

TEST_F(FrameworkTest, SkipMaskFollowsTheNamesAndTheFramework) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("F2"), P("FO"), P("C1")};
  auto f = Build();
  auto other = Build();
  ASSERT_NE(f, nullptr);
  ASSERT_NE(other, nullptr);
  B("F2").pre_filter = Status(Code::kSkip);
  CycleState state;
  ASSERT_TRUE(f->RunPreFilterPlugins(state, *pod_).status.IsSuccess());
  // Filter order F1, F2, FO: F2 is bit 1.
  ASSERT_TRUE(state.SkipFilterMask(f.get()).has_value());
  EXPECT_EQ(*state.SkipFilterMask(f.get()), 0b010u);
  EXPECT_FALSE(state.SkipFilterMask(other.get()).has_value());
  world_.Clear();
  EXPECT_TRUE(f->RunFilterPlugins(state, *pod_, Node("n2")).IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"Filter/n2/0:F1", "Filter/n2/0:FO"}));
  // Another framework has no mask for this state and checks the names.
  world_.Clear();
  EXPECT_TRUE(other->RunFilterPlugins(state, *pod_, Node("n2")).IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"Filter/n2/0:F1", "Filter/n2/0:FO"}));
  // Names set directly (e.g. by a test or preemption) win over a stale mask.
  state.SetSkipFilterPlugins(PluginSet{"F1", "FO"});
  world_.Clear();
  EXPECT_TRUE(f->RunFilterPlugins(state, *pod_, Node("n2")).IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"Filter/n2/0:F2"}));
  // A clone keeps the mask.
  CycleState fresh;
  ASSERT_TRUE(f->RunPreFilterPlugins(fresh, *pod_).status.IsSuccess());
  std::unique_ptr<CycleState> clone = fresh.Clone();
  world_.Clear();
  EXPECT_TRUE(f->RunFilterPlugins(*clone, *pod_, Node("n3")).IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"Filter/n3/0:F1", "Filter/n3/0:FO"}));
}

TEST_F(FrameworkTest, FilterReadsNodeLabelsWhenAPluginLeftToRunDoes) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("F2"), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  B("F1").reads_node_labels = false;
  CycleState state;
  ASSERT_TRUE(f->RunPreFilterPlugins(state, *pod_).status.IsSuccess());
  EXPECT_TRUE(f->FilterReadsNodeLabels(state)) << "F2 reads them";
  B("F2").pre_filter = Status(Code::kSkip);
  CycleState skipped;
  ASSERT_TRUE(f->RunPreFilterPlugins(skipped, *pod_).status.IsSuccess());
  EXPECT_FALSE(f->FilterReadsNodeLabels(skipped)) << "F2 does not run, F1 reads none";
  B("F1").reads_node_labels = true;
  EXPECT_TRUE(f->FilterReadsNodeLabels(skipped));
}

TEST_F(FrameworkTest, PreFilterResultsIntersect) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("F2"), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  B("F1").pre_filter_nodes = std::set<std::string, std::less<>>{"n1", "n2"};
  B("F2").pre_filter_nodes = std::set<std::string, std::less<>>{"n2", "n3"};
  CycleState state;
  PreFilterOutcome pre = f->RunPreFilterPlugins(state, *pod_);
  EXPECT_TRUE(pre.status.IsSuccess());
  ASSERT_FALSE(pre.result.AllNodes());
  EXPECT_EQ(*pre.result.node_names, (std::set<std::string, std::less<>>{"n2"}));
  EXPECT_EQ(pre.plugins_with_nodes, (PluginSet{"F1", "F2"}));

  B("F2").pre_filter_nodes = std::set<std::string, std::less<>>{"n3"};
  pre = f->RunPreFilterPlugins(state, *pod_);
  EXPECT_EQ(pre.status.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(pre.status.Message(), "node(s) didn't satisfy plugin(s) [F1 F2] simultaneously");

  B("F1").pre_filter_nodes = std::set<std::string, std::less<>>{};
  B("F2").pre_filter_nodes.reset();
  pre = f->RunPreFilterPlugins(state, *pod_);
  EXPECT_EQ(pre.status.Message(), "node(s) didn't satisfy plugin F1");
}

TEST_F(FrameworkTest, PreFilterRejections) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("F2"), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  CycleState state;

  // Unschedulable: the other PreFilters still run (preemption needs them).
  B("F1").pre_filter = Status(Code::kUnschedulable, "no");
  world_.Clear();
  PreFilterOutcome pre = f->RunPreFilterPlugins(state, *pod_);
  EXPECT_EQ(pre.status.code(), Code::kUnschedulable);
  EXPECT_EQ(pre.status.plugin(), "F1");
  EXPECT_EQ(world_.Calls(), (Strings{"PreFilter:F1", "PreFilter:F2"}));

  // Several Unschedulable: kube-scheduler keeps the last one (each
  // overwrites the status it returns), so only that plugin is the rejector.
  B("F2").pre_filter = Status(Code::kUnschedulable, "nor here");
  pre = f->RunPreFilterPlugins(state, *pod_);
  EXPECT_EQ(pre.status.code(), Code::kUnschedulable);
  EXPECT_EQ(pre.status.plugin(), "F2");
  EXPECT_EQ(pre.status.Message(), "nor here");

  // An Unschedulable, then PreFilterResults that leave no node: the merged
  // result's UnschedulableAndUnresolvable wins, naming the plugins with
  // nodes.
  B("F2").pre_filter = Status();
  B("F2").pre_filter_nodes = std::set<std::string, std::less<>>{};
  pre = f->RunPreFilterPlugins(state, *pod_);
  EXPECT_EQ(pre.status.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(pre.status.Message(), "node(s) didn't satisfy plugin F2");
  EXPECT_EQ(pre.status.plugin(), "");
  EXPECT_EQ(pre.plugins_with_nodes, (PluginSet{"F2"}));
  B("F2").pre_filter_nodes.reset();

  // UnschedulableAndUnresolvable stops.
  B("F1").pre_filter = Status(Code::kUnschedulableAndUnresolvable, "never");
  world_.Clear();
  pre = f->RunPreFilterPlugins(state, *pod_);
  EXPECT_EQ(pre.status.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(pre.status.plugin(), "F1");
  EXPECT_EQ(world_.Calls(), (Strings{"PreFilter:F1"}));

  B("F1").pre_filter = Status::Error("boom");
  pre = f->RunPreFilterPlugins(state, *pod_);
  EXPECT_EQ(pre.status.code(), Code::kError);
  EXPECT_EQ(pre.status.Message(), "running PreFilter plugin \"F1\": boom");
  EXPECT_EQ(pre.status.plugin(), "F1");
}

TEST_F(FrameworkTest, FilterStopsAtFirstFailureWithAttribution) {
  auto f = BuildTwoFailingFilters();
  ASSERT_NE(f, nullptr);
  CycleState state;
  world_.Clear();
  EXPECT_TRUE(f->RunFilterPlugins(state, *pod_, Node("n1")).IsSuccess());
  Status s = f->RunFilterPlugins(state, *pod_, Node("n2"));
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "Insufficient cpu");
  EXPECT_EQ(s.plugin(), "F1");
  EXPECT_EQ(world_.Calls(), (Strings{"Filter/n1/1:F1", "Filter/n1/1:F2", "Filter/n2/0:F1"}));
  s = f->RunFilterPlugins(state, *pod_, Node("n3"));
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "running \"F2\" filter plugin: broken");
  EXPECT_EQ(s.plugin(), "F2");
}

// A run of nodes: each plugin over the nodes still alive, the same
// statuses as node by node; nodes whose bit is clear are not visited.
TEST_F(FrameworkTest, FilterOnNodesGivesEachNodeItsNodeByNodeStatus) {
  auto f = BuildTwoFailingFilters();
  ASSERT_NE(f, nullptr);
  CycleState state;
  const std::vector<const NodeInfo*> nodes = {&Node("n1"), &Node("n2"), &Node("n3")};
  world_.Clear();
  uint64_t alive = 0b111;
  std::array<Status, 3> out;
  f->RunFilterPluginsOnNodes(state, *pod_, nodes, &alive, out.data());
  EXPECT_EQ(alive, 0b001u);
  EXPECT_TRUE(out[0].IsSuccess());
  for (size_t i = 1; i < nodes.size(); ++i) {
    const Status one = f->RunFilterPlugins(state, *pod_, *nodes[i]);
    EXPECT_EQ(out[i].code(), one.code()) << i;
    EXPECT_EQ(out[i].Message(), one.Message()) << i;
    EXPECT_EQ(out[i].plugin(), one.plugin()) << i;
  }
  EXPECT_EQ(out[1].plugin(), "F1");
  EXPECT_EQ(out[2].Message(), "running \"F2\" filter plugin: broken");
  EXPECT_EQ(world_.Calls(), (Strings{"Filter/n1/1:F1", "Filter/n2/0:F1", "Filter/n3/0:F1", "Filter/n1/1:F2",
                                     "Filter/n3/0:F2", "Filter/n2/0:F1", "Filter/n3/0:F1", "Filter/n3/0:F2"}));

  world_.Clear();
  alive = 0b101;
  out = {};
  f->RunFilterPluginsOnNodes(state, *pod_, nodes, &alive, out.data());
  EXPECT_EQ(alive, 0b001u);
  EXPECT_TRUE(out[1].IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"Filter/n1/1:F1", "Filter/n3/0:F1", "Filter/n1/1:F2", "Filter/n3/0:F2"}));

  // While a pod is nominated, node by node with the two passes.
  nominator_.pods["n1"] = {std::make_shared<PodInfo>(MakePod("high").Priority(100).Obj())};
  world_.Clear();
  alive = 0b011;
  out = {};
  f->RunFilterPluginsOnNodes(state, *pod_, nodes, &alive, out.data());
  EXPECT_EQ(alive, 0b001u);
  EXPECT_EQ(out[1].plugin(), "F1");
  EXPECT_EQ(world_.Calls(), (Strings{"AddPod/high:F1", "AddPod/high:F2", "Filter/n1/2:F1", "Filter/n1/2:F2",
                                     "Filter/n1/1:F1", "Filter/n1/1:F2", "Filter/n2/0:F1"}));
}

TEST_F(FrameworkTest, FilterWithNominatedPodsRunsTwoPasses) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  CycleState state;
  ASSERT_TRUE(f->RunPreFilterPlugins(state, *pod_).status.IsSuccess());

  // No nominated pods: one pass.
  world_.Clear();
  EXPECT_TRUE(f->RunFilterPluginsWithNominatedPods(state, *pod_, Node("n2")).IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"Filter/n2/0:F1"}));

  // A higher-priority nominated pod counts (pass 1), then the node is
  // checked without it (pass 2). Lower-priority ones and the pod itself do
  // not count.
  nominator_.pods["n2"] = {std::make_shared<PodInfo>(MakePod("high").Priority(100).Obj()),
                           std::make_shared<PodInfo>(MakePod("low").Priority(1).Obj()),
                           std::make_shared<PodInfo>(pod_)};
  world_.Clear();
  EXPECT_TRUE(f->RunFilterPluginsWithNominatedPods(state, *pod_, Node("n2")).IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"AddPod/high:F1", "Filter/n2/1:F1", "Filter/n2/0:F1"}));
  EXPECT_EQ(Node("n2").pods().size(), 0u);  // the snapshot is untouched

  // Fails with the nominated pod: rejected, no second pass.
  B("F1").max_pods = 1;
  world_.Clear();
  Status s = f->RunFilterPluginsWithNominatedPods(state, *pod_, Node("n2"));
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "F1");
  EXPECT_EQ(world_.Calls(), (Strings{"AddPod/high:F1", "Filter/n2/1:F1"}));

  // An AddPod failure is an error.
  B("F1").max_pods = 0;
  B("F1").add_pod = Status::Error("cannot add");
  s = f->RunFilterPluginsWithNominatedPods(state, *pod_, Node("n2"));
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "running AddPod on PreFilter plugin \"F1\": cannot add");
}

// ---------------------------------------------------------------- PostFilter

TEST_F(FrameworkTest, PostFilter) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2"), P("C3")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  CycleState state;
  NodeToStatus statuses;
  B("C1").post_filter = Status(Code::kUnschedulable, "r1");
  B("C2").post_filter = Status(Code::kUnschedulable, "r2");
  B("C2").post_filter_result.nominating_info = NominatingInfo{NominatingMode::kOverride, "n1"};
  B("C3").post_filter = Status(Code::kUnschedulable, "r3");
  auto [r, s] = f->RunPostFilterPlugins(state, *pod_, statuses);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.reasons(), (Strings{"r1", "r2", "r3"}));
  EXPECT_EQ(s.plugin(), "C1");
  EXPECT_EQ(r.Mode(), NominatingMode::kOverride);
  EXPECT_EQ(r.nominating_info->nominated_node_name, "n1");

  B("C2").post_filter = Status();
  world_.Clear();
  auto [r2, s2] = f->RunPostFilterPlugins(state, *pod_, statuses);
  EXPECT_TRUE(s2.IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"PostFilter:C1", "PostFilter:C2"}));

  B("C1").post_filter = Status::Error("bad");
  auto [r3, s3] = f->RunPostFilterPlugins(state, *pod_, statuses);
  EXPECT_EQ(s3.code(), Code::kError);
  EXPECT_EQ(s3.plugin(), "C1");
}

// ---------------------------------------------------------------- PreScore / Score

TEST_F(FrameworkTest, PreScoreSkipSkipsScore) {
  profile_.plugins.multi_point.enabled = {P("S1", 2), P("S2", 3), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  B("S1").pre_score = Status(Code::kSkip);
  B("S2").scores = {{"n1", 10}, {"n2", 20}, {"n3", 30}};
  CycleState state;
  const NodeInfoList& nodes = snapshot_->List();
  ASSERT_TRUE(f->RunPreScorePlugins(state, *pod_, nodes).IsSuccess());
  EXPECT_TRUE(state.SkipScorePlugins().Has("S1"));
  world_.Clear();
  NodeScores scores;
  Status s = f->RunScorePlugins(state, *pod_, nodes, &scores);
  ASSERT_TRUE(s.IsSuccess()) << s.ToString();
  EXPECT_EQ(world_.Count("Score:S1"), 0u);
  EXPECT_EQ(world_.Count("Score:S2"), 3u);
  EXPECT_EQ(scores.plugins, (std::vector<std::string_view>{"S2"}));
  EXPECT_EQ(scores.totals, (std::vector<int64_t>{30, 60, 90}));

  B("S1").pre_score = Status::Error("no");
  Status e = f->RunPreScorePlugins(state, *pod_, nodes);
  EXPECT_EQ(e.Message(), "running PreScore plugin \"S1\": no");
}

TEST_F(FrameworkTest, ScoresAreNormalizedAndWeighted) {
  auto f = BuildTwoWeightedScorers();
  ASSERT_NE(f, nullptr);
  CycleState state;
  const NodeInfoList& nodes = snapshot_->List();
  NodeScores scores;
  Status s = f->RunScorePlugins(state, *pod_, nodes, &scores, /*keep_raw=*/true);
  ASSERT_TRUE(s.IsSuccess()) << s.ToString();
  ASSERT_EQ(scores.plugins, (std::vector<std::string_view>{"S1", "S2"}));
  ASSERT_EQ(nodes[0]->node_name(), "n1");
  // S1 (weight 2) scores 1, 2, 3, normalized to 33, 66, 100; S2 (weight
  // 3) 100, 0, 50.
  EXPECT_EQ(scores.raw, (std::vector<std::vector<int64_t>>{{1, 2, 3}, {100, 0, 50}}));
  EXPECT_EQ(scores.totals, (std::vector<int64_t>{33 * 2 + 300, 66 * 2 + 0, 100 * 2 + 150}));
  EXPECT_EQ(world_.Count("Normalize:S1"), 1u);

  B("S2").scores["n2"] = 101;  // out of range, no normalization
  NodeScores bad;
  Status e = f->RunScorePlugins(state, *pod_, nodes, &bad);
  EXPECT_EQ(e.code(), Code::kError);
  EXPECT_EQ(e.Message(),
            "applying score defaultWeights on Score plugins: plugin \"S2\" returns an invalid score 101, it should in "
            "the range of [0, 100] after normalizing");

  B("S2").score = Status::Error("crash");
  NodeScores bad2;
  Status e2 = f->RunScorePlugins(state, *pod_, nodes, &bad2);
  EXPECT_EQ(e2.Message(), "running Score plugins: plugin \"S2\" failed with: crash");
}

// The scheduler keeps one NodeScores across cycles: each call overwrites
// every field, whatever the last cycle left.
TEST_F(FrameworkTest, AReusedNodeScoresHoldsOnlyTheLatestCycle) {
  auto f = BuildTwoWeightedScorers();
  ASSERT_NE(f, nullptr);
  CycleState state;
  const NodeInfoList& nodes = snapshot_->List();
  NodeScores reused;
  ASSERT_TRUE(f->RunScorePlugins(state, *pod_, nodes, &reused, /*keep_raw=*/true).IsSuccess());
  ASSERT_EQ(reused.raw.size(), 2u);

  const NodeInfoList two(nodes.begin(), nodes.begin() + 2);
  ASSERT_TRUE(f->RunScorePlugins(state, *pod_, two, &reused).IsSuccess());
  NodeScores fresh;
  ASSERT_TRUE(f->RunScorePlugins(state, *pod_, two, &fresh).IsSuccess());
  EXPECT_EQ(reused.plugins, fresh.plugins);
  EXPECT_EQ(reused.totals, fresh.totals);
  EXPECT_TRUE(reused.raw.empty());
  EXPECT_EQ(reused.totals.size(), 2u);
}

// Nodes are scored in runs, each plugin over a run at once: 11 nodes make
// runs of 3 (kube's chunk size) and a last one of 2. Every node still gets
// its own score from each plugin, named and in node order.
TEST_F(FrameworkTest, NodesAreScoredInRunsInNodeOrder) {
  std::vector<std::shared_ptr<const api::Node>> nodes;
  for (int i = 0; i < 11; ++i) nodes.push_back(MakeNode("m" + std::to_string(i)).Obj());
  snapshot_ = cache::Snapshot::FromObjects({}, nodes);
  profile_.plugins.multi_point.enabled = {P("S1", 1), P("S2", 2), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 11; ++i) {
    B("S1").scores["m" + std::to_string(i)] = i;
    B("S2").scores["m" + std::to_string(i)] = 50 + i;
  }
  CycleState state;
  const NodeInfoList& list = snapshot_->List();
  NodeScores scores;
  Status s = f->RunScorePlugins(state, *pod_, list, &scores, /*keep_raw=*/true);
  ASSERT_TRUE(s.IsSuccess()) << s.ToString();
  ASSERT_EQ(scores.totals.size(), 11u);
  ASSERT_EQ(scores.raw.size(), 2u);
  for (size_t i = 0; i < list.size(); ++i) {
    const int64_t n = std::stoi(list[i]->node_name().substr(1));
    EXPECT_EQ(scores.raw[0][i], n) << list[i]->node_name();
    EXPECT_EQ(scores.raw[1][i], 50 + n) << list[i]->node_name();
    EXPECT_EQ(scores.totals[i], n + 2 * (50 + n)) << list[i]->node_name();
  }
  EXPECT_EQ(world_.Count("Score:S1"), 11u);
  EXPECT_EQ(world_.Count("Score:S2"), 11u);
}

// Batching's rescoring: the raw scores kept by RunScorePlugins, normalized
// again by NormalizeScores, give the same totals; RunRawScorePlugins scores
// one node before normalization.
TEST_F(FrameworkTest, RawScoresNormalizeToTheSameTotals) {
  auto f = BuildTwoWeightedScorers();
  ASSERT_NE(f, nullptr);
  CycleState state;
  const NodeInfoList& nodes = snapshot_->List();
  NodeScores scores;
  Status s = f->RunScorePlugins(state, *pod_, nodes, &scores, /*keep_raw=*/true);
  ASSERT_TRUE(s.IsSuccess()) << s.ToString();
  EXPECT_EQ(scores.raw, (std::vector<std::vector<int64_t>>{{1, 2, 3}, {100, 0, 50}}));

  auto [one, os] = f->RunRawScorePlugins(state, *pod_, *nodes[2]);
  ASSERT_TRUE(os.IsSuccess()) << os.ToString();
  EXPECT_EQ(one.plugins, (std::vector<std::string_view>{"S1", "S2"}));
  EXPECT_EQ(one.scores, (std::vector<int64_t>{3, 50}));

  std::vector<std::string_view> names;
  for (const NodeInfo* ni : nodes) names.push_back(ni->node_name());
  auto raw = [&](std::string_view plugin, size_t node) { return scores.raw[plugin == "S1" ? 0 : 1][node]; };
  auto [totals, ns] = f->NormalizeScores(state, *pod_, names, raw);
  ASSERT_TRUE(ns.IsSuccess()) << ns.ToString();
  EXPECT_EQ(totals, scores.totals);

  // Without n3 (S1's best), S1 normalizes n2 to 100.
  names.pop_back();
  auto [fewer, fs] = f->NormalizeScores(state, *pod_, names, raw);
  ASSERT_TRUE(fs.IsSuccess());
  EXPECT_EQ(fewer, (std::vector<int64_t>{50 * 2 + 300, 100 * 2 + 0}));
}

// The observer reads raw scores, kept only for the plugins that normalize,
// and the normalized ones and totals the framework computed.
class ScoreViewRecorder final : public CycleObserver {
 public:
  void ObserveFilter(const api::Pod&, const NodeInfoList&, const NodeToStatus&) override {}
  void ObserveScores(const api::Pod&, const ScoreView& v) override {
    ++calls;
    plugins.assign(v.plugins.begin(), v.plugins.end());
    weights = v.weights;
    totals = v.totals;
    kept_raw.clear();
    raw.assign(v.plugins.size(), {});
    normalized.assign(v.plugins.size(), {});
    for (size_t j = 0; j < v.plugins.size(); ++j) {
      kept_raw.push_back(!v.raw_normalized[j].empty());
      for (size_t i = 0; i < v.nodes.size(); ++i) {
        raw[j].push_back(v.Raw(j, i));
        normalized[j].push_back(v.Normalized(j, i));
      }
    }
  }
  int calls = 0;
  std::vector<std::string> plugins;
  std::vector<int64_t> weights, totals;
  std::vector<bool> kept_raw;
  std::vector<std::vector<int64_t>> raw, normalized;
};

TEST_F(FrameworkTest, ObserverSeesRawAndNormalizedScoresAndTotals) {
  profile_.plugins.multi_point.enabled = {P("S1", 2), P("S2", 3), P("C1")};
  ScoreViewRecorder observer;
  FrameworkOptions o = Options();
  o.observer = &observer;
  auto built = Framework::New(registry_, profile_, o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  std::unique_ptr<Framework> f = std::move(built).value();
  B("S1").scores = {{"n1", 1}, {"n2", 2}, {"n3", 3}};
  B("S1").normalize = true;
  B("S2").scores = {{"n1", 100}, {"n2", 0}, {"n3", 50}};
  CycleState state;
  NodeScores scores;
  Status s = f->RunScorePlugins(state, *pod_, snapshot_->List(), &scores);
  ASSERT_TRUE(s.IsSuccess()) << s.ToString();
  ASSERT_EQ(observer.calls, 1);
  EXPECT_EQ(observer.plugins, (std::vector<std::string>{"S1", "S2"}));
  EXPECT_EQ(observer.weights, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(observer.kept_raw, (std::vector<bool>{true, false}));  // S2 has no NormalizeScore
  EXPECT_EQ(observer.raw, (std::vector<std::vector<int64_t>>{{1, 2, 3}, {100, 0, 50}}));
  EXPECT_EQ(observer.normalized, (std::vector<std::vector<int64_t>>{{33, 66, 100}, {100, 0, 50}}));
  EXPECT_EQ(observer.totals, scores.totals);

  // A later cycle where S1 does not normalize keeps no raw list for it.
  B("S1").normalize = false;
  ASSERT_TRUE(f->RunScorePlugins(state, *pod_, snapshot_->List(), &scores).IsSuccess());
  EXPECT_EQ(observer.kept_raw, (std::vector<bool>{false, false}));
  EXPECT_EQ(observer.raw[0], (std::vector<int64_t>{1, 2, 3}));
}

// ---------------------------------------------------------------- Reserve / Permit

TEST_F(FrameworkTest, ReserveInOrderUnreserveInReverse) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2"), P("C3")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  CycleState state;
  world_.Clear();
  EXPECT_TRUE(f->RunReservePluginsReserve(state, *pod_, "n1").IsSuccess());
  f->RunReservePluginsUnreserve(state, *pod_, "n1");
  EXPECT_EQ(world_.Calls(), (Strings{"Reserve:C1", "Reserve:C2", "Reserve:C3", "Unreserve:C3", "Unreserve:C2",
                                     "Unreserve:C1"}));

  B("C2").reserve = Status(Code::kUnschedulable, "no room");
  world_.Clear();
  Status s = f->RunReservePluginsReserve(state, *pod_, "n1");
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "C2");
  EXPECT_EQ(world_.Calls(), (Strings{"Reserve:C1", "Reserve:C2"}));

  B("C2").reserve = Status::Error("disk");
  s = f->RunReservePluginsReserve(state, *pod_, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "running Reserve plugin \"C2\": disk");
}

TEST_F(FrameworkTest, PermitWaitThenAllow) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  B("C1").permit = Status(Code::kWait);
  B("C1").permit_timeout = seconds(10);
  CycleState state;
  Status s = f->RunPermitPlugins(state, pod_, "n1");
  EXPECT_EQ(s.code(), Code::kWait);
  EXPECT_EQ(s.Message(), "one or more plugins asked to wait and no plugin rejected pod \"pod\"");
  EXPECT_TRUE(f->WillWaitOnPermit(*pod_));
  ASSERT_NE(f->GetWaitingPod(pod_->metadata.uid), nullptr);
  EXPECT_EQ(f->GetWaitingPod(pod_->metadata.uid)->GetPendingPlugins(), (Strings{"C1"}));

  std::future<Status> waiter = std::async(std::launch::async, [&] { return f->WaitOnPermit(*pod_); });
  // Another thread (e.g. a plugin reacting to an event) allows it.
  std::thread([&] {
    f->IterateOverWaitingPods([](WaitingPod& wp) { wp.Allow("C1"); });
  }).join();
  EXPECT_TRUE(waiter.get().IsSuccess());
  EXPECT_FALSE(f->WillWaitOnPermit(*pod_));
  EXPECT_TRUE(f->WaitOnPermit(*pod_).IsSuccess());  // not waiting: immediate
  EXPECT_EQ(metrics_.permit_waits, (Strings{"Success"}));
}

TEST_F(FrameworkTest, PermitRejectAndTimeout) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  B("C1").permit = Status(Code::kWait);
  B("C1").permit_timeout = minutes(60);  // capped at 15 minutes
  CycleState state;

  ASSERT_EQ(f->RunPermitPlugins(state, pod_, "n1").code(), Code::kWait);
  EXPECT_TRUE(f->RejectWaitingPod(pod_->metadata.uid));
  Status s = f->WaitOnPermit(*pod_);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "removed");
  EXPECT_FALSE(f->RejectWaitingPod(pod_->metadata.uid));

  ASSERT_EQ(f->RunPermitPlugins(state, pod_, "n1").code(), Code::kWait);
  std::future<Status> waiter = std::async(std::launch::async, [&] { return f->WaitOnPermit(*pod_); });
  clock_.Step(minutes(15) - seconds(1));
  EXPECT_FALSE(f->GetWaitingPod(pod_->metadata.uid)->TryGet().has_value());
  clock_.Step(seconds(2));
  s = waiter.get();
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "rejected due to timeout after waiting 15m0s at plugin C1");
  EXPECT_EQ(s.plugin(), "C1");

  // A rejection at Permit itself stops the chain.
  B("C1").permit = Status(Code::kUnschedulable, "denied");
  world_.Clear();
  s = f->RunPermitPlugins(state, pod_, "n1");
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "C1");
  EXPECT_EQ(world_.Calls(), (Strings{"Permit:C1"}));
  EXPECT_FALSE(f->WillWaitOnPermit(*pod_));

  B("C1").permit = Status::Error("io");
  s = f->RunPermitPlugins(state, pod_, "n1");
  EXPECT_EQ(s.Message(), "running Permit plugin \"C1\": io");
  EXPECT_EQ(s.plugin(), "C1");
}

TEST_F(FrameworkTest, WaitingPodsAreSharedAcrossProfiles) {
  profile_.plugins.multi_point.enabled = {P("C1")};
  FrameworkOptions o = Options();
  o.waiting_pods = std::make_shared<WaitingPodsMap>();
  auto a = Framework::New(registry_, profile_, o);
  auto b = Framework::New(registry_, profile_, o);
  ASSERT_TRUE(a.ok() && b.ok());
  B("C1").permit = Status(Code::kWait);
  B("C1").permit_timeout = seconds(5);
  CycleState state;
  ASSERT_EQ((*a)->RunPermitPlugins(state, pod_, "n1").code(), Code::kWait);
  EXPECT_NE((*b)->GetWaitingPod(pod_->metadata.uid), nullptr);
}

// ---------------------------------------------------------------- binding

TEST_F(FrameworkTest, BindRunsUntilOneDoesNotSkip) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2"), P("C3")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  CycleState state;
  B("C1").bind = Status(Code::kSkip);
  world_.Clear();
  EXPECT_TRUE(f->RunBindPlugins(state, *pod_, "n1").IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"Bind/n1:C1", "Bind/n1:C2"}));

  B("C2").bind = Status(Code::kSkip);
  B("C3").bind = Status(Code::kSkip);
  EXPECT_EQ(f->RunBindPlugins(state, *pod_, "n1").code(), Code::kSkip);

  B("C2").bind = Status::Error("409");
  Status s = f->RunBindPlugins(state, *pod_, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "running Bind plugin \"C2\": 409");

  B("C2").bind = Status(Code::kUnschedulable, "nope");
  s = f->RunBindPlugins(state, *pod_, "n1");
  EXPECT_EQ(s.plugin(), "C2");
}

TEST_F(FrameworkTest, PreBindStopsAtFailurePostBindRunsAll) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  CycleState state;
  world_.Clear();
  EXPECT_TRUE(f->RunPreBindPlugins(state, *pod_, "n1").IsSuccess());
  f->RunPostBindPlugins(state, *pod_, "n1");
  EXPECT_EQ(world_.Calls(), (Strings{"PreBind:C1", "PreBind:C2", "PostBind:C1", "PostBind:C2"}));
  B("C1").pre_bind = Status::Error("volume");
  world_.Clear();
  Status s = f->RunPreBindPlugins(state, *pod_, "n1");
  EXPECT_EQ(s.Message(), "running PreBind plugin \"C1\": volume");
  EXPECT_EQ(world_.Calls(), (Strings{"PreBind:C1"}));
}

// A PreBind that waits until its cycle's cancellation ends the wait, as
// BindingWaits::PollUntil does, and fails with PollUntil's error.
Status WaitForCancellation(CycleState& state) {
  Cancellation* c = state.PreBindCancellation();
  if (c == nullptr) return Status::Error("no cancellation");
  std::promise<void> cancelled;
  const uint64_t id = c->Subscribe([&] { cancelled.set_value(); });
  // Bounded so that a broken framework fails the test instead of hanging it.
  const bool ended = cancelled.get_future().wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  c->Unsubscribe(id);
  if (!ended) return Status::Error("never cancelled");
  return Status::FromError(util::Status(util::StatusCode::kCancelled, "binding volumes: context canceled"));
}

FeatureGates ParallelPreBind() {
  FeatureGates g;
  g.nominated_node_name_for_expectation = true;
  g.parallel_pre_bind = true;
  return g;
}

// kube 1.36: consecutive PreBinds that allow it run at once (C1 finishes
// only once C2 has started); the others run alone, in order.
TEST_F(FrameworkTest, ParallelPreBindsRunTogetherOthersAlone) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2"), P("C3")};
  auto f = Build(ParallelPreBind());
  ASSERT_NE(f, nullptr);
  B("C1").parallel_pre_bind = true;
  B("C2").parallel_pre_bind = true;
  std::promise<void> c2_started;
  std::shared_future<void> c2_running = c2_started.get_future().share();
  B("C1").pre_bind_fn = [&](CycleState&) {
    const bool together = c2_running.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
    return together ? Status() : Status::Error("C2 did not run beside C1");
  };
  B("C2").pre_bind_fn = [&](CycleState&) {
    c2_started.set_value();
    return Status();
  };
  CycleState state;
  ASSERT_TRUE(f->RunPreBindPreFlights(state, *pod_, "n1").IsSuccess());
  EXPECT_TRUE(state.ParallelPreBindPlugins().Has("C1"));
  EXPECT_FALSE(state.ParallelPreBindPlugins().Has("C3"));
  world_.Clear();
  Status s = f->RunPreBindPlugins(state, *pod_, "n1");
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  std::vector<std::string> calls = world_.Calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[2], "PreBind:C3");
}

// The first failure in a group is the answer; it cancels the others' waits.
TEST_F(FrameworkTest, AFailingParallelPreBindCancelsTheOthers) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2")};
  auto f = Build(ParallelPreBind());
  ASSERT_NE(f, nullptr);
  B("C1").parallel_pre_bind = true;
  B("C2").parallel_pre_bind = true;
  std::string c1_cause;
  B("C1").pre_bind_fn = [&](CycleState& state) {
    Status waited = WaitForCancellation(state);
    c1_cause = state.PreBindCancellation()->Cause();
    return waited;
  };
  B("C2").pre_bind = Status::Error("claim write failed");
  CycleState state;
  ASSERT_TRUE(f->RunPreBindPreFlights(state, *pod_, "n1").IsSuccess());
  Status s = f->RunPreBindPlugins(state, *pod_, "n1");
  EXPECT_EQ(s.Message(), "running PreBind plugin \"C2\": claim write failed");
  EXPECT_EQ(c1_cause, "some other PreBind operation failed");
  EXPECT_EQ(state.PreBindCancellation(), nullptr);
}

// A wait ended by the pod's cancellation (preemption) reports its cause,
// in a group or alone.
TEST_F(FrameworkTest, APreBindCancelledByPreemptionReportsTheCause) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2")};
  auto f = Build(ParallelPreBind());
  ASSERT_NE(f, nullptr);
  B("C1").parallel_pre_bind = true;
  B("C2").parallel_pre_bind = true;
  B("C1").pre_bind_fn = WaitForCancellation;
  B("C2").pre_bind_fn = WaitForCancellation;
  CycleState state;
  Cancellation pod_cancellation;
  state.SetPreBindCancellation(&pod_cancellation);
  ASSERT_TRUE(f->RunPreBindPreFlights(state, *pod_, "n1").IsSuccess());
  std::thread preemption([&] { pod_cancellation.Cancel("preempted by DefaultPreemption"); });
  Status s = f->RunPreBindPlugins(state, *pod_, "n1");
  preemption.join();
  EXPECT_TRUE(s.Message() == "running PreBind plugin \"C1\": preempted by DefaultPreemption" ||
              s.Message() == "running PreBind plugin \"C2\": preempted by DefaultPreemption")
      << s.Message();
  EXPECT_EQ(state.PreBindCancellation(), &pod_cancellation);

  // Before 1.36 nothing runs in parallel: C1 alone, first.
  auto old = Build();
  ASSERT_NE(old, nullptr);
  CycleState sequential;
  sequential.SetPreBindCancellation(&pod_cancellation);
  ASSERT_TRUE(old->RunPreBindPreFlights(sequential, *pod_, "n1").IsSuccess());
  EXPECT_TRUE(sequential.ParallelPreBindPlugins().empty());
  world_.Clear();
  s = old->RunPreBindPlugins(sequential, *pod_, "n1");
  EXPECT_EQ(s.Message(), "running PreBind plugin \"C1\": preempted by DefaultPreemption");
  EXPECT_EQ(world_.Calls(), (Strings{"PreBind:C1"}));
}

TEST_F(FrameworkTest, PreBindPreFlightsSkipPluginsWithoutWork) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  // Both skip: Skip, and PreBind runs neither.
  B("C1").pre_bind_pre_flight = Status(Code::kSkip);
  B("C2").pre_bind_pre_flight = Status(Code::kSkip);
  CycleState state;
  state.SetRecordPluginMetrics(true);
  world_.Clear();
  EXPECT_EQ(f->RunPreBindPreFlights(state, *pod_, "n1").code(), Code::kSkip);
  EXPECT_TRUE(f->RunPreBindPlugins(state, *pod_, "n1").IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"PreBindPreFlight:C1", "PreBindPreFlight:C2"}));
  EXPECT_NE(std::find(metrics_.points.begin(), metrics_.points.end(), "PreBindPreFlight/Skip/test-profile"),
            metrics_.points.end());
  EXPECT_NE(std::find(metrics_.plugin_durations.begin(), metrics_.plugin_durations.end(),
                      "PreBindPreFlight/C1/Skip"),
            metrics_.plugin_durations.end());

  // One has work: Success, and only it runs.
  B("C2").pre_bind_pre_flight = Status();
  CycleState second;
  world_.Clear();
  EXPECT_TRUE(f->RunPreBindPreFlights(second, *pod_, "n1").IsSuccess());
  EXPECT_TRUE(f->RunPreBindPlugins(second, *pod_, "n1").IsSuccess());
  EXPECT_EQ(world_.Calls(), (Strings{"PreBindPreFlight:C1", "PreBindPreFlight:C2", "PreBind:C2"}));
}

TEST_F(FrameworkTest, PreBindPreFlightErrorsAndUnsupportedCodes) {
  profile_.plugins.multi_point.enabled = {P("C1"), P("C2")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  CycleState state;
  B("C1").pre_bind_pre_flight = Status::Error("no pod volume found for node \"n1\"");
  world_.Clear();
  Status s = f->RunPreBindPreFlights(state, *pod_, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "running PreBindPreFlight \"C1\": no pod volume found for node \"n1\"");
  EXPECT_EQ(world_.Calls(), (Strings{"PreBindPreFlight:C1"}));

  B("C1").pre_bind_pre_flight = Status(Code::kUnschedulable, "no");
  s = f->RunPreBindPreFlights(state, *pod_, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "PreBindPreFlight C1 returned \"Unschedulable\", which is unsupported. It is supposed to return Success, "
            "Skip, or Error status");
}

// ---------------------------------------------------------------- handle, metrics

TEST_F(FrameworkTest, HandleExposesDependencies) {
  profile_.plugins.multi_point.enabled = {P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  Handle& h = *f;
  EXPECT_EQ(&h.SnapshotSharedLister(), snapshot_.get());
  EXPECT_EQ(&h.Parallelizer(), &parallelizer_);
  EXPECT_EQ(&h.Clock(), &clock_);
  EXPECT_EQ(h.Client(), nullptr);
  EXPECT_TRUE(h.Listers().PersistentVolumeClaims().List().empty());
  nominator_.pods["n1"] = {std::make_shared<PodInfo>(MakePod("nom").Obj())};
  EXPECT_EQ(h.NominatedPodsForNode("n1").size(), 1u);
  h.Activate({MakePod("a").Obj()});
  EXPECT_EQ(activator_.activated, (Strings{"a"}));
}

TEST_F(FrameworkTest, RecordsMetrics) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("FO"), P("S1"), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  CycleState state;
  state.SetRecordPluginMetrics(true);
  ASSERT_TRUE(f->RunPreFilterPlugins(state, *pod_).status.IsSuccess());
  for (const NodeInfo* ni : snapshot_->List()) EXPECT_TRUE(f->RunFilterPlugins(state, *pod_, *ni).IsSuccess());
  NodeScores scores;
  Status s = f->RunScorePlugins(state, *pod_, snapshot_->List(), &scores);
  ASSERT_TRUE(s.IsSuccess());
  f->FlushMetrics();
  EXPECT_EQ(metrics_.evaluations["PreFilter/F1"], 1);
  EXPECT_EQ(metrics_.evaluations["Filter/F1"], 3);
  EXPECT_EQ(metrics_.evaluations["Filter/FO"], 3);
  EXPECT_EQ(metrics_.evaluations["Score/S1"], 3);
  EXPECT_NE(std::find(metrics_.points.begin(), metrics_.points.end(), "PreFilter/Success/test-profile"),
            metrics_.points.end());
  EXPECT_NE(std::find(metrics_.points.begin(), metrics_.points.end(), "Score/Success/test-profile"),
            metrics_.points.end());
  EXPECT_NE(std::find(metrics_.plugin_durations.begin(), metrics_.plugin_durations.end(), "Filter/FO/Success"),
            metrics_.plugin_durations.end());
}

// Every signing is timed, as kube times its Sign extension point: the point
// labelled Success even when a plugin refuses, each plugin with its code.
TEST_F(FrameworkTest, SignPodRecordsTheSignExtensionPoint) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  class Signs final : public SignPlugin {
   public:
    explicit Signs(Code code) : code_(code) {}
    Status SignPod(const api::Pod&, std::vector<SignFragment>& out) const override {
      out.push_back(SignFragment{signer::kNodeName, ""});
      return Status(code_);
    }

   private:
    Code code_;
  } signs(Code::kSuccess), refuses(Code::kUnschedulable);
  EXPECT_TRUE(f->SignPod(PodSigner({{"NodeName", &signs}}), *pod_).has_value());
  EXPECT_FALSE(f->SignPod(PodSigner({{"NodeName", &signs}, {"InterPodAffinity", &refuses}}), *pod_).has_value());
  EXPECT_EQ(std::count(metrics_.points.begin(), metrics_.points.end(), "Sign/Success/test-profile"), 2);
  EXPECT_EQ(metrics_.plugin_durations,
            (Strings{"Sign/NodeName/Success", "Sign/NodeName/Success", "Sign/InterPodAffinity/Unschedulable"}));
}


TEST_F(FrameworkTest, PerNodeMetricsFromManyThreadsAreFlushedOnce) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("FO"), P("S1"), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  CycleState state;
  state.SetRecordPluginMetrics(true);
  ASSERT_TRUE(f->RunPreFilterPlugins(state, *pod_).status.IsSuccess());
  B("FO").filter["n3"] = Status(Code::kUnschedulable, "no");
  // Filter from several threads, as the scheduler's workers do.
  constexpr int kThreads = 4, kPerThread = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        // Only the counts matter here (FO rejects n3).
        for (const NodeInfo* ni : snapshot_->List()) (void)f->RunFilterPlugins(state, *pod_, *ni);
      }
    });
  }
  for (auto& t : threads) t.join();
  NodeScores scores;
  Status s = f->RunScorePlugins(state, *pod_, snapshot_->List(), &scores);
  ASSERT_TRUE(s.IsSuccess());
  auto count = [&](const std::string& what) {
    return std::count(metrics_.plugin_durations.begin(), metrics_.plugin_durations.end(), what);
  };
  // Nothing per node reaches the recorder before the flush (PreFilter's
  // duration, once per cycle, is recorded at once).
  EXPECT_EQ(metrics_.evaluations.count("Filter/F1"), 0u);
  EXPECT_EQ(count("PreFilter/F1/Success"), 1);
  EXPECT_EQ(count("Filter/F1/Success"), 0);
  EXPECT_EQ(count("Score/S1/Success"), 0);
  f->FlushMetrics();
  const int64_t calls = kThreads * kPerThread * 3;
  EXPECT_EQ(metrics_.evaluations["Filter/F1"], calls);
  EXPECT_EQ(metrics_.evaluations["Filter/FO"], calls);
  EXPECT_EQ(metrics_.evaluations["Score/S1"], 3);
  EXPECT_EQ(count("Filter/F1/Success"), calls);
  EXPECT_EQ(count("Filter/FO/Success"), calls * 2 / 3);
  EXPECT_EQ(count("Filter/FO/Unschedulable"), calls / 3);
  EXPECT_EQ(count("Score/S1/Success"), 3);
  // A second flush adds nothing; later work is counted from there.
  f->FlushMetrics();
  EXPECT_EQ(metrics_.evaluations["Filter/F1"], calls);
  EXPECT_TRUE(f->RunFilterPlugins(state, *pod_, Node("n1")).IsSuccess());
  f->FlushMetrics();
  EXPECT_EQ(metrics_.evaluations["Filter/F1"], calls + 1);
  EXPECT_EQ(count("Filter/F1/Success"), calls + 1);
}

TEST_F(FrameworkTest, UnsampledCyclesRecordNoPluginDurations) {
  profile_.plugins.multi_point.enabled = {P("F1"), P("S1"), P("C1")};
  auto f = Build();
  ASSERT_NE(f, nullptr);
  CycleState state;
  ASSERT_TRUE(f->RunPreFilterPlugins(state, *pod_).status.IsSuccess());
  for (const NodeInfo* ni : snapshot_->List()) EXPECT_TRUE(f->RunFilterPlugins(state, *pod_, *ni).IsSuccess());
  ASSERT_TRUE(f->RunPreScorePlugins(state, *pod_, snapshot_->List()).IsSuccess());
  NodeScores scores;
  ASSERT_TRUE(f->RunScorePlugins(state, *pod_, snapshot_->List(), &scores).IsSuccess());
  f->FlushMetrics();
  EXPECT_TRUE(metrics_.plugin_durations.empty());
  EXPECT_EQ(metrics_.evaluations["Filter/F1"], 3);
  EXPECT_EQ(metrics_.evaluations["PreFilter/F1"], 1);
  EXPECT_EQ(metrics_.evaluations["PreScore/S1"], 1);
}

}  // namespace
}  // namespace ksched::scheduler::framework::runtime
