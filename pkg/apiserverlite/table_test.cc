#include "pkg/apiserverlite/table.h"

#include <gtest/gtest.h>

namespace ksched::apiserver {
namespace {

using nlohmann::json;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

const util::WallTime kNow = util::WallTime(seconds(1767225600 + 90));  // 2026-01-01T00:01:30Z

TEST(TableTest, ParsesKubectlAcceptHeaders) {
  auto t = ParseTableRequest(
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
      "g=meta.k8s.io,application/json",
      "");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->api_version, "meta.k8s.io/v1");
  EXPECT_EQ(t->include_object, "Metadata");
  auto beta = ParseTableRequest("application/json;as=Table;v=v1beta1;g=meta.k8s.io", "Object");
  ASSERT_TRUE(beta);
  EXPECT_EQ(beta->api_version, "meta.k8s.io/v1beta1");
  EXPECT_EQ(beta->include_object, "Object");
  EXPECT_FALSE(ParseTableRequest("application/json", ""));
  EXPECT_FALSE(ParseTableRequest("", ""));
  EXPECT_FALSE(ParseTableRequest("application/json, application/json;as=Table;v=v1;g=meta.k8s.io", ""));
  // Aggregated discovery or unknown "as" targets fall through to plain JSON.
  EXPECT_FALSE(ParseTableRequest(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json", ""));
}

TEST(TableTest, PodRows) {
  json pod = json::parse(R"({"metadata":{"name":"web","creationTimestamp":"2026-01-01T00:00:00Z"},
      "spec":{"nodeName":"n1","containers":[{"name":"a"},{"name":"b"}]},
      "status":{"phase":"Running","podIP":"10.0.0.9",
                "containerStatuses":[{"name":"a","ready":true,"restartCount":2},
                                     {"name":"b","ready":false,"restartCount":1,
                                      "state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})");
  json row = TableRow("Pod", pod, TableOptions{}, kNow);
  EXPECT_EQ(row["cells"], json::parse(R"(["web","1/2","CrashLoopBackOff","3","90s","10.0.0.9",
                                          "n1","<none>","<none>"])"));
  EXPECT_EQ(row["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(row["object"]["metadata"]["name"], "web");
  EXPECT_EQ(TableColumns("Pod").size(), row["cells"].size());

  json pending = json::parse(R"({"metadata":{"name":"p","deletionTimestamp":"2026-01-01T00:00:00Z"},
      "spec":{"containers":[{"name":"a"}]},"status":{"phase":"Pending"}})");
  json prow = TableRow("Pod", pending, TableOptions{"meta.k8s.io/v1", "None"}, kNow);
  EXPECT_EQ(prow["cells"][2], "Terminating");
  EXPECT_EQ(prow["cells"][4], "<unknown>");
  EXPECT_FALSE(prow.contains("object"));
}

TEST(TableTest, NodeRows) {
  json node = json::parse(R"({"metadata":{"name":"n1","creationTimestamp":"2026-01-01T00:00:00Z",
      "labels":{"node-role.kubernetes.io/control-plane":""}},
      "spec":{"unschedulable":true},
      "status":{"conditions":[{"type":"Ready","status":"True"}],
                "addresses":[{"type":"InternalIP","address":"10.1.1.1"}],
                "nodeInfo":{"kubeletVersion":"v1.34.0"}}})");
  json row = TableRow("Node", node, TableOptions{"meta.k8s.io/v1", "Object"}, kNow);
  EXPECT_EQ(row["cells"][1], "Ready,SchedulingDisabled");
  EXPECT_EQ(row["cells"][2], "control-plane");
  EXPECT_EQ(row["cells"][4], "v1.34.0");
  EXPECT_EQ(row["cells"][5], "10.1.1.1");
  EXPECT_EQ(row["object"], node);
  EXPECT_EQ(TableColumns("Node").size(), row["cells"].size());
}

TEST(TableTest, DefaultColumnsAndTable) {
  json lease = {{"metadata", {{"name", "l"}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}}};
  json row = TableRow("Lease", lease, TableOptions{}, kNow);
  EXPECT_EQ(row["cells"], json::parse(R"(["l","90s"])"));
  json table = MakeTable(TableOptions{}, TableColumns("Lease"), json::array({row}),
                         {{"resourceVersion", "7"}});
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(table["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(table["columnDefinitions"][0]["format"], "name");
  EXPECT_EQ(table["rows"].size(), 1u);
}

TEST(TableTest, HumanDuration) {
  EXPECT_EQ(HumanDuration(seconds(-5)), "<invalid>");
  EXPECT_EQ(HumanDuration(seconds(0)), "0s");
  EXPECT_EQ(HumanDuration(seconds(119)), "119s");
  EXPECT_EQ(HumanDuration(seconds(200)), "3m20s");
  EXPECT_EQ(HumanDuration(minutes(5)), "5m");
  EXPECT_EQ(HumanDuration(minutes(17)), "17m");
  EXPECT_EQ(HumanDuration(hours(5) + minutes(3)), "5h3m");
  EXPECT_EQ(HumanDuration(hours(20)), "20h");
  EXPECT_EQ(HumanDuration(hours(76)), "3d4h");
  EXPECT_EQ(HumanDuration(hours(24 * 400)), "400d");
  EXPECT_EQ(HumanDuration(hours(24 * (365 * 3 + 20))), "3y20d");
  EXPECT_EQ(HumanDuration(hours(24 * 365 * 9)), "9y");
}

}  // namespace
}  // namespace ksched::apiserver
