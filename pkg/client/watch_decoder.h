// Incremental decoding of a Kubernetes watch stream.
//
// The API server answers a watch with a chunked body in which every event is
// one JSON object followed by a newline:
//   {"type":"ADDED","object":{...}}\n{"type":"BOOKMARK","object":{...}}\n...
// Chunks arrive at arbitrary boundaries, so WatchStreamDecoder buffers only
// the current unfinished line and decodes each line as soon as its newline
// arrives. A line that is not such an object (bad JSON, unknown type, missing
// object) is reported as a decode error and skipped; decoding continues with
// the next line, so one bad event never stalls the stream.
//
// Thread-safety: a WatchStreamDecoder is used by one thread at a time.
// Complexity: O(bytes fed); a line is copied at most once, only when it spans
// chunks.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "pkg/util/status.h"

namespace ksched::client {

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK or ERROR
  // The parsed object; null when object_text is set instead.
  nlohmann::json object;
  // Raw mode only (see DecodeWatchEvent): the object's JSON text, for a
  // caller that decodes it into a typed object itself (api::FromJsonText)
  // without building a tree. Empty when `object` holds the object.
  std::string object_text;
  // Raw mode: object_text is all the line holds after `"object":` up to its
  // closing brace, unread. It is the object when it decodes as one value
  // (the API server's layout: "type", then "object", then nothing);
  // otherwise RecheckWatchEvent reads the line member by member.
  bool object_unchecked = false;
  // More of the stream had arrived when this event was decoded (the next
  // event, or part of it): its reader goes on at once rather than waiting
  // for the server. Set by WatchStreamDecoder and its callers.
  bool more_arrived = false;
};

// Receives each decoded event, or a kInvalidArgument decode error for a
// malformed line (already skipped).
using WatchEventSink = std::function<void(util::StatusOr<WatchEvent>)>;

// Decodes one line (without its newline). With `raw_objects`, an event of
// the usual shape (`{"type":"ADDED","object":{...}}`, plain ASCII envelope)
// comes with object_text instead of a parsed object, nothing built: when
// "type" comes first, the text is taken unread (object_unchecked), else its
// JSON syntax is checked. ERROR events, and any line of another shape, are
// parsed as without raw_objects (same events, same errors).
util::StatusOr<WatchEvent> DecodeWatchEvent(std::string_view line, bool raw_objects = false);

// The event of an object_unchecked one's line, every member read (its
// object checked, or parsed), with the answers DecodeWatchEvent gives for
// the line: for an event whose object_text did not decode as one value.
util::StatusOr<WatchEvent> RecheckWatchEvent(const WatchEvent& unchecked);

class WatchStreamDecoder {
 public:
  // Lines longer than `max_line_bytes` are reported as errors and skipped
  // without being buffered whole.
  explicit WatchStreamDecoder(size_t max_line_bytes = size_t{64} << 20, bool raw_objects = false);

  // Consumes `bytes`, calling `sink` once per completed line. Blank lines
  // are ignored. An event followed by more of `bytes` is more_arrived.
  void Feed(std::string_view bytes, const WatchEventSink& sink);

  // End of stream: decodes a last line that had no newline.
  void Finish(const WatchEventSink& sink);

  // Bytes of the unfinished line held back.
  size_t buffered_bytes() const { return partial_.size(); }

 private:
  void EmitLine(std::string_view line, bool more_arrived, const WatchEventSink& sink);

  const size_t max_line_bytes_;
  const bool raw_objects_;
  std::string partial_;
  bool discarding_ = false;  // inside an over-long line, skipping to its end
};

}  // namespace ksched::client
