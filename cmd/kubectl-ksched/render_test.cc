#include "cmd/kubectl-ksched/render.h"

#include <gtest/gtest.h>

namespace ksched::kubectl_ksched {
namespace {

using Json = nlohmann::json;

TEST(RenderTest, WhyOfAnUnschedulablePodSaysWhereWhyAndWhatRequeuesIt) {
  Json e = Json::parse(R"({
    "pod": {"namespace": "default", "name": "big", "uid": "u", "schedulerName": "ksched"},
    "location": "unschedulable", "node": "", "attempts": 2,
    "unschedulableSince": "2026-01-01T00:00:00.000000Z",
    "unschedulablePlugins": ["NodeResourcesFit"],
    "requeueEvents": [{"event": "Node Add/UpdateNodeAllocatable", "plugins": ["NodeResourcesFit"], "hinted": true}],
    "unschedulableTimeoutSeconds": 300, "recordEnabled": true,
    "lastAttempt": {"cycle": 9, "time": "2026-01-01T00:00:00.000000Z", "profile": "ksched",
                    "result": "Unschedulable", "node": "",
                    "message": "0/3 nodes are available: 3 Insufficient cpu.",
                    "nominatedNode": "", "victims": [], "nodes": 3, "evaluatedNodes": 3, "feasibleNodes": 0,
                    "filterCounts": [{"plugin": "NodeResourcesFit", "reason": "Insufficient cpu", "nodes": 3}],
                    "scorePlugins": [], "scoredNodes": 0, "topNodes": []}})");
  std::string t = RenderWhy(e);
  EXPECT_NE(t.find("Pod default/big (scheduler ksched): unschedulable since 2026-01-01T00:00:00.000000Z, "
                   "rejected by NodeResourcesFit"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("0/3 nodes are available: 3 Insufficient cpu."), std::string::npos) << t;
  EXPECT_NE(t.find("3      NodeResourcesFit  Insufficient cpu"), std::string::npos) << t;
  EXPECT_NE(t.find("Node Add/UpdateNodeAllocatable (NodeResourcesFit;"), std::string::npos) << t;
  EXPECT_NE(t.find("after 300s"), std::string::npos) << t;
}

TEST(RenderTest, WhyOfABoundPodShowsTheScoreTableWithTheChosenNodeMarked) {
  Json e = Json::parse(R"({
    "pod": {"namespace": "default", "name": "small", "schedulerName": "ksched"},
    "location": "bound", "node": "n2", "requeueEvents": [], "recordEnabled": true,
    "lastAttempt": {"cycle": 10, "result": "Scheduled", "node": "n2", "message": "",
                    "victims": [{"namespace": "default", "name": "low", "node": "n2"}], "nominatedNode": "",
                    "filterCounts": [], "scoredNodes": 2,
                    "scorePlugins": [{"name": "Fit", "weight": 1}, {"name": "Spread", "weight": 2}],
                    "topNodes": [{"node": "n2", "total": 130, "scores": [{"raw": 900, "normalized": 90, "weighted": 90},
                                                                       {"raw": 3, "normalized": 20, "weighted": 40}]},
                                 {"node": "n1", "total": 10, "scores": [{"raw": 1, "normalized": 10, "weighted": 10},
                                                                      {"raw": 0, "normalized": 0, "weighted": 0}]}]}})");
  std::string t = RenderWhy(e);
  EXPECT_NE(t.find("bound to node n2"), std::string::npos) << t;
  EXPECT_NE(t.find("Scheduled on n2"), std::string::npos) << t;
  EXPECT_NE(t.find("NODE  TOTAL  Fit x1     Spread x2"), std::string::npos) << t;
  EXPECT_NE(t.find("n2 *  130    900>90>90  3>20>40"), std::string::npos) << t;
  EXPECT_NE(t.find("default/low on n2"), std::string::npos) << t;
}

TEST(RenderTest, NeverThrowsOnOddJson) {
  for (const char* s : {"null", "[]", "{}", R"({"lastAttempt": 5, "requeueEvents": {}, "pod": []})",
                        R"({"lastAttempt": {"topNodes": [1], "scorePlugins": "x", "filterCounts": [null]}})"}) {
    Json j = Json::parse(s);
    EXPECT_NO_THROW(RenderWhy(j)) << s;
    EXPECT_NO_THROW(RenderQueue(j)) << s;
  }
}

TEST(RenderTest, QueueListsCountsPluginsOldestAndRate) {
  Json s = Json::parse(R"({"counts": {"activeQ": 1, "backoffQ": 0, "unschedulable": 2, "gated": 0, "inFlight": 0},
    "rejectingPlugins": {"NodeResourcesFit": 2},
    "oldestPending": [{"namespace": "default", "name": "big", "queue": "unschedulable", "created": "2026-01-01T00:00:00Z",
                       "attempts": 3, "unschedulablePlugins": ["NodeResourcesFit"]}],
    "attempts": {"lastMinute": 6, "perSecond": 0.1, "total": 42}})");
  std::string t = RenderQueue(s);
  EXPECT_NE(t.find("unschedulable  2"), std::string::npos) << t;
  EXPECT_NE(t.find("NodeResourcesFit  2"), std::string::npos) << t;
  EXPECT_NE(t.find("default/big  unschedulable  2026-01-01T00:00:00Z  3"), std::string::npos) << t;
  EXPECT_NE(t.find("6 in the last minute (0.1/s), 42 since start"), std::string::npos) << t;
}

}  // namespace
}  // namespace ksched::kubectl_ksched
