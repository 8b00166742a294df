// FrameworkMetricsRecorder: where the framework runtime reports what kube
// reports through its metrics package. The prometheus implementation lives
// with the metrics package; NopMetricsRecorder drops everything.
//
//   ObserveExtensionPointDuration -> framework_extension_point_duration_seconds
//                                    {extension_point, status, profile}
//   ObservePluginDuration         -> plugin_execution_duration_seconds
//                                    {plugin, extension_point, status}
//                                    (only in sampled cycles)
//   AddPluginEvaluations          -> plugin_evaluation_total
//                                    {plugin, extension_point, profile}
//   ObservePermitWaitDuration     -> permit_wait_duration_seconds{result}
//
// Status labels are CodeName(code). Extension point labels are the
// constants below.
//
// Resolved forms, which the framework uses on its hot paths (a recorder may
// keep the defaults, which forward to the single forms):
//   NewEvaluationCounter       a plugin_evaluation_total series resolved
//                              once (the framework keeps one per plugin and
//                              point)
//   NewPluginDurationHistogram a plugin_execution_duration_seconds series
//                              resolved once, fed with observations already
//                              sorted into PluginDurationBounds() (the
//                              framework sorts the per-node Filter and Score
//                              durations of sampled cycles into per-thread
//                              buckets and hands them over at its next flush)
//
// Thread-safety: implementations must be thread-safe and cheap (called from
// Filter/Score workers); the framework batches plugin evaluation counts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/scheduler/framework/status.h"

namespace ksched::scheduler::framework {

namespace extension_point {
inline constexpr std::string_view kPreEnqueue = "PreEnqueue";
inline constexpr std::string_view kPreFilter = "PreFilter";
inline constexpr std::string_view kPreFilterExtensionAddPod = "PreFilterExtensionAddPod";
inline constexpr std::string_view kPreFilterExtensionRemovePod = "PreFilterExtensionRemovePod";
inline constexpr std::string_view kFilter = "Filter";
inline constexpr std::string_view kPostFilter = "PostFilter";
inline constexpr std::string_view kPreScore = "PreScore";
inline constexpr std::string_view kScore = "Score";
inline constexpr std::string_view kScoreExtensionNormalize = "ScoreExtensionNormalize";
inline constexpr std::string_view kReserve = "Reserve";
inline constexpr std::string_view kUnreserve = "Unreserve";
inline constexpr std::string_view kPermit = "Permit";
inline constexpr std::string_view kPreBind = "PreBind";
inline constexpr std::string_view kPreBindPreFlight = "PreBindPreFlight";
inline constexpr std::string_view kBind = "Bind";
inline constexpr std::string_view kPostBind = "PostBind";
inline constexpr std::string_view kSign = "Sign";
}  // namespace extension_point

// plugin_evaluation_total{plugin, extension_point, profile}, resolved.
// Thread-safe.
class EvaluationCounter {
 public:
  virtual ~EvaluationCounter() = default;
  virtual void Add(int64_t n) = 0;
};

// plugin_execution_duration_seconds{plugin, extension_point, status},
// resolved. Thread-safe.
class DurationHistogram {
 public:
  virtual ~DurationHistogram() = default;
  // Adds observations already sorted into buckets: counts[i] of them at
  // most PluginDurationBounds()[i] seconds (and above the bound before),
  // the last slot those above every bound; `sum_seconds` is their total.
  virtual void AddBuckets(const std::vector<int64_t>& counts, double sum_seconds) = 0;
};

class FrameworkMetricsRecorder {
 public:
  virtual ~FrameworkMetricsRecorder() = default;
  virtual void ObserveExtensionPointDuration(std::string_view extension_point, Code status, std::string_view profile,
                                             double seconds) = 0;
  virtual void ObservePluginDuration(std::string_view extension_point, std::string_view plugin, Code status,
                                     double seconds) = 0;
  virtual void AddPluginEvaluations(std::string_view extension_point, std::string_view plugin,
                                    std::string_view profile, int64_t count) = 0;
  virtual void ObservePermitWaitDuration(Code result, double seconds) = 0;

