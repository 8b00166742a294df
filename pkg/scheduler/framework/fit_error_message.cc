#include "pkg/scheduler/framework/fit_error_message.h"

#include <algorithm>
#include <map>
#include <vector>

namespace ksched::scheduler::framework {

std::string FitErrorMessage(int num_all_nodes, const NodeToStatus& nts, std::string_view pre_filter_msg,
                            std::string_view post_filter_msg) {
  std::string msg = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!pre_filter_msg.empty()) {
    // PreFilter put the same status on every node; listing it per node would
    // only repeat it.
    msg.append(" ").append(pre_filter_msg).append(".");
  } else {
    std::map<std::string, int> reasons;
    for (const auto& [node, status] : nts.ExplicitStatuses()) {
      for (const std::string& r : status.reasons()) ++reasons[r];
    }
    const int explicit_count = static_cast<int>(nts.Len());
    if (explicit_count < num_all_nodes) {
      for (const std::string& r : nts.AbsentNodesStatus().reasons()) reasons[r] += num_all_nodes - explicit_count;
    }
    std::vector<std::string> histogram;
    histogram.reserve(reasons.size());
    for (const auto& [reason, count] : reasons) histogram.push_back(std::to_string(count) + " " + reason);
    // Sorted as strings, counts included, as kube does ("10 x" < "2 y").
    std::sort(histogram.begin(), histogram.end());
    if (!histogram.empty()) {
      msg += " ";
      for (size_t i = 0; i < histogram.size(); ++i) {
        if (i > 0) msg += ", ";
        msg += histogram[i];
      }
      msg += ".";
    }
  }
  if (!post_filter_msg.empty()) msg.append(" ").append(post_filter_msg);
  return msg;
}

}  // namespace ksched::scheduler::framework
