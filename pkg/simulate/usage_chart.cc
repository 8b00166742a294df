#include "pkg/simulate/usage_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "pkg/simulate/html_escape.h"

namespace ksched::simulate {

namespace {

// Layout, in SVG user units.
constexpr int kLabelWidth = 180;
constexpr int kBarWidth = 200;
constexpr int kTextWidth = 110;
constexpr int kPanelWidth = kBarWidth + kTextWidth;
constexpr int kRowHeight = 34;
constexpr int kHeaderHeight = 40;
constexpr size_t kMaxLabelChars = 26;

// Requested as a percentage of allocatable; a request on a node with
// nothing allocatable is infinitely over.
double Percent(int64_t requested, int64_t allocatable) {
  if (allocatable > 0) return 100.0 * static_cast<double>(requested) / static_cast<double>(allocatable);
  return requested > 0 ? HUGE_VAL : 0.0;
}

std::string PercentText(double pct) {
  if (std::isinf(pct)) return "over";
  // Half up (printf would round 12.5 to even).
  return std::to_string(std::llround(pct)) + "%";
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string Trim(double v) {
  std::string s = Num(v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

// One bar: the track, then the filled part (red when over 100 %), with the
// exact figures as its tooltip.
std::string Bar(int x, int y, double pct, const std::string& cls, const std::string& title) {
  const double w = std::isinf(pct) ? kBarWidth : std::min(pct, 100.0) / 100.0 * kBarWidth;
  std::string out = "<rect class=\"track\" x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
                    std::to_string(kBarWidth) + "\" height=\"10\"/>";
  out += "<rect class=\"" + std::string(pct > 100.0 ? "over " : "") + cls + "\" x=\"" + std::to_string(x) + "\" y=\"" +
         std::to_string(y) + "\" width=\"" + Num(w) + "\" height=\"10\"><title>" + HtmlEscape(title) +
         "</title></rect>";
  return out;
}

std::string Panel(int x, int y, const std::string& what, int64_t before, int64_t after, int64_t allocatable,
                  std::string (*format)(int64_t)) {
  const double pb = Percent(before, allocatable);
  const double pa = Percent(after, allocatable);
  const std::string of = " of " + format(allocatable) + " allocatable";
  std::string out = Bar(x, y + 4, pb, "before", what + " before: " + format(before) + of + " (" + PercentText(pb) + ")");
  out += Bar(x, y + 16, pa, "after", what + " after: " + format(after) + of + " (" + PercentText(pa) + ")");
  out += "<text x=\"" + std::to_string(x + kBarWidth + 8) + "\" y=\"" + std::to_string(y + 20) + "\">" +
         PercentText(pb) + " \xE2\x86\x92 " + PercentText(pa) + "</text>";
  return out;
}

bool Changed(const NodeUsage& u) { return u.cpu_before_milli != u.cpu_after_milli || u.memory_before != u.memory_after; }

}  // namespace

std::string FormatMilliCpu(int64_t milli) {
  if (milli % 1000 != 0 && std::llabs(milli) < 1000) return std::to_string(milli) + "m";
  return Trim(static_cast<double>(milli) / 1000.0);
}

std::string FormatBytes(int64_t bytes) {
  constexpr int64_t kKi = 1024, kMi = kKi * 1024, kGi = kMi * 1024, kTi = kGi * 1024;
  const int64_t a = std::llabs(bytes);
  if (a >= kTi) return Trim(static_cast<double>(bytes) / kTi) + "Ti";
  if (a >= kGi) return Trim(static_cast<double>(bytes) / kGi) + "Gi";
  if (a >= kMi) return Trim(static_cast<double>(bytes) / kMi) + "Mi";
  if (a >= kKi) return Trim(static_cast<double>(bytes) / kKi) + "Ki";
  return std::to_string(bytes);
}

std::string UsageChartHtml(const std::vector<NodeUsage>& usage, size_t max_nodes) {
  std::vector<const NodeUsage*> drawn;
  for (const NodeUsage& u : usage) drawn.push_back(&u);
  std::stable_sort(drawn.begin(), drawn.end(),
                   [](const NodeUsage* a, const NodeUsage* b) { return Changed(*a) && !Changed(*b); });
  const size_t omitted = drawn.size() > max_nodes ? drawn.size() - max_nodes : 0;
  drawn.resize(drawn.size() - omitted);
  std::sort(drawn.begin(), drawn.end(), [](const NodeUsage* a, const NodeUsage* b) { return a->name < b->name; });

  const int width = kLabelWidth + 2 * kPanelWidth;
  const int height = kHeaderHeight + static_cast<int>(drawn.size()) * kRowHeight;
  const int cpu_x = kLabelWidth;
  const int mem_x = kLabelWidth + kPanelWidth;
  std::string out = "<svg id=\"usage\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" +
                    std::to_string(width) + "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " +
                    std::to_string(width) + " " + std::to_string(height) + "\">";
  out += "<title>Requested / allocatable per node, before and after the simulation</title>";
  out += "<text x=\"" + std::to_string(cpu_x) + "\" y=\"14\" font-weight=\"600\">CPU requested / allocatable</text>";
  out += "<text x=\"" + std::to_string(mem_x) + "\" y=\"14\" font-weight=\"600\">Memory requested / allocatable</text>";
  // Legend.
  out += "<rect class=\"before\" x=\"0\" y=\"24\" width=\"12\" height=\"10\"/><text x=\"16\" y=\"33\">before</text>";
  out += "<rect class=\"after\" x=\"70\" y=\"24\" width=\"12\" height=\"10\"/><text x=\"86\" y=\"33\">after</text>";
  int y = kHeaderHeight;
  for (const NodeUsage* u : drawn) {
    std::string label = u->name;
    if (label.size() > kMaxLabelChars) {
      size_t cut = kMaxLabelChars;
      // Never cut inside a UTF-8 sequence.
      while (cut > 0 && (static_cast<unsigned char>(label[cut]) & 0xC0) == 0x80) --cut;
      label = label.substr(0, cut) + "\xE2\x80\xA6";
    }
    out += "<g class=\"node-usage\" data-node=\"" + HtmlEscape(u->name) + "\">";
    out += "<text x=\"0\" y=\"" + std::to_string(y + 20) + "\"><title>" + HtmlEscape(u->name) + "</title>" +
           HtmlEscape(label) + "</text>";
    out += Panel(cpu_x, y, "cpu", u->cpu_before_milli, u->cpu_after_milli, u->cpu_allocatable_milli, FormatMilliCpu);
    out += Panel(mem_x, y, "memory", u->memory_before, u->memory_after, u->memory_allocatable, FormatBytes);
    out += "</g>";
    y += kRowHeight;
  }
  out += "</svg>";
  if (omitted > 0) {
    out += "<p class=\"note\">" + std::to_string(omitted) +
           " more nodes not drawn (nodes whose requests changed are drawn first).</p>";
  }
  return out;
}

}  // namespace ksched::simulate
