// Fuzz target for the watch-event fast path against the slow path.
//
// The input is one watch line. The informers decode it the fast way
// (DecodeWatchEvent in raw mode, then api::FromJsonText on the object's
// text); the slow way parses the line into a tree and decodes the object
// with api::FromJson. Properties, for every object type the informers and
// clients decode:
//   - whenever both ways succeed, they agree (event type, object JSON, and
//     the decoded object, compared through ToJson);
//   - FromJsonText is FromJson(ParseJson(text)), errors included (codec.h);
//   - a line the raw envelope scan accepts is one the parser accepts too
//     (json_reader.h: what the reader accepts, nlohmann parses);
//   - an object taken unread (object_unchecked) that a typed decode accepts
//     is one JSON value, so the line had the usual layout; the reflector
//     rechecks the others (RecheckWatchEvent), and so does this target.
#include <nlohmann/json.hpp>

#include <string_view>

#include "pkg/api/codec.h"
#include "pkg/api/types.h"
#include "pkg/client/watch_decoder.h"
#include "test/fuzz/fuzz_target.h"

namespace {

using ksched::client::WatchEvent;

template <class T>
ksched::util::StatusOr<T> ViaTree(std::string_view text) {
  ksched::util::StatusOr<nlohmann::json> parsed = ksched::api::ParseJson(text);
  if (!parsed.ok()) return parsed.status();
  return ksched::api::FromJson<T>(*parsed);
}

// The parser takes the text as one JSON value (nothing after it).
bool IsOneValue(std::string_view text) { return ksched::api::ParseJson(text).ok(); }

// What the reflector trusts in an unchecked object: a typed decode of it.
template <class T>
void CheckUnchecked(const WatchEvent& unchecked) {
  if (ksched::api::FromJsonText<T>(unchecked.object_text).ok()) {
    KSCHED_FUZZ_CHECK(IsOneValue(unchecked.object_text), "a typed decode accepts more than one value");
  }
}

template <class T>
void Compare(const WatchEvent& fast, const WatchEvent& slow) {
  ksched::util::StatusOr<T> f = fast.object_text.empty() ? ksched::api::FromJson<T>(fast.object)
                                                         : ksched::api::FromJsonText<T>(fast.object_text);
  ksched::util::StatusOr<T> s = ksched::api::FromJson<T>(slow.object);
  if (f.ok() && s.ok()) {
    KSCHED_FUZZ_CHECK(ksched::api::ToJson(*f) == ksched::api::ToJson(*s),
                      "the fast and the slow path decode different objects");
  }
  if (fast.object_text.empty()) return;
  ksched::util::StatusOr<T> tree = ViaTree<T>(fast.object_text);
  KSCHED_FUZZ_CHECK(f.ok() == tree.ok(), "FromJsonText and FromJson(ParseJson) disagree on success");
  if (f.ok()) {
    KSCHED_FUZZ_CHECK(ksched::api::ToJson(*f) == ksched::api::ToJson(*tree),
                      "FromJsonText and FromJson(ParseJson) decode different objects");
  } else {
    KSCHED_FUZZ_CHECK(f.status().code() == tree.status().code() && f.status().message() == tree.status().message(),
                      "FromJsonText and FromJson(ParseJson) report different errors");
  }
}

}  // namespace

KSCHED_FUZZ_TARGET(watch_event) {
  namespace api = ksched::api;
  ksched::util::StatusOr<WatchEvent> fast = ksched::client::DecodeWatchEvent(input, /*raw_objects=*/true);
  ksched::util::StatusOr<WatchEvent> slow = ksched::client::DecodeWatchEvent(input, /*raw_objects=*/false);
  if (fast.ok() && fast->object_unchecked) {
    CheckUnchecked<api::Pod>(*fast);
    CheckUnchecked<api::Node>(*fast);
    CheckUnchecked<api::Event>(*fast);
    if (!IsOneValue(fast->object_text)) fast = ksched::client::RecheckWatchEvent(*fast);
  }
  if (fast.ok() && !fast->object_text.empty()) {
    KSCHED_FUZZ_CHECK(slow.ok(), "the raw envelope scan accepts a line the parser rejects");
  }
  if (!fast.ok() || !slow.ok()) return;
  KSCHED_FUZZ_CHECK(fast->type == slow->type, "the fast and the slow path read different event types");
  if (!fast->object_text.empty()) {
    ksched::util::StatusOr<nlohmann::json> object = ksched::api::ParseJson(fast->object_text);
    KSCHED_FUZZ_CHECK(object.ok() && *object == slow->object,
                      "the raw object text is not the object the parser read");
  } else {
    KSCHED_FUZZ_CHECK(fast->object == slow->object, "the fast and the slow path read different objects");
  }
  Compare<api::Pod>(*fast, *slow);
  Compare<api::Node>(*fast, *slow);
  Compare<api::PersistentVolume>(*fast, *slow);
  Compare<api::PersistentVolumeClaim>(*fast, *slow);
  Compare<api::Namespace>(*fast, *slow);
  Compare<api::Binding>(*fast, *slow);
  Compare<api::StorageClass>(*fast, *slow);
  Compare<api::CSINode>(*fast, *slow);
  Compare<api::CSIDriver>(*fast, *slow);
  Compare<api::PodDisruptionBudget>(*fast, *slow);
  Compare<api::Event>(*fast, *slow);
  Compare<api::Lease>(*fast, *slow);
}
