#include "pkg/client/watch_decoder.h"

#include "pkg/api/json_reader.h"

namespace ksched::client {

namespace {

constexpr size_t kMaxLineInError = 200;

std::string Excerpt(std::string_view line) {
  if (line.size() <= kMaxLineInError) return std::string(line);
  return std::string(line.substr(0, kMaxLineInError)) + "...";
}

bool IsBlank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

bool KnownType(const std::string& t) {
  return t == "ADDED" || t == "MODIFIED" || t == "DELETED" || t == "BOOKMARK" || t == "ERROR";
}

// The API server's layout, `{"type":"<type>","object":<object>}`: the
// object is everything after "object" up to the closing brace. Taking it
// so saves reading it twice (here and in the caller's typed decode).
bool TakeTrailingObject(api::JsonReader& r, WatchEvent* event) {
  std::string_view rest = r.Rest();
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r')) rest.remove_suffix(1);
  if (rest.size() < 2 || rest.front() != '{' || rest.back() != '}') return false;
  // JSON has no raw NUL; the typed decoders would read one as the end of the
  // text, so such a line goes to the parser, which rejects it.
  if (rest.find('\0') != std::string_view::npos) return false;
  rest.remove_suffix(1);
  while (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r') rest.remove_suffix(1);
  event->object_text.assign(rest);
  event->object_unchecked = true;
  return true;
}

// The raw-mode envelope scan: exactly the members "type" (a known type
// other than ERROR) and "object" (an object), once each, in either order,
// other members skipped. False sends the line through the parser. With
// `trailing_object`, an object right after the type is taken unread
// (TakeTrailingObject).
bool ScanEnvelope(std::string_view line, WatchEvent* event, bool trailing_object) {
  api::JsonReader r(line);
  if (!r.BeginObject()) return false;
  bool first = true, have_type = false, have_object = false;
  std::string scratch;
  std::string_view object;
  while (true) {
    std::string_view key;
    const int m = r.NextMember(&first, &key, &scratch);
    if (m < 0) return false;
    if (m == 0) break;
    if (key == "type") {
      std::string_view type;
      if (have_type || !r.ReadString(&type, &scratch)) return false;
      event->type.assign(type);
      have_type = true;
    } else if (key == "object") {
      if (trailing_object && have_type && KnownType(event->type) && event->type != "ERROR" &&
          TakeTrailingObject(r, event)) {
        return true;
      }
      if (have_object || r.Peek() != '{' || !r.CaptureValue(&object)) return false;
      have_object = true;
    } else if (!r.SkipValue()) {
      return false;
    }
  }
  if (!have_type || !have_object || !r.AtEnd() || event->type == "ERROR" || !KnownType(event->type)) return false;
  event->object_text.assign(object);
  return true;
}

util::StatusOr<WatchEvent> Decode(std::string_view line, bool raw_objects, bool trailing_object) {
  if (raw_objects) {
    WatchEvent event;
    if (ScanEnvelope(line, &event, trailing_object)) return event;
  }
  nlohmann::json j = nlohmann::json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return util::InvalidArgument("watch event is not valid JSON: " + Excerpt(line));
  if (!j.is_object()) return util::InvalidArgument("watch event is not a JSON object: " + Excerpt(line));
  auto type = j.find("type");
  if (type == j.end() || !type->is_string()) {
    return util::InvalidArgument("watch event has no string \"type\": " + Excerpt(line));
  }
  WatchEvent event;
  event.type = type->get<std::string>();
  if (!KnownType(event.type)) {
    return util::InvalidArgument("watch event has unknown type \"" + event.type + "\": " + Excerpt(line));
  }
  auto object = j.find("object");
  if (object == j.end() || !object->is_object()) {
    return util::InvalidArgument("watch event " + event.type + " has no \"object\": " + Excerpt(line));
  }
  event.object = std::move(*object);
  return event;
}

}  // namespace

util::StatusOr<WatchEvent> DecodeWatchEvent(std::string_view line, bool raw_objects) {
  return Decode(line, raw_objects, /*trailing_object=*/true);
}

util::StatusOr<WatchEvent> RecheckWatchEvent(const WatchEvent& unchecked) {
  // The line again: TakeTrailingObject only follows `{"type":"<type>",
  // "object":`, and a known type needs no escaping.
  const std::string line = R"({"type":")" + unchecked.type + R"(","object":)" + unchecked.object_text + "}";
  return Decode(line, /*raw_objects=*/true, /*trailing_object=*/false);
}

WatchStreamDecoder::WatchStreamDecoder(size_t max_line_bytes, bool raw_objects)
    : max_line_bytes_(max_line_bytes), raw_objects_(raw_objects) {}

void WatchStreamDecoder::EmitLine(std::string_view line, bool more_arrived, const WatchEventSink& sink) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (IsBlank(line)) return;
  util::StatusOr<WatchEvent> event = DecodeWatchEvent(line, raw_objects_);
  if (event.ok()) event->more_arrived = more_arrived;
  sink(std::move(event));
}

void WatchStreamDecoder::Feed(std::string_view bytes, const WatchEventSink& sink) {
  while (!bytes.empty()) {
    size_t nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      if (discarding_) return;
      if (partial_.size() + bytes.size() > max_line_bytes_) {
        sink(util::InvalidArgument("watch event longer than " + std::to_string(max_line_bytes_) +
                                   " bytes skipped: " + Excerpt(partial_.empty() ? bytes : partial_)));
        partial_.clear();
        partial_.shrink_to_fit();
        discarding_ = true;
        return;
      }
      partial_.append(bytes);
      return;
    }
    std::string_view head = bytes.substr(0, nl);
    bytes.remove_prefix(nl + 1);
    if (discarding_) {
      discarding_ = false;
      continue;
    }
    if (partial_.size() + head.size() > max_line_bytes_) {
      // The limit holds however the line was cut into chunks.
      sink(util::InvalidArgument("watch event longer than " + std::to_string(max_line_bytes_) +
                                 " bytes skipped: " + Excerpt(partial_.empty() ? head : partial_)));
      partial_.clear();
      partial_.shrink_to_fit();
    } else if (partial_.empty()) {
      EmitLine(head, !bytes.empty(), sink);  // the common case: the whole line is in this chunk
    } else {
      partial_.append(head);
      std::string line;
      line.swap(partial_);
      EmitLine(line, !bytes.empty(), sink);
    }
  }
}

void WatchStreamDecoder::Finish(const WatchEventSink& sink) {
  if (!discarding_ && !partial_.empty()) {
    std::string line;
    line.swap(partial_);
    EmitLine(line, /*more_arrived=*/false, sink);
  }
  partial_.clear();
  discarding_ = false;
}

}  // namespace ksched::client
