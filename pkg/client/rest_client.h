// RestClient: HTTP(S) access to one Kubernetes API server over pooled
// keep-alive HTTP/1.1 connections (http_transport.h), with client-go's
// transport behaviour:
//   - TLS from RestConfig (CA, client certificate, insecure, tls-server-name),
//     bearer token (file re-read as it rotates) or basic auth, a ksched
//     User-Agent, JSON Accept and Content-Type;
//   - client-side rate limiting (util::TokenBucket, qps/burst; every attempt
//     and every watch takes a token);
//   - retries with exponential backoff and jitter as retry_policy.h states;
//     backoff and throttling wait on the injected util::Clock;
//   - errors mapped to util::Status as api_errors.h states; client-side
//     timeouts are kDeadlineExceeded, stops are kCancelled, connection
//     failures kUnavailable.
//
// Watch() streams: it returns only when the server ends the stream, the
// caller stops it, or it fails, and it hands each event to the sink as soon
// as the line carrying it has arrived (see watch_decoder.h).
//
// Views (WithStops): a client sharing this one's connections, rate limiter
// and configuration whose calls also end when the view's stop tokens fire;
// the daemon gives each kind of caller its own view, so a shutdown can end
// best-effort writes at once and bindings after their drain.
//
// Thread-safety: every method may be called concurrently from many threads.
// Calls block the calling thread, which does the I/O itself. Observers run on the
// calling thread with no RestClient lock held.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/client/request_metrics.h"
#include "pkg/client/rest_config.h"
#include "pkg/client/retry_policy.h"
#include "pkg/client/watch_decoder.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::client {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

// One API call. `path` is absolute from the API root ("/api/v1/nodes");
// query values are percent-encoded by the client.
struct Request {
  std::string verb = "GET";
  std::string path;
  QueryParams query;
  std::string body;          // sent when non-empty
  std::string content_type;  // of `body`; empty means application/json
  // Overrides the verb's default (GET, HEAD, PUT, DELETE are idempotent).
  std::optional<bool> idempotent;
  // A refused request's error is the server's Status message alone
  // (ServerMessageStatus), as client-go words it, instead of naming the
  // request: for calls whose errors reach users' objects.
  bool server_message_errors = false;
  // Overrides RestConfig::timeout for this call.
  std::optional<util::Duration> timeout;
  // Stops retries and aborts the call in flight (kCancelled).
  std::stop_token stop;
};

struct Response {
  int http_code = 0;
  std::string body;
};

// A response body as JSON (null when blank); kInternal naming the request
// when it is not JSON. What the JSON conveniences (Get, Post, ...) return.
util::StatusOr<nlohmann::json> ParseJsonBody(const Request& request, const Response& response);

enum class PatchType {
  kJsonMerge,       // application/merge-patch+json (RFC 7386)
  kStrategicMerge,  // application/strategic-merge-patch+json (lists merged by key)
  kJsonPatch,       // application/json-patch+json (RFC 6902)
};
const char* PatchContentType(PatchType type);

// Query parameters of a list (see List()).
struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;        // "" = most recent (quorum read); "0" = any (cache)
  std::string resource_version_match;  // NotOlderThan / Exact; only with resource_version
  int64_t limit = 0;                   // page size; 0 = one unpaginated request
};

// Query parameters of a watch (see Watch()).
struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // usually the list's resourceVersion
  bool allow_watch_bookmarks = true;
  // The server ends the stream after this long; informers randomize it in
  // [5, 10) minutes. nullopt leaves it to the server.
  std::optional<int64_t> timeout_seconds;
  // Deliver objects as JSON text (WatchEvent::object_text) where possible,
  // for callers that decode them with api::FromJsonText (see
  // DecodeWatchEvent).
  bool raw_objects = false;
};

// The result of a paginated list: raw items (decode them one by one so that
// one malformed object can be skipped) and the list's resourceVersion, from
// which a watch continues.
struct RawList {
  std::string resource_version;
  std::vector<nlohmann::json> items;
};

// Hooks for tests (metrics go to RestClientOptions::metrics). All optional;
// each runs on the calling thread.
struct RestClientObserver {
  // A rate-limiter wait is about to start (only called when wait > 0).
  std::function<void(util::Duration wait)> on_rate_limiter_wait;
  // Retry number `retry` (1-based) will start after `wait`; `cause` says why.
  std::function<void(const Request& request, int retry, util::Duration wait, const util::Status& cause)> on_retry;
  // One attempt finished: http_code 0 when no response arrived.
  std::function<void(std::string_view verb, int http_code, util::Duration latency)> on_attempt_done;
};

struct RestClientOptions {
  RetryPolicy retry;
  RestClientObserver observer;
  // client-go's rest_client_* measurements; not owned, null for none. It
  // must outlive the client and its views.
  RequestMetrics* metrics = nullptr;
  // Seed of the backoff jitter; 0 picks a random seed.
  uint64_t jitter_seed = 0;
  // Watch streams get no inactivity timeout of their own: their connection
  // is allowed to stay silent for timeout_seconds plus this margin (or, with
  // no timeout_seconds, for an hour plus this margin) before the client
  // gives up on it.
  util::Duration watch_idle_margin = std::chrono::seconds(60);
  // With allow_watch_bookmarks, a watch stream silent for this long is
  // given up earlier (kDeadlineExceeded): twice kube-apiserver's one-minute
  // bookmark interval. Zero: no such limit. A server without a watch cache
  // (--watch-cache=false) sends no bookmarks; its quiet streams then end
  // every 2 minutes and are resumed from the last resourceVersion.
  util::Duration watch_bookmark_idle = std::chrono::minutes(2);
};

