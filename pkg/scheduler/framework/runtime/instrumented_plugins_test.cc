#include "pkg/scheduler/framework/runtime/instrumented_plugins.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/test_objects.h"
#include "spdlog/fmt/fmt.h"

namespace ksched::scheduler::framework::runtime {
namespace {

using std::chrono::milliseconds;

// Records every observation as "point/plugin/status" with its seconds.
class Recorder final : public FrameworkMetricsRecorder {
 public:
  void ObserveExtensionPointDuration(std::string_view, Code, std::string_view, double) override {}
  void ObservePluginDuration(std::string_view point, std::string_view plugin, Code status, double seconds) override {
    std::lock_guard<std::mutex> l(mu);
    durations.emplace_back(fmt::format("{}/{}/{}", point, plugin, CodeName(status)), seconds);
  }
  void AddPluginEvaluations(std::string_view point, std::string_view plugin, std::string_view profile,
                            int64_t count) override {
    std::lock_guard<std::mutex> l(mu);
    evaluations[fmt::format("{}/{}/{}", point, plugin, profile)] += count;
  }
  void ObservePermitWaitDuration(Code, double) override {}

  std::mutex mu;
  std::vector<std::pair<std::string, double>> durations;
  std::map<std::string, int64_t> evaluations;
};

// A plugin at every point of the cycles; each call takes `step` on the fake
// clock and returns `status` (Score: `score` too).
class Every final : public PreFilterPlugin,
                    public PreFilterExtensions,
                    public FilterPlugin,
                    public PostFilterPlugin,
                    public PreScorePlugin,
                    public ScorePlugin,
                    public ScoreExtensions,
                    public ReservePlugin,
                    public PermitPlugin,
                    public PreBindPlugin,
                    public BindPlugin,
                    public PostBindPlugin {
 public:
  explicit Every(util::FakeClock& clock) : clock_(clock) {}
  std::string_view Name() const override { return "Every"; }

  std::pair<PreFilterResult, Status> PreFilter(CycleState&, const api::Pod&, const NodeInfoList&) override {
    return {PreFilterResult{}, Call("PreFilter")};
  }
  PreFilterExtensions* GetPreFilterExtensions() override { return extensions ? this : nullptr; }
  Status AddPod(CycleState&, const api::Pod&, const PodInfoPtr&, const NodeInfo&) override { return Call("AddPod"); }
  Status RemovePod(CycleState&, const api::Pod&, const PodInfoPtr&, const NodeInfo&) override {
    return Call("RemovePod");
  }
  Status Filter(CycleState&, const api::Pod&, const NodeInfo&) override { return Call("Filter"); }
  std::pair<PostFilterResult, Status> PostFilter(CycleState&, const api::Pod&, const NodeToStatus&) override {
    return {PostFilterResult{}, Call("PostFilter")};
  }
  Status PreScore(CycleState&, const api::Pod&, const NodeInfoList&) override { return Call("PreScore"); }
  std::pair<int64_t, Status> Score(CycleState&, const api::Pod&, const NodeInfo&) override {
    return {score, Call("Score")};
  }
  Status ScoreNodes(CycleState&, const api::Pod&, std::span<const NodeInfo* const> nodes, NodeScore* out) override {
    for (size_t i = 0; i < nodes.size(); ++i) out[i].score = score;
    return Call("ScoreNodes");
  }
  ScoreExtensions* GetScoreExtensions() override { return extensions ? this : nullptr; }
  Status NormalizeScore(CycleState&, const api::Pod&, NodeScoreList&) override { return Call("NormalizeScore"); }
  Status Reserve(CycleState&, const api::Pod&, std::string_view) override { return Call("Reserve"); }
  void Unreserve(CycleState&, const api::Pod&, std::string_view) override { (void)Call("Unreserve"); }
  std::pair<Status, util::Duration> Permit(CycleState&, const api::Pod&, std::string_view) override {
    return {Call("Permit"), milliseconds(5)};
  }
  Status PreBind(CycleState&, const api::Pod&, std::string_view) override { return Call("PreBind"); }
  Status Bind(CycleState&, const api::Pod&, std::string_view) override { return Call("Bind"); }
  void PostBind(CycleState&, const api::Pod&, std::string_view) override { (void)Call("PostBind"); }

  bool extensions = true;
  Status status;
  int64_t score = 7;
  util::Duration step = milliseconds(3);
  std::vector<std::string> calls;

 private:
  Status Call(std::string what) {
    calls.push_back(std::move(what));
    clock_.Step(step);
    return status;
  }
  util::FakeClock& clock_;
};

class InstrumentedPluginsTest : public ::testing::Test {
 protected:
  // The per-node cells: slot 0 Filter/Every, slot 1 Score/Every.
  void SetUpPerNode(bool time_per_node) {
    filter_counter_ = recorder_.NewEvaluationCounter(extension_point::kFilter, "Every", "prof");
    score_counter_ = recorder_.NewEvaluationCounter(extension_point::kScore, "Every", "prof");
    per_node_ = std::make_unique<ThreadMetrics>(
        recorder_, std::vector<EvaluationCounter*>{filter_counter_.get(), score_counter_.get()},
        std::vector<ThreadMetrics::DurationSeries>{{extension_point::kFilter, "Every"},
                                                   {extension_point::kScore, "Every"}});
    in_ = Instrumentation{&recorder_, &clock_, per_node_.get(), time_per_node};
  }
  std::vector<std::string> DurationNames() {
    std::vector<std::string> out;
    for (const auto& [name, seconds] : recorder_.durations) out.push_back(name);
    return out;
  }

