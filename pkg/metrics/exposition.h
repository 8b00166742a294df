// Prometheus text exposition format 0.0.4, written exactly as the Go client
// (github.com/prometheus/common/expfmt) writes it.
//
// Why not prometheus::TextSerializer: prometheus-cpp 1.0 prints floats with
// 16 significant digits and histograms as _count, _sum, buckets, so the `le`
// labels of kube-scheduler's 1.5-factor buckets come out as
// "3.375000000000001e-05" where kube-scheduler prints
// "3.3750000000000005e-05". Dashboards and recording rules that select a
// bucket by its `le` string would silently see a different series. This
// writer prints every number with Go's strconv 'g' shortest form, escapes
// HELP and label values as Go does, orders families by name and series by
// labels, and writes histogram buckets before _sum and _count.
//
// Families with the same name from different collectables are merged (the
// first one's help and type win; series of a later family of another type
// are dropped), so one bad registration cannot make the whole scrape
// unparsable.
//
// Thread-safety: pure functions; Collect() of each collectable must be
// thread-safe (prometheus::Registry's is).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace ksched::metrics {

// The Content-Type of a scrape answer.
inline constexpr const char kTextContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// Go's strconv.FormatFloat(v, 'g', -1, 64), with expfmt's spellings of the
// special values: "+Inf", "-Inf", "NaN".
std::string FormatFloat(double v);

// Serialises `families` (merged and sorted as described above).
std::string SerializeText(std::vector<prometheus::MetricFamily> families);

// Collects every collectable (null entries are skipped) and serialises the
// union, without the families named in `disabled` (--disabled-metrics).
std::string CollectText(const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables,
                        const std::set<std::string>& disabled = {});

}  // namespace ksched::metrics
