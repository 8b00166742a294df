#include "examples/out-of-tree-plugin/node_label.h"

#include <string>

namespace nodelabel {

namespace framework = ksched::scheduler::framework;

std::pair<int64_t, framework::Status> NodeLabel::Score(framework::CycleState&, const ksched::api::Pod&,
                                                       const framework::NodeInfo& node_info) {
  const ksched::api::Node* node = node_info.node();
  if (node == nullptr) return {0, framework::Status::Error("node not found")};
  auto label = node->metadata.labels.find(args_.label_key);
  if (label == node->metadata.labels.end()) return {0, framework::Status()};
  auto weight = args_.weights.find(label->second);
  return {weight == args_.weights.end() ? 0 : weight->second, framework::Status()};
}

ksched::util::StatusOr<std::shared_ptr<NodeLabel>> New(const ksched::config::PluginArgs& args) {
  ksched::util::StatusOr<NodeLabelArgs> a = ksched::config::ArgsAs<NodeLabelArgs>(args);
  if (!a.ok()) return a.status();
  return std::make_shared<NodeLabel>(std::move(a).value());
}

framework::PluginRegistration Registration() {
  return framework::PluginRegistration{
      std::string(kName),
      framework::AdaptFactory<NodeLabel>(
          [](const ksched::config::PluginArgs& args, framework::Handle&) { return New(args); }),
      &NodeLabelArgs::Codec()};
}

}  // namespace nodelabel
