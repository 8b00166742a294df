// RestListerWatcher: a ListerWatcher over pkg/client's RestClient for one
// collection path (all namespaces), with optional label and field selectors.
//
// List sends one GET per page (limit, continue, resourceVersion) so that the
// Reflector controls paging, and hands over each item as its bytes arrive
// (ListBodyScanner); Watch is RestClient::Watch (chunked stream
// decoded line by line as it arrives; ERROR events become the returned
// status, 410 -> kGone). Errors are RestClient's mapping (api_errors.h).
//
// RestListerWatcherFactory builds one per resource type the way
// kube-scheduler's informers watch: pods with the field selector
// kSchedulerPodFieldSelector (terminal pods are not watched), everything
// else unfiltered.
//
// Thread-safety: as RestClient (calls may run concurrently); the client must
// outlive every RestListerWatcher built on it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "pkg/client/rest_client.h"
#include "pkg/informer/list_watcher.h"
#include "pkg/informer/resource_type.h"

namespace ksched::informer {

// The pods a scheduler cares about: everything not finished.
inline constexpr const char kSchedulerPodFieldSelector[] = "status.phase!=Succeeded,status.phase!=Failed";

class RestListerWatcher final : public ListerWatcher {
 public:
  RestListerWatcher(client::RestClient& client, std::string collection_path, std::string field_selector = "",
                    std::string label_selector = "");

  util::StatusOr<ListPageInfo> List(const ListOptions& options, const ListItemCallback& on_item,
                                    std::stop_token stop) override;
  util::Status Watch(const WatchOptions& options, const WatchEventCallback& callback,
                     std::stop_token stop) override;

  const std::string& path() const { return path_; }
  const std::string& field_selector() const { return field_selector_; }

 private:
  client::RestClient& client_;
  const std::string path_;
  const std::string field_selector_;
  const std::string label_selector_;
};

// The collection path and selectors kube-scheduler uses for `type`.
std::unique_ptr<RestListerWatcher> NewSchedulerListerWatcher(client::RestClient& client, const ResourceType& type);

// For InformerFactory: NewSchedulerListerWatcher on `client`.
std::function<std::unique_ptr<ListerWatcher>(const ResourceType&)> RestListerWatcherFactory(
    client::RestClient& client);

}  // namespace ksched::informer
