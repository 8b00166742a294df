#include "test/bench/measure.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace ksched::bench {

Summary Summarize(std::vector<double> samples) {
  Summary s;
  s.samples = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  double sum = 0;
  for (double v : samples) sum += v;
  const size_t n = samples.size();
  s.average = sum / static_cast<double>(n);
  auto perc = [&](double p) {
    size_t i = static_cast<size_t>(std::ceil(static_cast<double>(n) * p / 100.0));
    return samples[std::clamp<size_t>(i, 1, n) - 1];
  };
  s.p50 = perc(50);
  s.p90 = perc(90);
  s.p95 = perc(95);
  s.p99 = perc(99);
  return s;
}

ThroughputCollector::ThroughputCollector(std::function<int64_t()> count, util::Duration interval)
    : count_(std::move(count)), interval_(interval) {}

ThroughputCollector::~ThroughputCollector() {
  if (thread_.joinable()) Stop();
}

void ThroughputCollector::Start() {
  stop_ = false;
  samples_.clear();
  // The base is read here, before the caller creates pods, so pods
  // scheduled before the thread first runs still count.
  const int64_t base = count_();
  const auto start = std::chrono::steady_clock::now();
  thread_ = std::thread([this, base, start] { Loop(base, start); });
}

std::vector<double> ThroughputCollector::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  thread_.join();
  return samples_;
}

void ThroughputCollector::Loop(int64_t base, std::chrono::steady_clock::time_point start) {
  using Clock = std::chrono::steady_clock;
  int64_t last = base;
  bool started = false;
  Clock::time_point last_time = Clock::now();
  Clock::time_point next = last_time + interval_;
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    // While no pod is scheduled yet, poll finely so the first interval
    // starts close to the first binding.
    const Clock::time_point wake = started ? next : Clock::now() + std::chrono::milliseconds(1);
    const bool stopping = cv_.wait_until(l, wake, [&] { return stop_; });
    const Clock::time_point now = Clock::now();
    const int64_t c = count_();
    if (!started) {
      if (c > base && !stopping) {
        // The pods scheduled in the last millisecond count into the first
        // interval.
        started = true;
        last_time = now - std::chrono::milliseconds(1);
        next = last_time + interval_;
        last = base;
      } else if (stopping) {
        // Everything happened between two polls: one sample over the
        // whole collection.
        const double secs = std::chrono::duration<double>(now - start).count();
        if (c > base && secs > 0) samples_.push_back(static_cast<double>(c - base) / secs);
        return;
      }
      continue;
    }
    const double secs = std::chrono::duration<double>(now - last_time).count();
    if (!stopping || samples_.empty() || secs >= std::chrono::duration<double>(interval_).count() / 10) {
      if (secs > 0) samples_.push_back(static_cast<double>(c - last) / secs);
    }
    if (stopping) return;
    last = c;
    last_time = now;
    next += interval_;
    if (next <= now) next = now + interval_;
  }
}

HistogramSnapshot HistogramSnapshot::operator-(const HistogramSnapshot& earlier) const {
  HistogramSnapshot d = *this;
  if (earlier.cumulative.size() == cumulative.size()) {
    for (size_t i = 0; i < cumulative.size(); ++i) d.cumulative[i] -= earlier.cumulative[i];
  }
  d.count -= earlier.count;
  d.sum -= earlier.sum;
  return d;
}

double HistogramSnapshot::Quantile(double q) const {
  if (count == 0 || cumulative.empty()) return 0;
  const double rank = q * static_cast<double>(count);
  for (size_t i = 0; i < cumulative.size(); ++i) {
    if (static_cast<double>(cumulative[i]) >= rank) {
      if (i >= upper_bounds.size()) return upper_bounds.empty() ? 0 : upper_bounds.back();
      const double lo = i == 0 ? 0 : upper_bounds[i - 1];
      const double below = i == 0 ? 0 : static_cast<double>(cumulative[i - 1]);
      const double in_bucket = static_cast<double>(cumulative[i]) - below;
      if (in_bucket <= 0) return upper_bounds[i];
      return lo + (upper_bounds[i] - lo) * (rank - below) / in_bucket;
    }
  }
  return upper_bounds.empty() ? 0 : upper_bounds.back();
}

namespace {

bool Matches(const prometheus::ClientMetric& m, const std::map<std::string, std::string>& match) {
  for (const auto& [k, v] : match) {
    bool found = false;
    for (const auto& l : m.label) {
      if (l.name == k && l.value == v) found = true;
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace

HistogramSnapshot TakeHistogram(const Families& families, const std::string& name,
                                const std::map<std::string, std::string>& match) {
  HistogramSnapshot s;
  for (const prometheus::MetricFamily& f : families) {
    if (f.name != name) continue;
    for (const prometheus::ClientMetric& m : f.metric) {
      if (!Matches(m, match)) continue;
      const auto& buckets = m.histogram.bucket;
      if (s.cumulative.empty()) {
        for (const auto& b : buckets) {
          if (std::isfinite(b.upper_bound)) s.upper_bounds.push_back(b.upper_bound);
        }
        s.cumulative.assign(s.upper_bounds.size() + 1, 0);
      }
      size_t i = 0;
      for (const auto& b : buckets) {
        if (std::isfinite(b.upper_bound)) {
          if (i < s.upper_bounds.size()) s.cumulative[i] += b.cumulative_count;
          ++i;
        }
      }
      s.cumulative.back() += m.histogram.sample_count;
      s.count += m.histogram.sample_count;
      s.sum += m.histogram.sample_sum;
    }
  }
  return s;
}

double CounterTotal(const Families& families, const std::string& name) {
  double total = 0;
  for (const prometheus::MetricFamily& f : families) {
    if (f.name != name) continue;
    for (const prometheus::ClientMetric& m : f.metric) total += m.counter.value;
  }
  return total;
}

LabeledTotals HistogramTotalsBy(const Families& families, const std::string& name,
                                const std::vector<std::string>& labels) {
  LabeledTotals out;
  for (const prometheus::MetricFamily& f : families) {
    if (f.name != name) continue;
    for (const prometheus::ClientMetric& m : f.metric) {
      std::string key;
      for (const std::string& want : labels) {
        for (const auto& l : m.label) {
          if (l.name != want) continue;
          if (!key.empty()) key += "/";
          key += l.value;
        }
      }
      LabeledTotal& t = out[key];
      t.sum += m.histogram.sample_sum;
      t.count += m.histogram.sample_count;
    }
  }
  return out;
}

LabeledTotals Subtract(const LabeledTotals& after, const LabeledTotals& before) {
  LabeledTotals out;
  for (const auto& [k, v] : after) {
    LabeledTotal d = v;
    auto it = before.find(k);
    if (it != before.end()) {
      d.sum -= it->second.sum;
      d.count -= it->second.count;
    }
    if (d.count > 0) out[k] = d;
  }
  return out;
}

double ProcessCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
}

double ProcessCpuSeconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  // Fields after the command (which may hold spaces) end at the last ')':
  // state is field 3, utime and stime fields 14 and 15.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

namespace {

int64_t StatusFieldKb(const std::string& field, const std::string& pid = "self") {
  std::ifstream in("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream ss(line.substr(field.size() + 1));
      int64_t kb = 0;
      ss >> kb;
      return kb;
    }
  }
  return 0;
}

}  // namespace

int64_t PeakRssKb() { return StatusFieldKb("VmHWM"); }
int64_t PeakRssKb(int pid) { return StatusFieldKb("VmHWM", std::to_string(pid)); }
int64_t CurrentRssKb() { return StatusFieldKb("VmRSS"); }

bool ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace ksched::bench
