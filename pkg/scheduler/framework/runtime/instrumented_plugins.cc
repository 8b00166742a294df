#include "pkg/scheduler/framework/runtime/instrumented_plugins.h"

namespace ksched::scheduler::framework::runtime {

InstrumentedPreFilterPlugin::InstrumentedPreFilterPlugin(PreFilterPlugin& plugin, const Instrumentation& in,
                                                         std::string_view profile)
    : plugin_(plugin),
      in_(in),
      evaluations_(in.recorder->NewEvaluationCounter(extension_point::kPreFilter, plugin.Name(), profile)) {}

std::pair<PreFilterResult, Status> InstrumentedPreFilterPlugin::PreFilter(CycleState& state, const api::Pod& pod,
                                                                          const NodeInfoList& nodes) {
  const SampledCall call(in_, state);
  std::pair<PreFilterResult, Status> out = plugin_.PreFilter(state, pod, nodes);
  call.Done(extension_point::kPreFilter, Name(), out.second.code());
  if (!out.second.IsSkip()) evaluations_->Add(1);
  return out;
}

PreFilterExtensions* InstrumentedPreFilterPlugin::GetPreFilterExtensions() {
  return plugin_.GetPreFilterExtensions() == nullptr ? nullptr : this;
}

Status InstrumentedPreFilterPlugin::AddPod(CycleState& state, const api::Pod& pod_to_schedule,
                                           const PodInfoPtr& pod_info_to_add, const NodeInfo& node_info) {
  const SampledCall call(in_, state);
  Status s = plugin_.GetPreFilterExtensions()->AddPod(state, pod_to_schedule, pod_info_to_add, node_info);
  call.Done(extension_point::kPreFilterExtensionAddPod, Name(), s.code());
  return s;
}

Status InstrumentedPreFilterPlugin::RemovePod(CycleState& state, const api::Pod& pod_to_schedule,
                                              const PodInfoPtr& pod_info_to_remove, const NodeInfo& node_info) {
  const SampledCall call(in_, state);
  Status s = plugin_.GetPreFilterExtensions()->RemovePod(state, pod_to_schedule, pod_info_to_remove, node_info);
  call.Done(extension_point::kPreFilterExtensionRemovePod, Name(), s.code());
  return s;
}

std::pair<PostFilterResult, Status> InstrumentedPostFilterPlugin::PostFilter(CycleState& state, const api::Pod& pod,
                                                                            const NodeToStatus& filtered_node_status) {
  const SampledCall call(in_, state);
  std::pair<PostFilterResult, Status> out = plugin_.PostFilter(state, pod, filtered_node_status);
  call.Done(extension_point::kPostFilter, Name(), out.second.code());
  return out;
}

InstrumentedPreScorePlugin::InstrumentedPreScorePlugin(PreScorePlugin& plugin, const Instrumentation& in,
                                                       std::string_view profile)
    : plugin_(plugin),
      in_(in),
      evaluations_(in.recorder->NewEvaluationCounter(extension_point::kPreScore, plugin.Name(), profile)) {}

Status InstrumentedPreScorePlugin::PreScore(CycleState& state, const api::Pod& pod, const NodeInfoList& nodes) {
  const SampledCall call(in_, state);
  Status s = plugin_.PreScore(state, pod, nodes);
  call.Done(extension_point::kPreScore, Name(), s.code());
  if (!s.IsSkip()) evaluations_->Add(1);
  return s;
}

ScoreExtensions* InstrumentedScorePlugin::GetScoreExtensions() {
  return plugin_.GetScoreExtensions() == nullptr ? nullptr : this;
}

Status InstrumentedScorePlugin::NormalizeScore(CycleState& state, const api::Pod& pod, NodeScoreList& scores) {
  const SampledCall call(in_, state);
  Status s = plugin_.GetScoreExtensions()->NormalizeScore(state, pod, scores);
  call.Done(extension_point::kScoreExtensionNormalize, Name(), s.code());
  return s;
}

Status InstrumentedReservePlugin::Reserve(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const SampledCall call(in_, state);
  Status s = plugin_.Reserve(state, pod, node_name);
  call.Done(extension_point::kReserve, Name(), s.code());
  return s;
}

void InstrumentedReservePlugin::Unreserve(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const SampledCall call(in_, state);
  plugin_.Unreserve(state, pod, node_name);
  call.Done(extension_point::kUnreserve, Name(), Code::kSuccess);
}

std::pair<Status, util::Duration> InstrumentedPermitPlugin::Permit(CycleState& state, const api::Pod& pod,
                                                                   std::string_view node_name) {
  const SampledCall call(in_, state);
  std::pair<Status, util::Duration> out = plugin_.Permit(state, pod, node_name);
  call.Done(extension_point::kPermit, Name(), out.first.code());
  return out;
}

Status InstrumentedPreBindPlugin::PreBindPreFlight(CycleState& state, const api::Pod& pod,
                                                   std::string_view node_name) {
  const SampledCall call(in_, state);
  Status s = plugin_.PreBindPreFlight(state, pod, node_name);
  call.Done(extension_point::kPreBindPreFlight, Name(), s.code());
  return s;
}

Status InstrumentedPreBindPlugin::PreBind(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const SampledCall call(in_, state);
  Status s = plugin_.PreBind(state, pod, node_name);
  call.Done(extension_point::kPreBind, Name(), s.code());
  return s;
}

Status InstrumentedBindPlugin::Bind(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const SampledCall call(in_, state);
  Status s = plugin_.Bind(state, pod, node_name);
  call.Done(extension_point::kBind, Name(), s.code());
  return s;
}

void InstrumentedPostBindPlugin::PostBind(CycleState& state, const api::Pod& pod, std::string_view node_name) {
  const SampledCall call(in_, state);
  plugin_.PostBind(state, pod, node_name);
  call.Done(extension_point::kPostBind, Name(), Code::kSuccess);
}

}  // namespace ksched::scheduler::framework::runtime
