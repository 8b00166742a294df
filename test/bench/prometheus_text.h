// ParsePrometheusText: reads a Prometheus text exposition (format 0.0.4, what
// both kube-scheduler's and ksched's /metrics serve) into prometheus-cpp's
// MetricFamily values, so a scraped scheduler is measured by the same code
// as an in-process registry's Collect().
//
// Families are typed by their "# TYPE" line; samples of a histogram
// (NAME_bucket with "le", NAME_sum, NAME_count) and of a summary are grouped
// into one ClientMetric per label set. Samples without a TYPE line are
// untyped. Label values are unescaped (\\, \", \n). A malformed line is an
// error naming its line number; comments other than TYPE are skipped.
#pragma once

#include <prometheus/metric_family.h>

#include <string_view>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::bench {

util::StatusOr<std::vector<prometheus::MetricFamily>> ParsePrometheusText(std::string_view text);

}  // namespace ksched::bench