// Stops that apply to every call made through a view (RestClient::WithStops),
// in addition to each call's own stop.
struct CallStops {
  // Ends the call at once, in flight or waiting: kCancelled.
  std::stop_token cancel;
  // Ends every wait (client-side throttling, retry backoff) and forbids
  // further retries: the call returns its last attempt's error. An attempt
  // in flight, or the first one, still runs (bounded by the request
  // timeout).
  std::stop_token no_retry;
  // Asked just before each attempt goes on the wire (after client-side
  // throttling and after each retry's wait); false ends the call with
  // kCancelled unsent. For writes fenced by a Lease (WritesGate::IsOpen):
  // a call that passed its gate, then waited, never sends once the tenure
  // is over. Must be cheap and thread-safe. Empty: always.
  std::function<bool()> may_send;
};

class RestClient {
 public:
  // Validates `config`, reads its TLS files and prepares the transport. The
  // clock must outlive the client.
  static util::StatusOr<std::unique_ptr<RestClient>> Create(const RestConfig& config, const util::Clock& clock,
                                                            RestClientOptions options = {});
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  // Sends `request` (throttled, retried). 2xx: the response; anything else:
  // the mapped error.
  util::StatusOr<Response> Do(const Request& request);

  // Sends `request` as Do() does (throttled, retried until a response head
  // arrives) and hands its 2xx body to `on_body` piece by piece as the bytes
  // arrive, so a large body (a whole cluster's list) is never held at once.
  // Each read may wait the request's timeout. An error from `on_body` ends
  // the call with it; a connection lost mid-body is kUnavailable, a stalled
  // one kDeadlineExceeded; other errors as Do's. The connection is not
  // reused afterwards.
  util::Status Stream(const Request& request, const std::function<util::Status(std::string_view)>& on_body);

  // JSON conveniences over Do(): the 2xx body parsed (null when empty).
  util::StatusOr<nlohmann::json> Get(const std::string& path, const QueryParams& query = {},
                                     std::stop_token stop = {});
  util::StatusOr<nlohmann::json> Post(const std::string& path, const nlohmann::json& body,
                                      const QueryParams& query = {});
  util::StatusOr<nlohmann::json> Put(const std::string& path, const nlohmann::json& body);
  util::StatusOr<nlohmann::json> Patch(const std::string& path, PatchType type, const nlohmann::json& patch);
  // `delete_options` (a meta/v1 DeleteOptions) is sent as the body when not null.
  util::StatusOr<nlohmann::json> Delete(const std::string& path, const nlohmann::json& delete_options = nullptr);

  // Lists a collection page by page (limit/continue) and concatenates the
  // items. If a continue token expires (410) mid-way, it falls back to one
  // unpaginated list, as client-go's pager does.
  util::StatusOr<RawList> List(const std::string& path, const ListOptions& options, std::stop_token stop = {});

  // Watches a collection: GET path?watch=true&resourceVersion=..&allowWatchBookmarks=true&timeoutSeconds=..
  // and calls `sink` for every event as its line arrives (ADDED, MODIFIED,
  // DELETED, BOOKMARK), or with a kInvalidArgument error for a malformed
  // line, which is skipped. Returns:
  //   OK                 the server ended the stream (e.g. timeoutSeconds);
  //                      re-watch from the last resourceVersion seen;
  //   kGone              410 on the request, or an ERROR event with code 410
  //                      ("too old resource version"): relist;
  //   another error      the ERROR event's Status (mapped like an HTTP
  //                      error, not passed to the sink), or the failure of
  //                      the request (after retries) or of the connection
  //                      mid-stream (kUnavailable; kDeadlineExceeded when
  //                      no head arrives within the request timeout, or the
  //                      stream is idle too long, see watch_idle_margin and
  //                      watch_bookmark_idle): back off and re-watch;
  //   kCancelled         `stop` was requested.
  util::Status Watch(const std::string& path, const WatchOptions& options, const WatchEventSink& sink,
                     std::stop_token stop);

  // A view of this client (see the header comment); views of views add up
  // their stops. It shares the connection pool, so it may outlive this
  // object; the clock must outlive both.
  std::unique_ptr<RestClient> WithStops(CallStops stops) const;

  // The normalized server URL, e.g. "https://10.0.0.1:6443".
  const std::string& server_url() const;
  const std::string& user_agent() const;

 private:
  struct Impl;
  explicit RestClient(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
  // The view's stops (empty for a client made by Create).
  std::vector<std::stop_token> cancel_;
  std::vector<std::stop_token> no_retry_;
  std::vector<std::function<bool()>> may_send_;
};

// Percent-encodes a query component (everything except A-Z a-z 0-9 - . _ ~).
std::string EncodeQueryComponent(std::string_view s);

}  // namespace ksched::client
