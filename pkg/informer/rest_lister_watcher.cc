#include "pkg/informer/rest_lister_watcher.h"

#include <utility>

#include "pkg/client/resource_path.h"
#include "pkg/informer/list_body_scanner.h"

namespace ksched::informer {

RestListerWatcher::RestListerWatcher(client::RestClient& client, std::string collection_path,
                                     std::string field_selector, std::string label_selector)
    : client_(client),
      path_(std::move(collection_path)),
      field_selector_(std::move(field_selector)),
      label_selector_(std::move(label_selector)) {}

util::StatusOr<ListPageInfo> RestListerWatcher::List(const ListOptions& options, const ListItemCallback& on_item,
                                                     std::stop_token stop) {
  client::Request r;
  r.path = path_;
  if (!label_selector_.empty()) r.query.emplace_back("labelSelector", label_selector_);
  if (!field_selector_.empty()) r.query.emplace_back("fieldSelector", field_selector_);
  if (options.limit > 0) r.query.emplace_back("limit", std::to_string(options.limit));
  if (!options.continue_token.empty()) {
    r.query.emplace_back("continue", options.continue_token);
  } else if (!options.resource_version.empty()) {
    r.query.emplace_back("resourceVersion", options.resource_version);
  }
  r.stop = std::move(stop);
  ListBodyScanner scanner("list " + path_, on_item);
  util::Status status = client_.Stream(r, [&scanner](std::string_view bytes) { return scanner.Feed(bytes); });
  if (status.ok()) status = scanner.Finish();
  if (!status.ok()) return status;
  return ListPageInfo{scanner.resource_version(), scanner.continue_token()};
}

util::Status RestListerWatcher::Watch(const WatchOptions& options, const WatchEventCallback& callback,
                                      std::stop_token stop) {
  client::WatchOptions watch;
  watch.label_selector = label_selector_;
  watch.field_selector = field_selector_;
  watch.resource_version = options.resource_version;
  watch.allow_watch_bookmarks = options.allow_watch_bookmarks;
  watch.timeout_seconds = options.timeout_seconds;
  watch.raw_objects = true;  // the Reflector decodes object_text itself
  client::WatchEventSink sink = [&callback](util::StatusOr<client::WatchEvent> event) {
    if (!event.ok()) {
      callback(event.status());
      return;
    }
    callback(RawWatchEvent{std::move(event->type), std::move(event->object), std::move(event->object_text),
                           event->object_unchecked, event->more_arrived});
  };
  return client_.Watch(path_, watch, sink, std::move(stop));
}

std::unique_ptr<RestListerWatcher> NewSchedulerListerWatcher(client::RestClient& client, const ResourceType& type) {
  std::string path = client::CollectionPath(type.api_version, type.resource, type.namespaced, "");
  std::string field_selector =
      type.api_version == "v1" && type.resource == "pods" ? kSchedulerPodFieldSelector : "";
  return std::make_unique<RestListerWatcher>(client, std::move(path), std::move(field_selector));
}

std::function<std::unique_ptr<ListerWatcher>(const ResourceType&)> RestListerWatcherFactory(
    client::RestClient& client) {
  return [&client](const ResourceType& type) -> std::unique_ptr<ListerWatcher> {
    return NewSchedulerListerWatcher(client, type);
  };
}

}  // namespace ksched::informer
