// dashboards/ksched.json: valid for Grafana's import (the fields it needs,
// unique panel ids, every target on the dashboard's data source variable),
// every PromQL expression parses (promtool, when installed), and every
// metric it queries is one ksched exports: the names come from the
// daemon's own /metrics (an in-process Server: work queues, reflectors,
// leader election, process) and from SchedulerMetrics with every family
// observed (its families appear once they have a series).
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cmd/ksched/server.h"
#include "pkg/config/defaults.h"
#include "pkg/metrics/exposition.h"
#include "pkg/metrics/leader_election_metrics.h"
#include "pkg/metrics/metrics_test_util.h"
#include "pkg/metrics/process_collector.h"
#include "pkg/metrics/scheduler_metrics.h"
#include "pkg/scheduler/plugins/registry.h"

namespace ksched::app {
namespace {

constexpr char kDashboard[] = "dashboards/ksched.json";

// The sample names of a text exposition ("foo_bucket", "foo_sum", ...).
void AddSampleNames(const std::string& text, std::set<std::string>* names) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    names->insert(line.substr(0, line.find_first_of("{ ")));
  }
}

std::set<std::string> ExportedNames() {
  std::set<std::string> names;
  metrics::SchedulerMetrics m;
  metrics::LeaderElectionMetrics le(*m.Registry());
  metrics::testing::ObserveEveryFamily(m, le);
  AddSampleNames(metrics::CollectText({m.Registry(), std::make_shared<metrics::ProcessCollector>()}), &names);

  ServerOptions o;
  o.config = config::DefaultConfiguration(scheduler::plugins::InTreePlugins());
  o.config.leader_election.resource_name = "ksched";
  o.config.leader_election.resource_namespace = "ksched-system";
  o.rest.host = "http://127.0.0.1:1";  // never contacted
  o.endpoints.secure_port = 0;
  o.endpoints.http_port = 0;
  util::StatusOr<scheduler::framework::Registry> registry = scheduler::plugins::InTreeRegistry();
  EXPECT_TRUE(registry.ok());
  util::StatusOr<std::unique_ptr<Server>> s = Server::New(std::move(o), *registry);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (s.ok()) {
    util::StatusOr<metrics::HttpRequest> r = metrics::EndpointServer::ParseTarget("GET", "/metrics");
    AddSampleNames((*s)->Endpoints().Serve(*r).body, &names);
  }
  return names;
}

// Grafana's variables replaced by values PromQL parses.
std::string Substitute(std::string expr) {
  expr = std::regex_replace(expr, std::regex(R"(\$__rate_interval)"), "5m");
  return std::regex_replace(expr, std::regex(R"(\$[A-Za-z_]+)"), ".*");
}

// The metric names a PromQL expression selects: identifiers left after
// string literals, label matchers, ranges and by/without clauses are
// removed, that are not functions, aggregations or keywords.
std::set<std::string> MetricNames(std::string expr) {
  expr = Substitute(expr);
  for (const char* re : {R"("(?:[^"\\]|\\.)*")", R"(\{[^}]*\})", R"(\[[^\]]*\])",
                         R"(\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\))"}) {
    expr = std::regex_replace(expr, std::regex(re), " ");
  }
  static const std::set<std::string> keywords = {"by", "without", "on", "ignoring", "group_left", "group_right",
                                                 "bool", "and", "or", "unless", "offset", "inf", "nan"};
  std::set<std::string> out;
  const std::regex ident(R"(([A-Za-z_:][A-Za-z0-9_:]*)\s*(\(?))");
  for (auto it = std::sregex_iterator(expr.begin(), expr.end(), ident); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    if (m.position(0) > 0 && (std::isdigit(static_cast<unsigned char>(expr[m.position(0) - 1])) ||
                              expr[m.position(0) - 1] == '.')) {
      continue;  // the unit of a number (5m) or an exponent
    }
    if (!m[2].str().empty() || keywords.count(m[1].str())) continue;
    out.insert(m[1].str());
  }
  return out;
}

struct Query {
  std::string where;
  std::string expr;
};

std::vector<Query> Queries(const nlohmann::json& d) {
  std::vector<Query> q;
  for (const auto& p : d["panels"]) {
    for (const auto& t : p.value("targets", nlohmann::json::array())) {
      q.push_back({"panel \"" + p.value("title", "") + "\" " + t.value("refId", ""), t.value("expr", "")});
    }
  }
  // label_values(<selector>, label) of the query variables.
  const std::regex label_values(R"(label_values\((.*),\s*[A-Za-z_]+\)\s*$)");
  for (const auto& v : d["templating"]["list"]) {
    if (v.value("type", "") != "query") continue;
    std::string def = v.value("definition", "");
    std::smatch m;
    if (std::regex_search(def, m, label_values)) q.push_back({"variable $" + v.value("name", ""), m[1].str()});
  }
  return q;
}

