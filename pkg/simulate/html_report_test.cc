#include "pkg/simulate/html_report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/simulate/html_escape.h"
#include "pkg/simulate/simulation_test_util.h"
#include "pkg/simulate/usage_chart.h"

namespace ksched::simulate {
namespace {

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + needle.size())) ++n;
  return n;
}

// The text between the first `open` at or after `from` and the next `close`.
std::string Between(const std::string& s, const std::string& open, const std::string& close, size_t from = 0) {
  const size_t a = s.find(open, from);
  if (a == std::string::npos) return "";
  const size_t b = s.find(close, a + open.size());
  return b == std::string::npos ? "" : s.substr(a + open.size(), b - a - open.size());
}

FilterVerdict Rejected(const std::string& plugin, std::vector<std::string> reasons) {
  FilterVerdict v;
  v.kind = FilterVerdict::Kind::kRejected;
  v.plugin = plugin;
  v.code = "Unschedulable";
  v.reasons = std::move(reasons);
  return v;
}

FilterVerdict Feasible() {
  FilterVerdict v;
  v.kind = FilterVerdict::Kind::kFeasible;
  return v;
}

NodeScoreBreakdown Scores(int64_t fit, int64_t taint) {
  NodeScoreBreakdown b;
  b.plugins = {{"NodeResourcesFit", {fit, fit, 1, fit}}, {"TaintToleration", {0, taint, 3, 3 * taint}}};
  b.total = fit + 3 * taint;
  return b;
}

// Two pods: one placed on n2 with a victim, one pending (hostile strings
// in its name and its rejection reasons).
SimulationResult Sample() {
  SimulationResult r;
  r.profiles = {"default-scheduler"};
  r.tie_break = "seeded";
  r.seed = 7;
  r.explain = true;
  r.nodes = 3;
  PodOutcome placed;
  placed.namespace_ = "shop";
  placed.name = "web-1";
  placed.uid = "u1";
  placed.priority = 100;
  placed.node = "n2";
  placed.attempts = 1;
  placed.victims = {{"shop", "batch-9", "n2"}};
  PodExplain e;
  e.filter = {{"n1", Rejected("NodeResourcesFit", {"Insufficient cpu"})}, {"n2", Feasible()}, {"n3", Feasible()}};
  e.scores = {{"n2", Scores(80, 100)}, {"n3", Scores(50, 100)}};
  placed.explain = e;
  r.pods.push_back(placed);

  PodOutcome pending;
  pending.namespace_ = "shop";
  pending.name = "<script>alert(1)</script>";
  pending.uid = "u2";
  pending.attempts = 2;
  pending.fit_error = "0/3 nodes are available: 3 node(s) had untolerated taint {k: \"v'&<b>\"}.";
  PodExplain pe;
  for (const char* n : {"n1", "n2", "n3"}) pe.filter[n] = Rejected("TaintToleration", {"taint <b>&\"'"});
  pending.explain = pe;
  r.pods.push_back(pending);

  r.node_usage = {{"n1", 4000, 8LL << 30, 1000, 2LL << 30, 1000, 2LL << 30},
                  {"n2", 4000, 8LL << 30, 1000, 1LL << 30, 3000, 5LL << 30},
                  {"n3", 2000, 4LL << 30, 0, 0, 0, 0}};
  return r;
}

TEST(HtmlEscapeTest, EscapesMarkupQuotesAndControls) {
  EXPECT_EQ(HtmlEscape("a<b>&\"c'd"), "a&lt;b&gt;&amp;&quot;c&#39;d");
  EXPECT_EQ(HtmlEscape(std::string("x\0y\x01z\t\n", 7)), "x\xEF\xBF\xBDy\xEF\xBF\xBDz\t\n");
  EXPECT_EQ(HtmlEscape("caf\xC3\xA9"), "caf\xC3\xA9");  // UTF-8 passes
  EXPECT_EQ(HtmlEscape(""), "");
}

TEST(HtmlReportTest, IsOneSelfContainedDocument) {
  const std::string html = ReportHtml(Sample());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.substr(html.size() - 8), "</html>\n");
  // One script, ours, inline; nothing fetched from anywhere.
  EXPECT_EQ(Count(html, "<script"), 1u);
  EXPECT_EQ(Count(html, "<script>"), 1u);
  EXPECT_EQ(Count(html, "src="), 0u);
  EXPECT_EQ(Count(html, "url("), 0u);
  EXPECT_EQ(Count(html, "@import"), 0u);
  EXPECT_EQ(Count(html, "<link"), 1u);
  EXPECT_NE(html.find("<link rel=\"icon\" href=\"data:,\">"), std::string::npos);
  EXPECT_EQ(Count(html, "http://"), 1u);  // the SVG namespace name, never fetched
  EXPECT_EQ(Count(html, "https://"), 0u);
  // Balanced elements.
  for (const char* tag : {"table", "thead", "tbody", "tr", "section", "svg", "g", "ul", "style", "script"}) {
    const std::string t = tag;
    EXPECT_EQ(Count(html, "<" + t + ">") + Count(html, "<" + t + " "), Count(html, "</" + t + ">")) << tag;
  }
}

