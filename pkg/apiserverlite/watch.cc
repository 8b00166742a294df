#include "pkg/apiserverlite/watch.h"

namespace ksched::apiserver {

ObjectPtr MakeStoredObject(nlohmann::json object, std::string key, uint64_t resource_version) {
  auto stored = std::make_shared<StoredObject>();
  stored->serialized = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  stored->object = std::move(object);
  stored->key = std::move(key);
  stored->resource_version = resource_version;
  return stored;
}

const char* EventTypeName(EventType t) {
  switch (t) {
    case EventType::kAdded: return "ADDED";
    case EventType::kModified: return "MODIFIED";
    case EventType::kDeleted: return "DELETED";
    case EventType::kBookmark: return "BOOKMARK";
    case EventType::kError: return "ERROR";
  }
  return "ERROR";
}

std::string WatchLine(EventType type, std::string_view serialized_object) {
  std::string line;
  line.reserve(serialized_object.size() + 32);
  line.append("{\"type\":\"").append(EventTypeName(type)).append("\",\"object\":");
  line.append(serialized_object);
  line.append("}\n");
  return line;
}

WatchEvent::WatchEvent(EventType type, ObjectPtr object, ObjectPtr previous)
    : type_(type), object_(std::move(object)), previous_(std::move(previous)) {}

nlohmann::json WatchEvent::DeletedView() const {
  if (type_ != EventType::kModified || !previous_) return object_->object;
  nlohmann::json old = previous_->object;
  old["metadata"]["resourceVersion"] = std::to_string(object_->resource_version);
  return old;
}

const std::string& WatchEvent::Line(EventType as) const {
  auto& slot = lines_[static_cast<size_t>(as) % lines_.size()];
  if (!slot) {
    if (as == EventType::kDeleted && type_ == EventType::kModified && previous_) {
      slot = WatchLine(as, DeletedView().dump(-1, ' ', false,
                                             nlohmann::json::error_handler_t::replace));
    } else {
      slot = WatchLine(as, object_->serialized);
    }
  }
  return *slot;
}

}  // namespace ksched::apiserver