nlohmann::json Load() {
  std::ifstream in(kDashboard);
  EXPECT_TRUE(in.good()) << kDashboard;
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

TEST(DashboardTest, MetricNameExtraction) {
  EXPECT_EQ(MetricNames(R"(histogram_quantile(0.99, sum by (le, result) (rate(a_bucket{x="y", job=~"$job"}[$__rate_interval]))))"),
            (std::set<std::string>{"a_bucket"}));
  EXPECT_EQ(MetricNames(R"(sum(rate(a_total[5m])) / on (profile) group_left b + 1e3 * c offset 5m)"),
            (std::set<std::string>{"a_total", "b", "c"}));
  EXPECT_EQ(MetricNames(R"(max by (instance) (leader_election_master_status))"),
            (std::set<std::string>{"leader_election_master_status"}));
}

TEST(DashboardTest, ImportableByGrafana) {
  nlohmann::json d = Load();
  ASSERT_TRUE(d.is_object()) << kDashboard << " is not valid JSON";
  EXPECT_EQ(d["title"], "ksched");
  EXPECT_EQ(d["uid"], "ksched");
  EXPECT_TRUE(d["schemaVersion"].is_number_integer());
  EXPECT_FALSE(d.contains("id")) << "an imported dashboard must not carry a database id";
  bool has_datasource_var = false;
  for (const auto& v : d["templating"]["list"]) has_datasource_var |= v["name"] == "datasource" && v["type"] == "datasource";
  EXPECT_TRUE(has_datasource_var);
  std::set<int> ids;
  for (const auto& p : d["panels"]) {
    SCOPED_TRACE(p.value("title", "?"));
    ASSERT_TRUE(p["id"].is_number_integer());
    EXPECT_TRUE(ids.insert(p["id"].get<int>()).second) << "duplicate panel id";
    EXPECT_TRUE(p["gridPos"].is_object());
    EXPECT_FALSE(p.value("type", "").empty());
    if (p["type"] == "row") continue;
    EXPECT_EQ(p["datasource"]["uid"], "${datasource}");
    ASSERT_FALSE(p["targets"].empty());
    for (const auto& t : p["targets"]) {
      EXPECT_FALSE(t.value("expr", "").empty());
      EXPECT_EQ(t["datasource"]["uid"], "${datasource}");
    }
  }
}

TEST(DashboardTest, QueriesOnlyMetricsKschedExports) {
  nlohmann::json d = Load();
  ASSERT_TRUE(d.is_object());
  std::set<std::string> exported = ExportedNames();
  ASSERT_GT(exported.size(), 50u);
  std::set<std::string> queried;
  for (const Query& q : Queries(d)) {
    std::set<std::string> names = MetricNames(q.expr);
    EXPECT_FALSE(names.empty()) << q.where << ": no metric in " << q.expr;
    for (const std::string& n : names) {
      EXPECT_TRUE(exported.count(n)) << q.where << " queries " << n << ", which ksched does not export";
      queried.insert(n);
    }
  }
  // What operators look at (the issue's list) is on the dashboard.
  for (const char* must : {"scheduler_schedule_attempts_total", "scheduler_scheduling_attempt_duration_seconds_bucket",
                           "scheduler_pending_pods", "scheduler_unschedulable_pods", "scheduler_queue_incoming_pods_total",
                           "scheduler_framework_extension_point_duration_seconds_bucket",
                           "workqueue_work_duration_seconds_bucket", "workqueue_depth",
                           "leader_election_master_status"}) {
    EXPECT_TRUE(queried.count(must)) << must;
  }
}

TEST(DashboardTest, ExpressionsParse) {
  if (system("command -v promtool >/dev/null 2>&1") != 0) GTEST_SKIP() << "promtool is not installed";
  nlohmann::json d = Load();
  ASSERT_TRUE(d.is_object());
  // Every expression as a recording rule: `promtool check rules` parses it.
  char dir[] = "/tmp/ksched-dashboard-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/rules.yaml";
  {
    std::ofstream out(path);
    out << "groups:\n- name: dashboard\n  rules:\n";
    int i = 0;
    for (const Query& q : Queries(d)) {
      out << "  - record: dashboard:q" << i++ << "\n    expr: " << nlohmann::json(Substitute(q.expr)).dump() << "\n";
    }
  }
  std::string cmd = "promtool check rules " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
  int rc = pclose(p);
  EXPECT_EQ(rc, 0) << out;
  std::remove(path.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace ksched::app
