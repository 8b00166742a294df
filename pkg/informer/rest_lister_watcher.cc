#include "pkg/informer/rest_lister_watcher.h"

#include <utility>

#include "pkg/api/json_reader.h"
#include "pkg/client/resource_path.h"

namespace ksched::informer {

namespace {

// The string `field` of a list's metadata; "" when absent.
std::string MetaString(const nlohmann::json& meta, const char* field) {
  if (!meta.is_object()) return "";
  auto value = meta.find(field);
  if (value == meta.end() || !value->is_string()) return "";
  return value->get<std::string>();
}

// Finds the items of the list in page->text and reads its metadata, without
// a tree of the whole list; false for anything the JSON reader does not
// take (then ListFromTree answers, with the precise error if there is one).
bool ScanListText(ListPage& page) {
  api::JsonReader reader(page.text);
  if (!reader.BeginObject()) return false;
  bool first = true;
  std::string_view key;
  std::string scratch;
  int member = 0;
  while ((member = reader.NextMember(&first, &key, &scratch)) == 1) {
    if (key == "metadata") {
      std::string_view text;
      if (!reader.CaptureValue(&text)) return false;
      nlohmann::json meta = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (meta.is_discarded()) return false;
      page.resource_version = MetaString(meta, "resourceVersion");
      page.continue_token = MetaString(meta, "continue");
    } else if (key == "items") {
      page.items.clear();  // a repeated key: the last one counts, as in a tree
      if (reader.ConsumeNull()) continue;
      if (!reader.BeginArray()) return false;
      bool first_item = true;
      int element = 0;
      while ((element = reader.NextElement(&first_item)) == 1) {
        std::string_view item;
        if (!reader.CaptureValue(&item)) return false;
        page.items.emplace_back(static_cast<size_t>(item.data() - page.text.data()), item.size());
      }
      if (element != 0) return false;
    } else if (!reader.SkipValue()) {
      return false;
    }
  }
  return member == 0 && reader.AtEnd();
}

// The list parsed as a tree, each item written back as text: for what
// ScanListText does not take (\u escapes or non-ASCII text anywhere, deep
// nesting) and for errors.
util::StatusOr<ListPage> ListFromTree(const std::string& path, std::string text) {
  nlohmann::json body = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return util::Internal("GET " + path + ": response body is not JSON: " + text.substr(0, 200));
  }
  if (!body.is_object()) {
    return util::Status(util::StatusCode::kInvalidArgument, "list " + path + ": the response is not an object");
  }
  ListPage page;
  if (auto meta = body.find("metadata"); meta != body.end()) {
    page.resource_version = MetaString(*meta, "resourceVersion");
    page.continue_token = MetaString(*meta, "continue");
  }
  auto items = body.find("items");
  if (items != body.end() && items->is_array()) {
    for (const nlohmann::json& item : *items) page.AddItem(item.dump());
  } else if (items != body.end() && !items->is_null()) {
    return util::Status(util::StatusCode::kInvalidArgument, "list " + path + ": items is not an array");
  }
  return page;
}

}  // namespace

RestListerWatcher::RestListerWatcher(client::RestClient& client, std::string collection_path,
                                     std::string field_selector, std::string label_selector)
    : client_(client),
      path_(std::move(collection_path)),
      field_selector_(std::move(field_selector)),
      label_selector_(std::move(label_selector)) {}

util::StatusOr<ListPage> RestListerWatcher::List(const ListOptions& options, std::stop_token stop) {
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
  util::StatusOr<client::Response> response = client_.Do(r);
  if (!response.ok()) return response.status();
  return ParseListPage(path_, std::move(response->body));
}

util::StatusOr<ListPage> ParseListPage(const std::string& path, std::string text) {
  ListPage page;
  page.text = std::move(text);
  if (ScanListText(page)) return page;
  return ListFromTree(path, std::move(page.text));
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
