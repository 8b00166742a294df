// NodeLabel: an example Score plugin built outside ksched's tree. It
// prefers nodes by the value of one label: a node whose label `labelKey`
// has a value listed in `weights` scores that weight, any other node 0
// (NodeLabelArgs, node_label_args.h). It filters nothing, so it registers
// no cluster events.
//
// Thread-safety: Score only reads the immutable args and the node; it runs
// concurrently for many nodes.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "examples/out-of-tree-plugin/node_label_args.h"
#include "pkg/pluginapi/plugin_api.h"

namespace nodelabel {

inline constexpr std::string_view kName = "NodeLabel";

class NodeLabel final : public ksched::scheduler::framework::ScorePlugin {
 public:
  explicit NodeLabel(NodeLabelArgs args) : args_(std::move(args)) {}

  std::string_view Name() const override { return kName; }
  std::pair<int64_t, ksched::scheduler::framework::Status> Score(
      ksched::scheduler::framework::CycleState& state, const ksched::api::Pod& pod,
      const ksched::scheduler::framework::NodeInfo& node_info) override;

 private:
  const NodeLabelArgs args_;
};

// The plugin from its profile args (config::ArgsAs: defaulted, validated).
ksched::util::StatusOr<std::shared_ptr<NodeLabel>> New(const ksched::config::PluginArgs& args);

// Name, factory and args codec, for ksched_add_scheduler(REGISTRATIONS).
ksched::scheduler::framework::PluginRegistration Registration();

}  // namespace nodelabel
