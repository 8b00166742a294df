#include "pkg/scheduler/fit_error.h"

#include "pkg/scheduler/framework/fit_error_message.h"

namespace ksched::scheduler {

void Diagnosis::AddPluginStatus(const framework::Status& status) {
  if (status.plugin().empty()) return;
  if (status.IsRejected()) unschedulable_plugins.Insert(status.plugin());
  if (status.code() == framework::Code::kPending) pending_plugins.Insert(status.plugin());
}

std::string FitError::Message() const {
  return framework::FitErrorMessage(num_all_nodes, diagnosis.node_to_status, diagnosis.pre_filter_msg,
                                    diagnosis.post_filter_msg);
}

}  // namespace ksched::scheduler
