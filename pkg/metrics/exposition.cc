#include "pkg/metrics/exposition.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace ksched::metrics {

namespace {

// Go's strconv 'g' with precision -1 switches to exponent notation when the
// decimal exponent is below -4 or at least 6 ("eprec = 6" for shortest).
constexpr int kMinFixedExponent = -4;
constexpr int kMaxFixedExponent = 6;

void AppendFloat(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  if (v == 0) {  // also -0, which expfmt prints as "0"
    out += '0';
    return;
  }
  // std::to_chars gives the shortest digits that round-trip, the same
  // digits Go's shortest formatting picks; only the layout differs.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  bool negative = false;
  if (!sci.empty() && sci.front() == '-') {
    negative = true;
    sci.remove_prefix(1);
  }
  std::size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits += c;
  }
  int exp = 0;
  std::string_view exp_text = sci.substr(e_pos + 1);
  if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp);

  if (negative) out += '-';
  const int nd = static_cast<int>(digits.size());
  if (exp < kMinFixedExponent || exp >= kMaxFixedExponent) {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    out += 'e';
    out += exp < 0 ? '-' : '+';
    int abs_exp = std::abs(exp);
    if (abs_exp < 10) out += '0';
    out += std::to_string(abs_exp);
    return;
  }
  if (exp >= 0) {
    // Integer part: the first exp+1 digits, zero-padded.
    for (int i = 0; i <= exp; ++i) out += i < nd ? digits[i] : '0';
    if (nd > exp + 1) {
      out += '.';
      out.append(digits, static_cast<std::size_t>(exp + 1), std::string::npos);
    }
    return;
  }
  out += "0.";
  out.append(static_cast<std::size_t>(-exp - 1), '0');
  out += digits;
}

void AppendEscaped(std::string& out, std::string_view s, bool escape_quote) {
  for (char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '"':
        if (escape_quote) {
          out += "\\\"";
        } else {
          out += c;
        }
        break;
      default:
        out += c;
    }
  }
}

const char* TypeName(prometheus::MetricType type) {
  switch (type) {
    case prometheus::MetricType::Counter:
      return "counter";
    case prometheus::MetricType::Gauge:
      return "gauge";
    case prometheus::MetricType::Histogram:
      return "histogram";
    case prometheus::MetricType::Summary:
      return "summary";
    default:
      return "untyped";
  }
}

// One sample line: name{labels[,extra_name="extra_value"]} value [ts].
class SampleWriter {
 public:
  SampleWriter(std::string& out, const prometheus::ClientMetric& metric)
      : out_(out), metric_(metric) {}

  template <class Value>
  void Write(std::string_view name, std::string_view suffix, Value value,
             std::string_view extra_name = {}, double extra_value = 0) {
    out_ += name;
    out_ += suffix;
    bool any = !metric_.label.empty() || !extra_name.empty();
    if (any) {
      out_ += '{';
      bool first = true;
      for (const auto& l : metric_.label) {
        if (!first) out_ += ',';
        first = false;
        out_ += l.name;
        out_ += "=\"";
        AppendEscaped(out_, l.value, true);
        out_ += '"';
      }
      if (!extra_name.empty()) {
        if (!first) out_ += ',';
        out_ += extra_name;
        out_ += "=\"";
        AppendFloat(out_, extra_value);
        out_ += '"';
      }
      out_ += '}';
    }
    out_ += ' ';
    if constexpr (std::is_same_v<Value, std::uint64_t>) {
      out_ += std::to_string(value);
    } else {
      AppendFloat(out_, value);
    }
    if (metric_.timestamp_ms != 0) {
      out_ += ' ';
      out_ += std::to_string(metric_.timestamp_ms);
    }
    out_ += '\n';
  }

 private:
  std::string& out_;
  const prometheus::ClientMetric& metric_;
};

void WriteFamily(std::string& out, const prometheus::MetricFamily& family) {
  out += "# HELP ";
  out += family.name;
  out += ' ';
  AppendEscaped(out, family.help, false);
  out += "\n# TYPE ";
  out += family.name;
  out += ' ';
  out += TypeName(family.type);
  out += '\n';
  for (const auto& metric : family.metric) {
    SampleWriter w(out, metric);
    switch (family.type) {
      case prometheus::MetricType::Counter:
        w.Write(family.name, "", metric.counter.value);
        break;
      case prometheus::MetricType::Gauge:
        w.Write(family.name, "", metric.gauge.value);
        break;
      case prometheus::MetricType::Untyped:
        w.Write(family.name, "", metric.untyped.value);
        break;
      case prometheus::MetricType::Summary:
        for (const auto& q : metric.summary.quantile) {
          w.Write(family.name, "", q.value, "quantile", q.quantile);
        }
        w.Write(family.name, "_sum", metric.summary.sample_sum);
        w.Write(family.name, "_count", metric.summary.sample_count);
        break;
      case prometheus::MetricType::Histogram: {
        bool has_inf = false;
        for (const auto& b : metric.histogram.bucket) {
          if (std::isinf(b.upper_bound) && b.upper_bound > 0) has_inf = true;
          w.Write(family.name, "_bucket", b.cumulative_count, "le", b.upper_bound);
        }
        if (!has_inf) {
          w.Write(family.name, "_bucket", metric.histogram.sample_count, "le",
                  std::numeric_limits<double>::infinity());
        }
        w.Write(family.name, "_sum", metric.histogram.sample_sum);
        w.Write(family.name, "_count", metric.histogram.sample_count);
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace

std::string FormatFloat(double v) {
  std::string out;
  AppendFloat(out, v);
  return out;
}

std::string SerializeText(std::vector<prometheus::MetricFamily> families) {
  // Merge by name; std::map also gives the sorted family order.
  std::map<std::string, prometheus::MetricFamily> merged;
  for (auto& f : families) {
    auto [it, inserted] = merged.try_emplace(f.name);
    if (inserted) {
      it->second = std::move(f);
    } else if (it->second.type == f.type) {
      for (auto& m : f.metric) it->second.metric.push_back(std::move(m));
    }
  }
  std::string out;
  for (auto& [name, family] : merged) {
    if (family.metric.empty()) continue;
    for (auto& m : family.metric) std::sort(m.label.begin(), m.label.end());
    std::stable_sort(family.metric.begin(), family.metric.end(),
                     [](const prometheus::ClientMetric& a, const prometheus::ClientMetric& b) {
                       return a.label < b.label;
                     });
    WriteFamily(out, family);
  }
  return out;
}

std::string CollectText(const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables,
                        const std::set<std::string>& disabled) {
  std::vector<prometheus::MetricFamily> families;
  for (const auto& c : collectables) {
    if (!c) continue;
    auto collected = c->Collect();
    for (auto& f : collected) {
      if (!disabled.count(f.name)) families.push_back(std::move(f));
    }
  }
  return SerializeText(std::move(families));
}

}  // namespace ksched::metrics