  util::FakeClock clock_;
  Recorder recorder_;
  Every plugin_{clock_};
  std::unique_ptr<EvaluationCounter> filter_counter_;
  std::unique_ptr<EvaluationCounter> score_counter_;
  std::unique_ptr<ThreadMetrics> per_node_;
  Instrumentation in_;
  std::shared_ptr<const api::Pod> pod_ = testing::MakePod("p").Obj();
  NodeInfo node_;
};

TEST_F(InstrumentedPluginsTest, SampledCallsAreTimedAroundThePluginWithItsStatus) {
  SetUpPerNode(true);
  CycleState state;
  state.SetRecordPluginMetrics(true);
  plugin_.status = Status(Code::kUnschedulable, "no");
  InstrumentedPreFilterPlugin pre_filter(plugin_, in_, "prof");
  InstrumentedPostFilterPlugin post_filter(plugin_, in_);
  InstrumentedPreScorePlugin pre_score(plugin_, in_, "prof");
  InstrumentedScorePlugin score(plugin_, in_, 1, *score_counter_);
  InstrumentedReservePlugin reserve(plugin_, in_);
  InstrumentedPermitPlugin permit(plugin_, in_);
  InstrumentedPreBindPlugin pre_bind(plugin_, in_);
  InstrumentedBindPlugin bind(plugin_, in_);
  InstrumentedPostBindPlugin post_bind(plugin_, in_);
  auto info = std::make_shared<PodInfo>(pod_);

  EXPECT_EQ(pre_filter.PreFilter(state, *pod_, {}).second.code(), Code::kUnschedulable);
  EXPECT_EQ(pre_filter.GetPreFilterExtensions()->AddPod(state, *pod_, info, node_).code(), Code::kUnschedulable);
  EXPECT_EQ(pre_filter.GetPreFilterExtensions()->RemovePod(state, *pod_, info, node_).code(), Code::kUnschedulable);
  EXPECT_EQ(post_filter.PostFilter(state, *pod_, NodeToStatus()).second.code(), Code::kUnschedulable);
  EXPECT_EQ(pre_score.PreScore(state, *pod_, {}).code(), Code::kUnschedulable);
  NodeScoreList scores;
  EXPECT_EQ(score.GetScoreExtensions()->NormalizeScore(state, *pod_, scores).code(), Code::kUnschedulable);
  EXPECT_EQ(reserve.Reserve(state, *pod_, "n").code(), Code::kUnschedulable);
  reserve.Unreserve(state, *pod_, "n");
  auto [permit_status, timeout] = permit.Permit(state, *pod_, "n");
  EXPECT_EQ(permit_status.code(), Code::kUnschedulable);
  EXPECT_EQ(timeout, milliseconds(5));
  EXPECT_EQ(pre_bind.PreBind(state, *pod_, "n").code(), Code::kUnschedulable);
  EXPECT_EQ(bind.Bind(state, *pod_, "n").code(), Code::kUnschedulable);
  post_bind.PostBind(state, *pod_, "n");

  // Every call reached the plugin once, in order.
  EXPECT_EQ(plugin_.calls, (std::vector<std::string>{"PreFilter", "AddPod", "RemovePod", "PostFilter", "PreScore",
                                                     "NormalizeScore", "Reserve", "Unreserve", "Permit", "PreBind",
                                                     "Bind", "PostBind"}));
  // One duration per call, labelled with kube's extension point and the
  // plugin's own status (Success for the void methods), lasting the plugin's
  // 3 ms on the injected clock.
  EXPECT_EQ(DurationNames(), (std::vector<std::string>{
                                 "PreFilter/Every/Unschedulable",
                                 "PreFilterExtensionAddPod/Every/Unschedulable",
                                 "PreFilterExtensionRemovePod/Every/Unschedulable",
                                 "PostFilter/Every/Unschedulable",
                                 "PreScore/Every/Unschedulable",
                                 "ScoreExtensionNormalize/Every/Unschedulable",
                                 "Reserve/Every/Unschedulable",
                                 "Unreserve/Every/Success",
                                 "Permit/Every/Unschedulable",
                                 "PreBind/Every/Unschedulable",
                                 "Bind/Every/Unschedulable",
                                 "PostBind/Every/Success",
                             }));
  for (const auto& [name, seconds] : recorder_.durations) EXPECT_DOUBLE_EQ(seconds, 0.003) << name;
  // PreFilter and PreScore count their calls at once.
  EXPECT_EQ(recorder_.evaluations["PreFilter/Every/prof"], 1);
  EXPECT_EQ(recorder_.evaluations["PreScore/Every/prof"], 1);
}

TEST_F(InstrumentedPluginsTest, UnsampledCallsAreCountedButNotTimed) {
  SetUpPerNode(true);
  CycleState state;
  InstrumentedPreFilterPlugin pre_filter(plugin_, in_, "prof");
  InstrumentedPreScorePlugin pre_score(plugin_, in_, "prof");
  InstrumentedBindPlugin bind(plugin_, in_);
  InstrumentedFilterPlugin filter(plugin_, in_, 0);
  InstrumentedScorePlugin score(plugin_, in_, 1, *score_counter_);
  EXPECT_TRUE(pre_filter.PreFilter(state, *pod_, {}).second.IsSuccess());
  EXPECT_TRUE(pre_score.PreScore(state, *pod_, {}).IsSuccess());
  EXPECT_TRUE(bind.Bind(state, *pod_, "n").IsSuccess());
  EXPECT_TRUE(filter.Filter(state, *pod_, node_).IsSuccess());
  EXPECT_EQ(score.Score(state, *pod_, node_).first, 7);
  score.AddEvaluations(1);
  per_node_->Flush();
  EXPECT_TRUE(recorder_.durations.empty());
  EXPECT_EQ(recorder_.evaluations["PreFilter/Every/prof"], 1);
  EXPECT_EQ(recorder_.evaluations["PreScore/Every/prof"], 1);
  EXPECT_EQ(recorder_.evaluations["Filter/Every/prof"], 1);
  EXPECT_EQ(recorder_.evaluations["Score/Every/prof"], 1);
}

// As kube's instrumented PreFilter and PreScore: a plugin that skips the
// pod was not evaluated for it.
TEST_F(InstrumentedPluginsTest, PreFilterAndPreScoreThatSkipAreNotCounted) {
  SetUpPerNode(true);
  CycleState state;
  InstrumentedPreFilterPlugin pre_filter(plugin_, in_, "prof");
  InstrumentedPreScorePlugin pre_score(plugin_, in_, "prof");
  plugin_.status = Status(Code::kSkip);
  EXPECT_TRUE(pre_filter.PreFilter(state, *pod_, {}).second.IsSkip());
  EXPECT_TRUE(pre_score.PreScore(state, *pod_, {}).IsSkip());
  EXPECT_EQ(recorder_.evaluations["PreFilter/Every/prof"], 0);
  EXPECT_EQ(recorder_.evaluations["PreScore/Every/prof"], 0);
  plugin_.status = Status(Code::kUnschedulable, "no");
  EXPECT_EQ(pre_filter.PreFilter(state, *pod_, {}).second.code(), Code::kUnschedulable);
  EXPECT_EQ(pre_score.PreScore(state, *pod_, {}).code(), Code::kUnschedulable);
  EXPECT_EQ(recorder_.evaluations["PreFilter/Every/prof"], 1);
  EXPECT_EQ(recorder_.evaluations["PreScore/Every/prof"], 1);
}

TEST_F(InstrumentedPluginsTest, PerNodeCallsGoToTheThreadsCellsUntilTheFlush) {
  SetUpPerNode(true);
  CycleState state;
  state.SetRecordPluginMetrics(true);
  InstrumentedFilterPlugin filter(plugin_, in_, 0);
  InstrumentedScorePlugin score(plugin_, in_, 1, *score_counter_);
  plugin_.status = Status(Code::kUnschedulableAndUnresolvable, "no");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(filter.Filter(state, *pod_, node_).code(), Code::kUnschedulableAndUnresolvable);
  plugin_.status = Status();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(score.Score(state, *pod_, node_).first, 7);
  // Nothing reaches the recorder before the flush; Score's calls are not
  // counted one by one but added per cycle.
  EXPECT_TRUE(recorder_.durations.empty());
  EXPECT_TRUE(recorder_.evaluations.empty());
  per_node_->Flush();
  EXPECT_EQ(recorder_.evaluations["Filter/Every/prof"], 4);
  EXPECT_EQ(recorder_.evaluations.count("Score/Every/prof"), 0u);
  score.AddEvaluations(3);
  EXPECT_EQ(recorder_.evaluations["Score/Every/prof"], 3);
  std::map<std::string, int> observed;
  for (const std::string& name : DurationNames()) ++observed[name];
  EXPECT_EQ(observed, (std::map<std::string, int>{{"Filter/Every/UnschedulableAndUnresolvable", 4},
                                                  {"Score/Every/Success", 3}}));
}

// A run of nodes reaches the plugin's ScoreNodes in one call; in a sampled
// cycle the run is timed and every node observed with the run's code.
TEST_F(InstrumentedPluginsTest, ScoreNodesIsOneCallObservedPerNodeInSampledCycles) {
  SetUpPerNode(true);
  InstrumentedScorePlugin score(plugin_, in_, 1, *score_counter_);
  const NodeInfoList nodes = {&node_, &node_, &node_};
  std::vector<NodeScore> out(3);

  CycleState unsampled;
  EXPECT_TRUE(score.ScoreNodes(unsampled, *pod_, nodes, out.data()).IsSuccess());
  EXPECT_EQ(plugin_.calls, (std::vector<std::string>{"ScoreNodes"}));
  for (const NodeScore& ns : out) EXPECT_EQ(ns.score, 7);
  per_node_->Flush();
  EXPECT_TRUE(recorder_.durations.empty());

  plugin_.calls.clear();
  plugin_.score = 9;
  CycleState sampled;
  sampled.SetRecordPluginMetrics(true);
  EXPECT_TRUE(score.ScoreNodes(sampled, *pod_, nodes, out.data()).IsSuccess());
  EXPECT_EQ(plugin_.calls, (std::vector<std::string>{"ScoreNodes"}));
  for (const NodeScore& ns : out) EXPECT_EQ(ns.score, 9);
  per_node_->Flush();
  EXPECT_EQ(DurationNames(), (std::vector<std::string>(3, "Score/Every/Success")));

  // A failure is returned as the plugin gave it, and labels the run.
  recorder_.durations.clear();
  plugin_.status = Status::Error("broken");
  EXPECT_EQ(score.ScoreNodes(sampled, *pod_, nodes, out.data()).Message(), "broken");
  per_node_->Flush();
  EXPECT_EQ(DurationNames(), (std::vector<std::string>(3, "Score/Every/Error")));
}

// Rejects one given node, passes the others.
class RejectsOne final : public FilterPlugin {
 public:
  explicit RejectsOne(const NodeInfo* rejected) : rejected_(rejected) {}
  std::string_view Name() const override { return "Every"; }
  Status Filter(CycleState&, const api::Pod&, const NodeInfo& node) override {
    ++calls;
    return &node == rejected_ ? Status(Code::kUnschedulable, "no") : Status();
  }
  int calls = 0;