TEST(HtmlReportTest, EscapesEveryInputString) {
  const std::string html = ReportHtml(Sample());
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<b>&"), std::string::npos);
  EXPECT_EQ(html.find("&<b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // In the pods table, its attribute, its section and the fit error.
  EXPECT_NE(html.find("data-pod=\"shop/&lt;script&gt;alert(1)&lt;/script&gt;\""), std::string::npos);
  EXPECT_NE(html.find("untolerated taint {k: &quot;v&#39;&amp;&lt;b&gt;&quot;}"), std::string::npos);
  EXPECT_NE(html.find("TaintToleration &mdash; taint &lt;b&gt;&amp;&quot;&#39;"), std::string::npos);
}

TEST(HtmlReportTest, PodsTableHasARowPerPodWithWhereItWent) {
  const std::string html = ReportHtml(Sample());
  const std::string pods = Between(html, "<table id=\"pods\"", "</table>");
  ASSERT_FALSE(pods.empty());
  EXPECT_EQ(Count(pods, "<tr class=\"pod "), 2u);
  EXPECT_EQ(Count(pods, "<th>") + Count(pods, "<th "), 8u);
  EXPECT_NE(pods.find("<tr class=\"pod scheduled\" data-pod=\"shop/web-1\">"), std::string::npos);
  EXPECT_NE(pods.find("<td class=\"node\">n2</td>"), std::string::npos);
  EXPECT_NE(pods.find("shop/batch-9 on n2"), std::string::npos);
  EXPECT_NE(pods.find("<tr class=\"pod pending\""), std::string::npos);
  EXPECT_NE(pods.find("<td class=\"pending\">pending</td>"), std::string::npos);
  EXPECT_NE(pods.find("0/3 nodes are available"), std::string::npos);
  EXPECT_NE(html.find("<span id=\"summary-pending\"><b>1</b> pending</span>"), std::string::npos);
  EXPECT_NE(html.find("<span id=\"summary-victims\"><b>1</b> victims</span>"), std::string::npos);
}

TEST(HtmlReportTest, ExplainTableMarksTheChosenNodeAndCarriesScores) {
  const std::string html = ReportHtml(Sample());
  const size_t section = html.find("<section class=\"pod-explain\" id=\"pod-0\"");
  ASSERT_NE(section, std::string::npos);
  const std::string table = Between(html, "<table class=\"sortable explain\">", "</table>", section);
  EXPECT_EQ(Count(table, "<tr data-node=") + Count(table, "<tr class=\"chosen\""), 3u);  // every node
  EXPECT_EQ(Count(table, "class=\"chosen\""), 1u);
  EXPECT_NE(table.find("<tr class=\"chosen\" data-node=\"n2\"><td data-v=\"n2\"><span class=\"marker\""),
            std::string::npos);
  EXPECT_NE(table.find("<th data-type=\"num\">NodeResourcesFit</th><th data-type=\"num\">TaintToleration</th>"
                       "<th data-type=\"num\">Total</th>"),
            std::string::npos);
  // n2: weighted 80 and 300, total 380; raw -> normalized x weight below.
  EXPECT_NE(table.find("data-v=\"300\">300<div class=\"cell-detail\">0 &rarr; 100 &times; 3</div>"),
            std::string::npos);
  EXPECT_NE(table.find("<td class=\"num total\" data-v=\"380\">380</td>"), std::string::npos);
  EXPECT_NE(table.find("<td class=\"fail\" title=\"Unschedulable\">NodeResourcesFit: Insufficient cpu</td>"),
            std::string::npos);
  EXPECT_EQ(Count(table, "<td class=\"pass\">pass</td>"), 2u);
  // The pending pod: no chosen row, its three rejections counted.
  const std::string pending = Between(html, "id=\"pod-1\"", "</section>");
  EXPECT_EQ(Count(pending, "class=\"chosen\""), 0u);
  EXPECT_NE(pending.find("<li><b>3</b> nodes: TaintToleration"), std::string::npos);
}

TEST(HtmlReportTest, LargeClustersListTheBestNodesAndCountTheRest) {
  SimulationResult r = Sample();
  PodExplain& e = *r.pods[0].explain;
  e.filter.clear();
  e.scores.clear();
  for (int i = 0; i < 10; ++i) {
    const std::string n = "node-" + std::to_string(i);
    if (i < 4) {
      e.filter[n] = Rejected("NodeResourcesFit", {"Insufficient cpu"});
    } else {
      e.filter[n] = Feasible();
      e.scores[n] = Scores(10 * i, 0);
    }
  }
  r.pods[0].node = "node-4";  // the lowest score: still listed
  HtmlReportOptions o;
  o.max_nodes_per_pod = 3;
  const std::string html = ReportHtml(r, o);
  const std::string table = Between(html, "<table class=\"sortable explain\">", "</table>");
  EXPECT_EQ(Count(table, "<tr"), 4u);  // header + 3
  EXPECT_NE(table.find("data-node=\"node-9\""), std::string::npos);
  EXPECT_NE(table.find("data-node=\"node-8\""), std::string::npos);
  EXPECT_NE(table.find("<tr class=\"chosen\" data-node=\"node-4\""), std::string::npos);
  EXPECT_EQ(table.find("data-node=\"node-0\""), std::string::npos);
  EXPECT_NE(html.find("3 of 10 nodes listed"), std::string::npos);
  EXPECT_NE(html.find("<li><b>4</b> nodes: NodeResourcesFit &mdash; Insufficient cpu</li>"), std::string::npos);
}

TEST(HtmlReportTest, WithoutExplainSaysHowToGetIt) {
  SimulationResult r = Sample();
  r.explain = false;
  for (PodOutcome& p : r.pods) p.explain.reset();
  const std::string html = ReportHtml(r);
  EXPECT_EQ(Count(html, "<section"), 0u);
  EXPECT_NE(html.find("Run with <code>--explain</code>"), std::string::npos);
  EXPECT_EQ(Count(html, "<tr class=\"pod "), 2u);
}

TEST(UsageChartTest, DrawsBeforeAndAfterPerNode) {
  const std::string svg = UsageChartHtml(Sample().node_usage, 10);
  EXPECT_EQ(Count(svg, "<g class=\"node-usage\""), 3u);
  const std::string n2 = Between(svg, "data-node=\"n2\">", "</g>");
  // cpu 1 -> 3 of 4; memory 1Gi -> 5Gi of 8Gi.
  EXPECT_NE(n2.find(">25% \xE2\x86\x92 75%</text>"), std::string::npos);
  EXPECT_NE(n2.find(">13% \xE2\x86\x92 63%</text>"), std::string::npos);
  EXPECT_NE(n2.find("width=\"50.0\" height=\"10\"><title>cpu before: 1 of 4 allocatable (25%)</title>"),
            std::string::npos);
  EXPECT_NE(n2.find("<title>memory after: 5Gi of 8Gi allocatable (63%)</title>"), std::string::npos);
  EXPECT_EQ(svg.find("class=\"note\""), std::string::npos);
}

TEST(UsageChartTest, OvercommitAndLimits) {
  std::vector<NodeUsage> u = {{"a", 1000, 1 << 30, 500, 0, 500, 0},
                              {"b<x>", 1000, 1 << 30, 0, 0, 2000, 0},  // changed, over
                              {"c", 0, 0, 0, 0, 100, 0}};              // changed, nothing allocatable
  const std::string svg = UsageChartHtml(u, 2);
  EXPECT_EQ(Count(svg, "<g class=\"node-usage\""), 2u);
  EXPECT_EQ(svg.find("data-node=\"a\""), std::string::npos);  // unchanged: left out first
  EXPECT_NE(svg.find("data-node=\"b&lt;x&gt;\""), std::string::npos);
  EXPECT_NE(svg.find("<rect class=\"over after\""), std::string::npos);
  EXPECT_NE(svg.find("0% \xE2\x86\x92 over"), std::string::npos);
  EXPECT_NE(svg.find("<p class=\"note\">1 more nodes not drawn"), std::string::npos);
}

TEST(UsageChartTest, FormatsQuantities) {
  EXPECT_EQ(FormatMilliCpu(250), "250m");
  EXPECT_EQ(FormatMilliCpu(2000), "2");
  EXPECT_EQ(FormatMilliCpu(1500), "1.5");
  EXPECT_EQ(FormatMilliCpu(0), "0");
  EXPECT_EQ(FormatBytes(512LL << 20), "512Mi");
  EXPECT_EQ(FormatBytes(3LL << 29), "1.5Gi");
  EXPECT_EQ(FormatBytes(100), "100");
}

TEST(HtmlReportTest, SimulationFillsNodeUsageBeforeAndAfter) {
  using namespace testutil;  // NOLINT: the shared simulate test helpers
  ClusterObjects c = Load(Node("n1", "4", "8Gi") + Pod("bound", "1", 1, 0, "n1") + Pod("new", "2", 2));
  SimulationResult r = RunSim(c, Options());
  ASSERT_EQ(r.node_usage.size(), 1u);
  const NodeUsage& u = r.node_usage[0];
  EXPECT_EQ(u.name, "n1");
  EXPECT_EQ(u.cpu_allocatable_milli, 4000);
  EXPECT_EQ(u.memory_allocatable, 8LL << 30);
  EXPECT_EQ(u.cpu_before_milli, 1000);
  EXPECT_EQ(u.memory_before, 1LL << 30);
  EXPECT_EQ(u.cpu_after_milli, 3000);
  EXPECT_EQ(u.memory_after, 2LL << 30);
}

}  // namespace
}  // namespace ksched::simulate
