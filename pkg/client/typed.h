// Typed list, watch and get for the API types in pkg/api/types.h, on top of
// RestClient's raw calls, decoding with api::FromJson<T>.
//
// Objects that fail to decode never fail the whole call: a list returns the
// good items and reports each bad one in `skipped`; a watch hands the sink a
// kInvalidArgument error and goes on. Error messages start with the resource
// and the object's key ("pods default/web-1: spec.containers[0]...") so the
// caller can log them as architecture decision 5 asks.
//
// Thread-safety: as RestClient; these functions keep no state.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/client/resource_path.h"
#include "pkg/client/rest_client.h"
#include "pkg/util/status.h"

namespace ksched::client {

// "default/web-1" (or "web-1" when cluster-scoped) from a raw object's
// metadata; "<unknown>" when the object has no name.
std::string RawObjectKey(const nlohmann::json& object);

// The kInvalidArgument error for an object of `resource` that did not
// decode: "<context><resource> <key>: <decode message>".
util::Status DecodeFailure(std::string_view context, std::string_view resource, const nlohmann::json& object,
                           const util::Status& decode_status);

template <class T>
struct TypedList {
  std::string resource_version;  // watch from here
  std::vector<T> items;
  std::vector<util::Status> skipped;  // one per object that did not decode
};

// Lists every T in `ns` ("" = all namespaces; ignored for cluster-scoped
// types), page by page when options.limit > 0.
template <class T>
util::StatusOr<TypedList<T>> ListObjects(RestClient& client, std::string_view ns, const ListOptions& options,
                                         std::stop_token stop = {}) {
  util::StatusOr<RawList> raw = client.List(CollectionPath<T>(ns), options, std::move(stop));
  if (!raw.ok()) return raw.status();
  TypedList<T> out;
  out.resource_version = std::move(raw->resource_version);
  out.items.reserve(raw->items.size());
  for (const nlohmann::json& item : raw->items) {
    util::StatusOr<T> obj = api::FromJson<T>(item);
    if (obj.ok()) {
      out.items.push_back(std::move(obj).value());
    } else {
      out.skipped.push_back(DecodeFailure("", api::TypeInfo<T>::kResource, item, obj.status()));
    }
  }
  return out;
}

template <class T>
struct TypedWatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED or BOOKMARK
  T object;          // for BOOKMARK only metadata.resourceVersion is meaningful
};

// Receives each decoded event, or a kInvalidArgument error for a line or an
// object that did not decode (already skipped).
template <class T>
using TypedWatchSink = std::function<void(util::StatusOr<TypedWatchEvent<T>>)>;

// RestClient::Watch on CollectionPath<T>(ns), decoding each object; returns
// what RestClient::Watch returns.
template <class T>
util::Status WatchObjects(RestClient& client, std::string_view ns, const WatchOptions& options,
                          const TypedWatchSink<T>& sink, std::stop_token stop) {
  WatchEventSink raw_sink = [&sink](util::StatusOr<WatchEvent> event) {
    if (!event.ok()) {
      sink(event.status());
      return;
    }
    util::StatusOr<T> obj = api::FromJson<T>(event->object);
    if (!obj.ok()) {
      sink(DecodeFailure("watch " + event->type + " ", api::TypeInfo<T>::kResource, event->object, obj.status()));
      return;
    }
    sink(TypedWatchEvent<T>{std::move(event->type), std::move(obj).value()});
  };
  return client.Watch(CollectionPath<T>(ns), options, raw_sink, std::move(stop));
}

// Decodes a call's JSON result as a T.
template <class T>
util::StatusOr<T> DecodeResult(util::StatusOr<nlohmann::json> result) {
  if (!result.ok()) return result.status();
  util::StatusOr<T> obj = api::FromJson<T>(*result);
  if (!obj.ok()) return DecodeFailure("response ", api::TypeInfo<T>::kResource, *result, obj.status());
  return obj;
}

// Decodes a raw response as a T: DecodeResult<T>(ParseJsonBody(...)) in
// result and errors, without a JSON tree when the body is an ordinary
// object (api::FromJsonText).
template <class T>
util::StatusOr<T> DecodeResponse(const Request& request, util::StatusOr<Response> response) {
  if (!response.ok()) return response.status();
  util::StatusOr<T> fast = api::FromJsonText<T>(response->body);
  if (fast.ok()) return fast;
  return DecodeResult<T>(ParseJsonBody(request, *response));
}

// GET one object; kNotFound when it does not exist.
template <class T>
util::StatusOr<T> GetObject(RestClient& client, std::string_view ns, std::string_view name,
                            std::stop_token stop = {}) {
  return DecodeResult<T>(client.Get(ObjectPath<T>(ns, name), {}, std::move(stop)));
}

// PUT `obj` to `path` (the object's, or a subresource's such as
// ".../status"): an update, where metadata.resourceVersion, when set, is
// the optimistic-concurrency precondition (a stale one answers kConflict).
// Returns the stored object, decoded from the body's text as
// DecodeResponse does. A PUT is idempotent, so 5xx answers are retried
// (retry_policy.h).
template <class T>
util::StatusOr<T> PutObject(RestClient& client, std::string path, const T& obj) {
  Request r;
  r.verb = "PUT";
  r.path = std::move(path);
  r.body = api::ToJsonText(obj);
  return DecodeResponse<T>(r, client.Do(r));
}

// PutObject to the object's own path.
template <class T>
util::StatusOr<T> UpdateObject(RestClient& client, const T& obj) {
  return PutObject(client, ObjectPath<T>(obj.metadata.namespace_, obj.metadata.name), obj);
}

}  // namespace ksched::client