 private:
  const NodeInfo* rejected_;
};

// A run reaches the plugin's FilterNodes in one call, sampled or not; in a
// sampled cycle each node it visited is observed with the code it got.
TEST_F(InstrumentedPluginsTest, FilterNodesIsOneCallObservedPerVisitedNodeInSampledCycles) {
  SetUpPerNode(true);
  NodeInfo rejected;
  RejectsOne plugin(&rejected);
  InstrumentedFilterPlugin filter(plugin, in_, 0);
  // The second node is not alive: not visited, not counted, not observed.
  const std::vector<const NodeInfo*> nodes = {&node_, &node_, &rejected, &node_};
  std::vector<Status> out(nodes.size());
  for (bool sampled : {false, true}) {
    SCOPED_TRACE(sampled);
    recorder_.durations.clear();
    recorder_.evaluations.clear();
    plugin.calls = 0;
    CycleState state;
    state.SetRecordPluginMetrics(sampled);
    uint64_t alive = 0b1101;
    filter.FilterNodes(state, *pod_, nodes, &alive, out.data());
    EXPECT_EQ(alive, 0b1001u);
    EXPECT_EQ(out[2].code(), Code::kUnschedulable);
    EXPECT_EQ(plugin.calls, 3);
    per_node_->Flush();
    EXPECT_EQ(recorder_.evaluations["Filter/Every/prof"], 3);
    std::map<std::string, int> observed;
    for (const std::string& name : DurationNames()) ++observed[name];
    if (sampled) {
      EXPECT_EQ(observed,
                (std::map<std::string, int>{{"Filter/Every/Success", 2}, {"Filter/Every/Unschedulable", 1}}));
    } else {
      EXPECT_TRUE(observed.empty());
    }
  }
}

TEST_F(InstrumentedPluginsTest, PerNodeDurationsAreNotReadWithoutARecorderThatKeepsThem) {
  SetUpPerNode(false);
  CycleState state;
  state.SetRecordPluginMetrics(true);
  InstrumentedFilterPlugin filter(plugin_, in_, 0);
  InstrumentedScorePlugin score(plugin_, in_, 1, *score_counter_);
  EXPECT_TRUE(filter.Filter(state, *pod_, node_).IsSuccess());
  EXPECT_TRUE(score.Score(state, *pod_, node_).second.IsSuccess());
  per_node_->Flush();
  EXPECT_TRUE(recorder_.durations.empty());
  EXPECT_EQ(recorder_.evaluations["Filter/Every/prof"], 1);
}

TEST_F(InstrumentedPluginsTest, ExtensionsAndNamesFollowThePlugin) {
  SetUpPerNode(true);
  InstrumentedPreFilterPlugin pre_filter(plugin_, in_, "prof");
  InstrumentedScorePlugin score(plugin_, in_, 1, *score_counter_);
  EXPECT_EQ(pre_filter.Name(), "Every");
  EXPECT_EQ(score.Name(), "Every");
  EXPECT_EQ(pre_filter.GetPreFilterExtensions(), &pre_filter);
  EXPECT_EQ(score.GetScoreExtensions(), &score);
  plugin_.extensions = false;
  EXPECT_EQ(pre_filter.GetPreFilterExtensions(), nullptr);
  EXPECT_EQ(score.GetScoreExtensions(), nullptr);
}

}  // namespace
}  // namespace ksched::scheduler::framework::runtime
