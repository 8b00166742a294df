#include "test/bench/prometheus_text.h"

#include <fmt/format.h>

#include <optional>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

namespace ksched::bench {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

struct Sample {
  std::string name;
  std::vector<ClientMetric::Label> labels;
  double value = 0;
};

util::Status LineError(size_t line, const std::string& what) {
  return util::InvalidArgument(fmt::format("metrics text line {}: {}", line, what));
}

bool ParseValue(std::string_view s, double* out) {
  if (s == "+Inf" || s == "Inf") {
    *out = HUGE_VAL;
    return true;
  }
  if (s == "-Inf") {
    *out = -HUGE_VAL;
    return true;
  }
  if (s == "NaN") {
    *out = std::nan("");
    return true;
  }
  const std::string copy(s);
  char* end = nullptr;
  *out = std::strtod(copy.c_str(), &end);
  return !copy.empty() && end == copy.c_str() + copy.size();
}

// NAME{a="b",...} VALUE [TIMESTAMP]
util::StatusOr<Sample> ParseSample(std::string_view line, size_t line_no) {
  Sample s;
  size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
  s.name = std::string(line.substr(0, i));
  if (s.name.empty()) return LineError(line_no, "no metric name");
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (true) {
      while (i < line.size() && (line[i] == ' ' || line[i] == ',')) ++i;
      if (i < line.size() && line[i] == '}') {
        ++i;
        break;
      }
      const size_t eq = line.find('=', i);
      if (eq == std::string_view::npos || eq + 1 >= line.size() || line[eq + 1] != '"') {
        return LineError(line_no, "bad label");
      }
      ClientMetric::Label label;
      label.name = std::string(line.substr(i, eq - i));
      i = eq + 2;
      bool closed = false;
      while (i < line.size()) {
        const char c = line[i++];
        if (c == '"') {
          closed = true;
          break;
        }
        if (c == '\\' && i < line.size()) {
          const char e = line[i++];
          label.value += e == 'n' ? '\n' : e;
        } else {
          label.value += c;
        }
      }
      if (!closed) return LineError(line_no, "unterminated label value");
      s.labels.push_back(std::move(label));
    }
  }
  while (i < line.size() && line[i] == ' ') ++i;
  const size_t value_end = line.find(' ', i);
  if (!ParseValue(line.substr(i, value_end == std::string_view::npos ? std::string_view::npos : value_end - i),
                  &s.value)) {
    return LineError(line_no, "bad value");
  }
  return s;
}

// The family a sample belongs to: NAME itself, or NAME minus a histogram's
// or summary's suffix when that family was declared.
std::string FamilyOf(const std::string& sample, const std::map<std::string, MetricType>& types) {
  if (types.count(sample) != 0) return sample;
  for (std::string_view suffix : {"_bucket", "_sum", "_count"}) {
    if (sample.size() > suffix.size() && sample.compare(sample.size() - suffix.size(), suffix.size(), suffix) == 0) {
      std::string base = sample.substr(0, sample.size() - suffix.size());
      auto it = types.find(base);
      if (it != types.end() && (it->second == MetricType::Histogram || it->second == MetricType::Summary)) {
        return base;
      }
    }
  }
  return sample;
}

}  // namespace

util::StatusOr<std::vector<MetricFamily>> ParsePrometheusText(std::string_view text) {
  std::map<std::string, MetricType> types;
  std::vector<MetricFamily> families;
  std::map<std::string, size_t> family_index;
  // Per family, label set (without "le" / "quantile") -> index in .metric.
  std::map<std::string, std::map<std::vector<ClientMetric::Label>, size_t>> series;

  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (line.rfind("# TYPE ", 0) != 0) continue;
      std::string_view rest = line.substr(7);
      const size_t sp = rest.find(' ');
      if (sp == std::string_view::npos) return LineError(line_no, "TYPE without a type");
      const std::string name(rest.substr(0, sp));
      const std::string_view type = rest.substr(sp + 1);
      MetricType t = MetricType::Untyped;
      if (type == "counter") {
        t = MetricType::Counter;
      } else if (type == "gauge") {
        t = MetricType::Gauge;
      } else if (type == "histogram") {
        t = MetricType::Histogram;
      } else if (type == "summary") {
        t = MetricType::Summary;
      } else if (type != "untyped") {
        return LineError(line_no, "unknown type " + std::string(type));
      }
      types[name] = t;
      continue;
    }
    util::StatusOr<Sample> parsed = ParseSample(line, line_no);
    if (!parsed.ok()) return parsed.status();
    Sample& s = *parsed;
    const std::string family = FamilyOf(s.name, types);
    auto type_it = types.find(family);
    const MetricType type = type_it == types.end() ? MetricType::Untyped : type_it->second;

    auto [fi, inserted] = family_index.emplace(family, families.size());
    if (inserted) {
      MetricFamily f;
      f.name = family;
      f.type = type;
      families.push_back(std::move(f));
    }
    MetricFamily& f = families[fi->second];

    std::optional<double> le;
    std::optional<double> quantile;
    std::vector<ClientMetric::Label> key;
    for (ClientMetric::Label& l : s.labels) {
      double v = 0;
      if (type == MetricType::Histogram && l.name == "le") {
        if (!ParseValue(l.value, &v)) return LineError(line_no, "bad le " + l.value);
        le = v;
      } else if (type == MetricType::Summary && l.name == "quantile") {
        if (!ParseValue(l.value, &v)) return LineError(line_no, "bad quantile " + l.value);
        quantile = v;
      } else {
        key.push_back(std::move(l));
      }
    }
    auto [mi, new_series] = series[family].emplace(key, f.metric.size());
    if (new_series) {
      ClientMetric m;
      m.label = key;
      f.metric.push_back(std::move(m));
    }
    ClientMetric& m = f.metric[mi->second];
    const bool is_sum = s.name == family + "_sum";
    const bool is_count = s.name == family + "_count";
    switch (type) {
      case MetricType::Counter:
        m.counter.value = s.value;
        break;
      case MetricType::Gauge:
        m.gauge.value = s.value;
        break;
      case MetricType::Histogram:
        if (le) {
          m.histogram.bucket.push_back({static_cast<uint64_t>(s.value), *le});
        } else if (is_sum) {
          m.histogram.sample_sum = s.value;
        } else if (is_count) {
          m.histogram.sample_count = static_cast<uint64_t>(s.value);
        } else {
          return LineError(line_no, s.name + " is neither a bucket, a sum nor a count");
        }
        break;
      case MetricType::Summary:
        if (quantile) {
          m.summary.quantile.push_back({*quantile, s.value});
        } else if (is_sum) {
          m.summary.sample_sum = s.value;
        } else if (is_count) {
          m.summary.sample_count = static_cast<uint64_t>(s.value);
        }
        break;
      default:
        m.untyped.value = s.value;
        break;
    }
  }
  return families;
}

}  // namespace ksched::bench
