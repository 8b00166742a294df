#include "pkg/informer/rest_lister_watcher.h"

#include <utility>

#include "pkg/client/resource_path.h"

namespace ksched::informer {

namespace {

std::string MetadataString(const nlohmann::json& list, const char* field) {
  auto meta = list.find("metadata");
  if (meta == list.end() || !meta->is_object()) return "";
  auto value = meta->find(field);
  if (value == meta->end() || !value->is_string()) return "";
  return value->get<std::string>();
}

}  // namespace

RestListerWatcher::RestListerWatcher(client::RestClient& client, std::string collection_path,
                                     std::string field_selector, std::string label_selector)
    : client_(client),
      path_(std::move(collection_path)),
      field_selector_(std::move(field_selector)),
      label_selector_(std::move(label_selector)) {}

util::StatusOr<ListPage> RestListerWatcher::List(const ListOptions& options, std::stop_token stop) {
  client::QueryParams query;
  if (!label_selector_.empty()) query.emplace_back("labelSelector", label_selector_);
  if (!field_selector_.empty()) query.emplace_back("fieldSelector", field_selector_);
  if (options.limit > 0) query.emplace_back("limit", std::to_string(options.limit));
  if (!options.continue_token.empty()) {
    query.emplace_back("continue", options.continue_token);
  } else if (!options.resource_version.empty()) {
    query.emplace_back("resourceVersion", options.resource_version);
  }
  util::StatusOr<nlohmann::json> body = client_.Get(path_, query, std::move(stop));
  if (!body.ok()) return body.status();
  if (!body->is_object()) {
    return util::Status(util::StatusCode::kInvalidArgument, "list " + path_ + ": the response is not an object");
  }
  ListPage page;
  page.resource_version = MetadataString(*body, "resourceVersion");
  page.continue_token = MetadataString(*body, "continue");
  auto items = body->find("items");
  if (items != body->end() && items->is_array()) {
    page.items.reserve(items->size());
    for (nlohmann::json& item : *items) page.items.push_back(std::move(item));
  } else if (items != body->end() && !items->is_null()) {
    return util::Status(util::StatusCode::kInvalidArgument, "list " + path_ + ": items is not an array");
  }
  return page;
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
    callback(RawWatchEvent{std::move(event->type), std::move(event->object), std::move(event->object_text)});
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
