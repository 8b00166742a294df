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
// Thread-safety: implementations must be thread-safe and cheap (called from
// Filter/Score workers); the framework batches plugin evaluation counts.
#pragma once

#include <cstdint>
#include <string_view>

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
};

class NopMetricsRecorder final : public FrameworkMetricsRecorder {
 public:
  void ObserveExtensionPointDuration(std::string_view, Code, std::string_view, double) override {}
  void ObservePluginDuration(std::string_view, std::string_view, Code, double) override {}
  void AddPluginEvaluations(std::string_view, std::string_view, std::string_view, int64_t) override {}
  void ObservePermitWaitDuration(Code, double) override {}
  static NopMetricsRecorder& Get() {
    static NopMetricsRecorder r;
    return r;
  }
};

}  // namespace ksched::scheduler::framework