  // The counter AddPluginEvaluations(extension_point, plugin, profile, n)
  // would add to. It may refer to the recorder, which must outlive it.
  virtual std::unique_ptr<EvaluationCounter> NewEvaluationCounter(std::string_view extension_point,
                                                                  std::string_view plugin, std::string_view profile) {
    return std::make_unique<ForwardingEvaluationCounter>(*this, extension_point, plugin, profile);
  }
  // The upper bounds (ascending, in seconds) of plugin_execution_duration_
  // seconds' buckets. The default has none: every observation lands in the
  // one overflow slot.
  virtual std::vector<double> PluginDurationBounds() const { return {}; }
  // The series ObservePluginDuration(extension_point, plugin, status, ...)
  // would observe into. The default forwards each observation of a batch
  // to ObservePluginDuration at the batch's mean (only the real recorder
  // keeps the buckets). It may refer to the recorder, which must outlive it.
  virtual std::unique_ptr<DurationHistogram> NewPluginDurationHistogram(std::string_view extension_point,
                                                                        std::string_view plugin, Code status) {
    return std::make_unique<ForwardingDurationHistogram>(*this, extension_point, plugin, status);
  }

 private:
  class ForwardingEvaluationCounter final : public EvaluationCounter {
   public:
    ForwardingEvaluationCounter(FrameworkMetricsRecorder& recorder, std::string_view point, std::string_view plugin,
                                std::string_view profile)
        : recorder_(recorder), point_(point), plugin_(plugin), profile_(profile) {}
    void Add(int64_t n) override {
      if (n > 0) recorder_.AddPluginEvaluations(point_, plugin_, profile_, n);
    }

   private:
    FrameworkMetricsRecorder& recorder_;
    const std::string point_;
    const std::string plugin_;
    const std::string profile_;
  };
  class ForwardingDurationHistogram final : public DurationHistogram {
   public:
    ForwardingDurationHistogram(FrameworkMetricsRecorder& recorder, std::string_view point, std::string_view plugin,
                                Code status)
        : recorder_(recorder), point_(point), plugin_(plugin), status_(status) {}
    void AddBuckets(const std::vector<int64_t>& counts, double sum_seconds) override {
      int64_t n = 0;
      for (int64_t c : counts) n += c;
      for (int64_t i = 0; i < n; ++i) {
        recorder_.ObservePluginDuration(point_, plugin_, status_, sum_seconds / static_cast<double>(n));
      }
    }

   private:
    FrameworkMetricsRecorder& recorder_;
    const std::string point_;
    const std::string plugin_;
    const Code status_;
  };
};

// Series that drop what they are given (the Nop recorder's, and a real
// recorder's for an extension point it does not know).
class NopEvaluationCounter final : public EvaluationCounter {
 public:
  void Add(int64_t) override {}
};
class NopDurationHistogram final : public DurationHistogram {
 public:
  void AddBuckets(const std::vector<int64_t>&, double) override {}
};

class NopMetricsRecorder final : public FrameworkMetricsRecorder {
 public:
  void ObserveExtensionPointDuration(std::string_view, Code, std::string_view, double) override {}
  void ObservePluginDuration(std::string_view, std::string_view, Code, double) override {}
  void AddPluginEvaluations(std::string_view, std::string_view, std::string_view, int64_t) override {}
  void ObservePermitWaitDuration(Code, double) override {}
  std::unique_ptr<EvaluationCounter> NewEvaluationCounter(std::string_view, std::string_view,
                                                          std::string_view) override {
    return std::make_unique<NopEvaluationCounter>();
  }
  std::unique_ptr<DurationHistogram> NewPluginDurationHistogram(std::string_view, std::string_view, Code) override {
    return std::make_unique<NopDurationHistogram>();
  }
  static NopMetricsRecorder& Get() {
    static NopMetricsRecorder r;
    return r;
  }
};

}  // namespace ksched::scheduler::framework
