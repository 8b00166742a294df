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
// Batched forms, which the framework uses on its hot paths (a recorder may
// keep the defaults, which forward to the single forms):
//   NewEvaluationCounter   a plugin_evaluation_total series resolved once
//                          (the framework keeps one per plugin and point)
//   ObservePluginDurations many plugin_execution_duration_seconds
//                          observations in one call (the framework buffers
//                          the per-node Filter and Score durations of
//                          sampled cycles and hands them over at its next
//                          flush)
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
inline constexpr std::string_view kBind = "Bind";
inline constexpr std::string_view kPostBind = "PostBind";
}  // namespace extension_point

// One plugin_execution_duration_seconds observation. The string_views must
// stay valid for the ObservePluginDurations call (the framework passes its
// extension_point constants and its plugins' names).
struct PluginDurationSample {
  std::string_view extension_point;
  std::string_view plugin;
  Code status = Code::kSuccess;
  double seconds = 0;
};

// plugin_evaluation_total{plugin, extension_point, profile}, resolved.
// Thread-safe.
class EvaluationCounter {
 public:
  virtual ~EvaluationCounter() = default;
  virtual void Add(int64_t n) = 0;
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
  // ObservePluginDuration for each sample, in order.
  virtual void ObservePluginDurations(const std::vector<PluginDurationSample>& samples) {
    for (const PluginDurationSample& s : samples) {
      ObservePluginDuration(s.extension_point, s.plugin, s.status, s.seconds);
    }
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
};

class NopMetricsRecorder final : public FrameworkMetricsRecorder {
 public:
  void ObserveExtensionPointDuration(std::string_view, Code, std::string_view, double) override {}
  void ObservePluginDuration(std::string_view, std::string_view, Code, double) override {}
  void AddPluginEvaluations(std::string_view, std::string_view, std::string_view, int64_t) override {}
  void ObservePermitWaitDuration(Code, double) override {}
  std::unique_ptr<EvaluationCounter> NewEvaluationCounter(std::string_view, std::string_view,
                                                          std::string_view) override {
    return std::make_unique<NopCounter>();
  }
  void ObservePluginDurations(const std::vector<PluginDurationSample>&) override {}
  static NopMetricsRecorder& Get() {
    static NopMetricsRecorder r;
    return r;
  }

 private:
  class NopCounter final : public EvaluationCounter {
   public:
    void Add(int64_t) override {}
  };
};

}  // namespace ksched::scheduler::framework
