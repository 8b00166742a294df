#include "pkg/client/rest_client.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <random>

#include "pkg/client/api_errors.h"
#include "pkg/client/file.h"
#include "pkg/client/http_transport.h"
#include "pkg/client/tls.h"
#include "pkg/client/token_source.h"
#include "pkg/log/log.h"
#include "pkg/util/base64.h"
#include "pkg/util/token_bucket.h"

namespace ksched::client {

const char* PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kJsonMerge: return "application/merge-patch+json";
    case PatchType::kStrategicMerge: return "application/strategic-merge-patch+json";
    case PatchType::kJsonPatch: return "application/json-patch+json";
  }
  return "application/merge-patch+json";
}

std::string EncodeQueryComponent(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

util::StatusOr<nlohmann::json> ParseJsonBody(const Request& r, const Response& resp) {
  if (resp.body.find_first_not_of(" \t\r\n") == std::string::npos) return nlohmann::json(nullptr);
  nlohmann::json j = nlohmann::json::parse(resp.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return util::Internal(r.verb + " " + r.path + ": response body is not JSON: " + resp.body.substr(0, 200));
  }
  return j;
}

namespace {

constexpr util::Duration kWatchDefaultIdle = std::chrono::hours(1);

bool IsIdempotentVerb(std::string_view verb) {
  return verb == "GET" || verb == "HEAD" || verb == "PUT" || verb == "DELETE" || verb == "OPTIONS";
}

int64_t Millis(util::Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }

std::string RequestUri(const Request& r) {
  std::string uri = r.path.empty() ? "/" : r.path;
  char sep = uri.find('?') == std::string::npos ? '?' : '&';
  for (const auto& [k, v] : r.query) {
    uri.push_back(sep);
    sep = '&';
    uri += EncodeQueryComponent(k);
    uri.push_back('=');
    uri += EncodeQueryComponent(v);
  }
  return uri;
}

util::Status Cancelled(const Request& r) {
  return util::Status(util::StatusCode::kCancelled, r.verb + " " + r.path + ": cancelled");
}

std::string StringAt(const nlohmann::json& j, const char* a, const char* b) {
  if (!j.is_object()) return "";
  auto i = j.find(a);
  if (i == j.end() || !i->is_object()) return "";
  auto k = i->find(b);
  if (k == i->end() || !k->is_string()) return "";
  return k->get<std::string>();
}

// One attempt's outcome.
struct Attempt {
  util::Status status;
  AttemptFailure failure = AttemptFailure::kHttpStatus;
  int http_code = 0;
  std::optional<util::Duration> retry_after;
  std::string body;                        // read unless streaming a 2xx
  std::unique_ptr<HttpBodyStream> stream;  // the body of a streamed 2xx
};

// Whether `c` may appear in a request-target as sent (RFC 3986 pchar, '/'
// and '?'; '%' only as an escape, checked by the caller).
bool IsTargetChar(unsigned char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("-._~!$&'()*+,;=:@/?%").find(static_cast<char>(c)) != std::string_view::npos;
}

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// One stop_token that fires when any of several does (a call's own stop and
// its view's). Without a token that can fire it is an empty token; with one,
// that token; only more take a stop_source and callbacks.
class AnyStop {
 public:
  explicit AnyStop(const std::vector<std::stop_token>& tokens) {
    std::vector<const std::stop_token*> possible;
    for (const std::stop_token& t : tokens) {
      if (t.stop_possible()) possible.push_back(&t);
    }
    if (possible.size() == 1) {
      token_ = *possible[0];
      return;
    }
    if (possible.empty()) return;
    for (const std::stop_token* t : possible) callbacks_.push_back(std::make_unique<Callback>(*t, Forward{&source_}));
    token_ = source_.get_token();
  }
  const std::stop_token& token() const { return token_; }

 private:
  struct Forward {
    std::stop_source* to;
    void operator()() const { to->request_stop(); }
  };
  using Callback = std::stop_callback<Forward>;
  std::stop_source source_;
  std::stop_token token_;
  std::vector<std::unique_ptr<Callback>> callbacks_;
};

std::vector<std::stop_token> With(std::vector<std::stop_token> tokens, const std::stop_token& one) {
  tokens.push_back(one);
  return tokens;
}

util::Status ValidateTarget(const std::string& target) {
  for (size_t i = 0; i < target.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(target[i]);
    if (!IsTargetChar(c) || (c == '%' && (i + 2 >= target.size() || !IsHex(target[i + 1]) || !IsHex(target[i + 2])))) {
      return util::InvalidArgument("invalid character in the request path at offset " + std::to_string(i));
    }
  }
  return util::Status::Ok();
}

}  // namespace

struct RestClient::Impl {
  Impl(const RestConfig& c, const util::Clock& clk, RestClientOptions opts)
      : config(c),
        clock(clk),
        options(std::move(opts)),
        tokens(c.bearer_token, c.bearer_token_file, c.token_refresh_period, clk) {}

  RestConfig config;
  const util::Clock& clock;
  RestClientOptions options;
  std::string server_url;
  std::string host;  // server_url's host[:port], the metrics' label
  std::string user_agent;
  bool https = false;
  std::shared_ptr<const TlsMaterial> tls;
  BearerTokenSource tokens;
  std::string basic_auth;                      // full header value, or empty
  std::unique_ptr<util::TokenBucket> limiter;  // null: unlimited

  std::unique_ptr<HttpTransport> transport;

  std::mutex mu;
  std::mt19937_64 rng;  // guarded by mu

  double Random01() {
    std::lock_guard<std::mutex> l(mu);
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  }

  // Waits on the clock until `deadline`; false when `stop` or `no_retry`
  // came first.
  bool SleepUntil(util::TimePoint deadline, const std::stop_token& stop, const std::stop_token& no_retry) const {
    std::mutex m;
    std::condition_variable cv;
    auto notify = [&] {
      std::lock_guard<std::mutex> g(m);
      cv.notify_all();
    };
    std::stop_callback wake(stop, notify);
    std::stop_callback wake_no_retry(no_retry, notify);
    std::unique_lock<std::mutex> l(m);
    while (!stop.stop_requested() && !no_retry.stop_requested()) {
      if (clock.WaitUntil(l, cv, deadline)) return true;
    }
    return false;
  }

  void Throttle(const std::string& verb, const std::stop_token& stop, const std::stop_token& no_retry) const {
    if (!limiter) return;
    util::Duration wait = limiter->Reserve();
    if (wait <= util::Duration::zero()) {
      if (options.metrics) options.metrics->ObserveRateLimiterLatency(host, verb, util::Duration::zero());
      return;
    }
    // The deadline is fixed before the observer runs, so an observer that
    // advances a fake clock releases the wait.
    util::TimePoint start = clock.Now();
    util::TimePoint deadline = start + wait;
    if (options.observer.on_rate_limiter_wait) options.observer.on_rate_limiter_wait(wait);
    KLOG_V(4, "waiting {}ms for client-side throttling (qps {}, burst {})", Millis(wait), config.qps,
           config.burst);
    SleepUntil(deadline, stop, no_retry);
    if (options.metrics) options.metrics->ObserveRateLimiterLatency(host, verb, clock.Now() - start);
  }

  util::StatusOr<HttpRequest> BuildMessage(const Request& r) {
    HttpRequest msg;
    msg.method = r.verb;
    msg.target = RequestUri(r);
    if (msg.target.front() != '/') return util::InvalidArgument("the path must start with '/'");
    util::Status valid = ValidateTarget(msg.target);
    if (!valid.ok()) return valid;
    msg.idempotent = r.idempotent.value_or(IsIdempotentVerb(r.verb));
    net::Headers& h = msg.headers;
    h.Reserve(4);
    h.Add("Accept", "application/json");
    h.Add("User-Agent", user_agent);
    if (tokens.configured()) {
      std::string token = tokens.Token();
      if (!token.empty()) h.Add("Authorization", "Bearer " + token);
    } else if (!basic_auth.empty()) {
      h.Add("Authorization", basic_auth);
    }
    if (!r.body.empty()) {
      h.Add("Content-Type", r.content_type.empty() ? std::string("application/json") : r.content_type);
      msg.body = r.body;
    }
    return msg;
  }

  Attempt SendOnce(const Request& r, bool retry, bool read_body, util::Duration timeout,
                   const std::stop_token& stop) {
    Attempt a;
    util::StatusOr<HttpRequest> msg = BuildMessage(r);
    if (!msg.ok()) {
      a.failure = AttemptFailure::kInvalidRequest;
      a.status = util::InvalidArgument(r.verb + " " + r.path + ": cannot build the request: " + msg.status().message());
      return a;
    }
    util::TimePoint start = clock.Now();
    HttpResult res = transport->Exchange(*msg, /*stream_body=*/!read_body, timeout, stop);
    if (!res.status.ok()) {
      a.failure = res.failure;
      a.status = util::Status(res.status.code(), r.verb + " " + server_url + r.path + ": " + res.status.message());
    } else {
      a.http_code = res.head.status;
      a.body = std::move(res.body);
      a.stream = std::move(res.stream);
      if (a.http_code < 200 || a.http_code >= 300) {
        a.failure = AttemptFailure::kHttpStatus;
        a.status = r.server_message_errors
                       ? ServerMessageStatus(r.verb, r.path, a.http_code, res.head.reason, a.body)
                       : StatusFromHttpResponse(r.verb, r.path, a.http_code, res.head.reason, a.body);
        if (const std::string* retry_after = res.head.headers.Get("Retry-After")) {
          a.retry_after = ParseRetryAfter(*retry_after);
        }
      }
    }
    util::Duration latency = clock.Now() - start;
    KLOG_V(6, "{} {}{} {} in {}ms", r.verb, server_url, RequestUri(r), a.http_code, Millis(latency));
    if (options.observer.on_attempt_done) options.observer.on_attempt_done(r.verb, a.http_code, latency);
    if (options.metrics) options.metrics->ObserveAttempt(host, r.verb, a.http_code, retry, r.body.size());
    return a;
  }

  // Throttles, sends and retries until success, a final error, a stop
  // (kCancelled) or `no_retry` (the last attempt's error).
  Attempt Execute(const Request& r, const std::stop_token& stop, const std::stop_token& no_retry, bool read_body,
                  util::Duration timeout, const std::vector<std::function<bool()>>& may_send) {
    bool idempotent = r.idempotent.value_or(IsIdempotentVerb(r.verb));
    auto not_retried = [&](Attempt& a) {
      a.status = util::Status(a.status.code(), a.status.message() + " (not retried: the client is stopping)");
    };
    for (int retry = 0;; ++retry) {
      Attempt a;
      if (!stop.stop_requested()) {
        Throttle(r.verb, stop, no_retry);
        if (!stop.stop_requested()) {
          for (const std::function<bool()>& ok : may_send) {
            if (!ok()) {
              a.status = util::Status(util::StatusCode::kCancelled, r.verb + " " + r.path + ": not sent: fenced");
              return a;
            }
          }
          a = SendOnce(r, retry > 0, read_body, timeout, stop);
        }
      }
      if (stop.stop_requested()) {
        a.status = Cancelled(r);
        return a;
      }
      if (a.status.ok()) return a;
      if (retry >= options.retry.max_retries || !IsRetryable(idempotent, a.failure, a.http_code)) {
        if (retry > 0) {
          a.status = util::Status(a.status.code(),
                                  a.status.message() + " (after " + std::to_string(retry) + " retries)");
        }
        return a;
      }
      if (no_retry.stop_requested()) {
        not_retried(a);
        return a;
      }
      util::Duration wait = RetryDelay(options.retry, retry + 1, a.retry_after, Random01());
      util::TimePoint deadline = clock.Now() + wait;
      KLOG_V(4, "retrying {} {} in {}ms (retry {}): {}", r.verb, r.path, Millis(wait), retry + 1,
             a.status.ToString());
      if (options.observer.on_retry) options.observer.on_retry(r, retry + 1, wait, a.status);
      if (!SleepUntil(deadline, stop, no_retry)) {
        if (stop.stop_requested()) {
          a.status = Cancelled(r);
        } else {
          not_retried(a);
        }
        return a;
      }
    }
  }

  util::Status StreamWatch(HttpBodyStream& body, const std::string& path, const WatchEventSink& sink,
                           util::Duration idle, bool raw_objects, const std::stop_token& stop) {
    WatchStreamDecoder decoder(size_t{64} << 20, raw_objects);
    std::optional<util::Status> error_event;
    WatchEventSink emit = [&](util::StatusOr<WatchEvent> event) {
      if (error_event) return;  // the server closes the stream after an ERROR event
      if (event.ok() && event->type == "ERROR") {
        error_event = StatusFromApiStatus(event->object, "watch " + path);
        return;
      }
      // The last event of a piece: has the next one arrived meanwhile?
      if (event.ok() && !event->more_arrived) event->more_arrived = body.HasInput();
      sink(std::move(event));
    };
    util::Status read = ReadPieces(body, idle, stop, "watch " + path, [&](std::string_view piece) {
      decoder.Feed(piece, emit);
      return error_event.value_or(util::Status::Ok());
    });
    if (!read.ok()) return read;
    decoder.Finish(emit);
    return error_event.value_or(util::Status::Ok());
  }

  // Hands `body` to `on_piece` as its bytes arrive (ReadSome returns as soon
  // as any come: what makes decoding incremental) until it ends (OK) or
  // `on_piece` fails (its error). `what` names the call in the other errors:
  // kCancelled once `stop` was requested, kDeadlineExceeded when nothing
  // came for `idle` (zero: no limit), kUnavailable for a failed connection.
  static util::Status ReadPieces(HttpBodyStream& body, util::Duration idle, const std::stop_token& stop,
                                 const std::string& what,
                                 const std::function<util::Status(std::string_view)>& on_piece) {
    std::string piece;
    for (;;) {
      piece.clear();
      util::StatusOr<bool> more =
          body.ReadSome(&piece, idle > util::Duration::zero() ? net::DeadlineAfter(idle) : net::kNoDeadline);
      if (stop.stop_requested()) return util::Status(util::StatusCode::kCancelled, what + ": stopped");
      if (!more.ok()) {
        if (more.status().code() == util::StatusCode::kDeadlineExceeded) {
          return util::Status(util::StatusCode::kDeadlineExceeded, what + ": idle timeout");
        }
        return util::Status(util::StatusCode::kUnavailable, what + ": connection lost: " + more.status().message());
      }
      if (!*more) return util::Status::Ok();
      if (util::Status s = on_piece(piece); !s.ok()) return s;
    }
  }
};

RestClient::RestClient(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestClient::~RestClient() = default;

util::StatusOr<std::unique_ptr<RestClient>> RestClient::Create(const RestConfig& config, const util::Clock& clock,
                                                               RestClientOptions options) {
  util::Status valid = ValidateRestConfig(config);
  if (!valid.ok()) return valid;
  util::StatusOr<std::string> url = ServerUrl(config);
  if (!url.ok()) return url.status();

  auto impl = std::make_shared<Impl>(config, clock, std::move(options));
  impl->server_url = *url;
  const size_t authority = url->find("://") + 3;
  impl->host = url->substr(authority, url->find('/', authority) - authority);
  impl->https = url->rfind("https://", 0) == 0;
  impl->user_agent = config.user_agent.empty() ? DefaultUserAgent() : config.user_agent;
  if (impl->https) {
    util::StatusOr<TlsMaterial> tls = LoadTlsMaterial(config);
    if (!tls.ok()) return tls.status();
    impl->tls = std::make_shared<const TlsMaterial>(std::move(tls).value());
  }
  if (!config.username.empty() || !config.password.empty()) {
    impl->basic_auth = "Basic " + util::EncodeBase64(config.username + ":" + config.password);
  }
  if (config.qps > 0) impl->limiter = std::make_unique<util::TokenBucket>(config.qps, config.burst, clock);
  uint64_t seed = impl->options.jitter_seed;
  if (seed == 0) seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  impl->rng.seed(seed);
  util::StatusOr<std::unique_ptr<HttpTransport>> transport = HttpTransport::Create(
      impl->server_url, impl->tls.get(), config.insecure_skip_tls_verify, config.tls_server_name);
  if (!transport.ok()) return transport.status();
  impl->transport = std::move(transport).value();
  return std::unique_ptr<RestClient>(new RestClient(std::move(impl)));
}

std::unique_ptr<RestClient> RestClient::WithStops(CallStops stops) const {
  std::unique_ptr<RestClient> view(new RestClient(impl_));
  view->cancel_ = With(cancel_, stops.cancel);
  view->no_retry_ = With(no_retry_, stops.no_retry);
  view->may_send_ = may_send_;
  if (stops.may_send) view->may_send_.push_back(std::move(stops.may_send));
  return view;
}

const std::string& RestClient::server_url() const { return impl_->server_url; }
const std::string& RestClient::user_agent() const { return impl_->user_agent; }

util::StatusOr<Response> RestClient::Do(const Request& request) {
  AnyStop stop(With(cancel_, request.stop));
  AnyStop no_retry(no_retry_);
  const util::TimePoint start = impl_->clock.Now();
  Attempt a = impl_->Execute(request, stop.token(), no_retry.token(), /*read_body=*/true,
                             request.timeout.value_or(impl_->config.timeout), may_send_);
  if (RequestMetrics* m = impl_->options.metrics) {
    std::optional<size_t> response_bytes;
    if (a.http_code != 0) response_bytes = a.body.size();
    m->ObserveRequest(impl_->host, request.verb, impl_->clock.Now() - start, response_bytes);
  }
  if (!a.status.ok()) return a.status;
  return Response{a.http_code, std::move(a.body)};
}

util::Status RestClient::Stream(const Request& request,
                               const std::function<util::Status(std::string_view)>& on_body) {
  AnyStop stop(With(cancel_, request.stop));
  AnyStop no_retry(no_retry_);
  const util::TimePoint start = impl_->clock.Now();
  const util::Duration timeout = request.timeout.value_or(impl_->config.timeout);
  Attempt a = impl_->Execute(request, stop.token(), no_retry.token(), /*read_body=*/false, timeout, may_send_);
  size_t bytes = a.body.size();
  util::Status status = a.status;
  if (status.ok() && !a.stream) status = util::Internal(request.verb + " " + request.path + ": no response body");
  if (status.ok()) {
    status = Impl::ReadPieces(*a.stream, timeout, stop.token(), request.verb + " " + request.path,
                              [&](std::string_view piece) {
                                bytes += piece.size();
                                return on_body(piece);
                              });
  }
  if (RequestMetrics* m = impl_->options.metrics) {
    std::optional<size_t> response_bytes;
    if (a.http_code != 0) response_bytes = bytes;
    m->ObserveRequest(impl_->host, request.verb, impl_->clock.Now() - start, response_bytes);
  }
  return status;
}

util::StatusOr<nlohmann::json> RestClient::Get(const std::string& path, const QueryParams& query,
                                               std::stop_token stop) {
  Request r;
  r.path = path;
  r.query = query;
  r.stop = std::move(stop);
  util::StatusOr<Response> resp = Do(r);
  if (!resp.ok()) return resp.status();
  return ParseJsonBody(r, *resp);
}

util::StatusOr<nlohmann::json> RestClient::Post(const std::string& path, const nlohmann::json& body,
                                                const QueryParams& query) {
  Request r;
  r.verb = "POST";
  r.path = path;
  r.query = query;
  r.body = body.dump();
  util::StatusOr<Response> resp = Do(r);
  if (!resp.ok()) return resp.status();
  return ParseJsonBody(r, *resp);
}

util::StatusOr<nlohmann::json> RestClient::Put(const std::string& path, const nlohmann::json& body) {
  Request r;
  r.verb = "PUT";
  r.path = path;
  r.body = body.dump();
  util::StatusOr<Response> resp = Do(r);
  if (!resp.ok()) return resp.status();
  return ParseJsonBody(r, *resp);
}

util::StatusOr<nlohmann::json> RestClient::Patch(const std::string& path, PatchType type,
                                                 const nlohmann::json& patch) {
  Request r;
  r.verb = "PATCH";
  r.path = path;
  r.body = patch.dump();
  r.content_type = PatchContentType(type);
  util::StatusOr<Response> resp = Do(r);
  if (!resp.ok()) return resp.status();
  return ParseJsonBody(r, *resp);
}

util::StatusOr<nlohmann::json> RestClient::Delete(const std::string& path, const nlohmann::json& delete_options) {
  Request r;
  r.verb = "DELETE";
  r.path = path;
  if (!delete_options.is_null()) r.body = delete_options.dump();
  util::StatusOr<Response> resp = Do(r);
  if (!resp.ok()) return resp.status();
  return ParseJsonBody(r, *resp);
}

util::StatusOr<RawList> RestClient::List(const std::string& path, const ListOptions& options,
                                         std::stop_token stop) {
  RawList out;
  bool paged = options.limit > 0;
  std::string continue_token;
  for (;;) {
    Request r;
    r.path = path;
    r.stop = stop;
    if (!options.label_selector.empty()) r.query.emplace_back("labelSelector", options.label_selector);
    if (!options.field_selector.empty()) r.query.emplace_back("fieldSelector", options.field_selector);
    if (continue_token.empty()) {
      // Later pages are served at the first page's snapshot; the server
      // rejects resourceVersion together with continue.
      if (!options.resource_version.empty()) r.query.emplace_back("resourceVersion", options.resource_version);
      if (!options.resource_version_match.empty()) {
        r.query.emplace_back("resourceVersionMatch", options.resource_version_match);
      }
    } else {
      r.query.emplace_back("continue", continue_token);
    }
    if (paged) r.query.emplace_back("limit", std::to_string(options.limit));

    util::StatusOr<Response> resp = Do(r);
    if (!resp.ok()) {
      if (resp.status().code() == util::StatusCode::kGone && !continue_token.empty()) {
        KLOG_V(2, "list {}: continue token expired, falling back to a full list", path);
        out.items.clear();
        continue_token.clear();
        paged = false;
        continue;
      }
      return resp.status();
    }
    util::StatusOr<nlohmann::json> page = ParseJsonBody(r, *resp);
    if (!page.ok()) return page.status();
    if (!page->is_object()) return util::Internal("list " + path + ": response is not a JSON object");
    auto items = page->find("items");
    if (items != page->end() && !items->is_null()) {
      if (!items->is_array()) return util::Internal("list " + path + ": \"items\" is not an array");
      for (nlohmann::json& item : *items) out.items.push_back(std::move(item));
    }
    out.resource_version = StringAt(*page, "metadata", "resourceVersion");
    continue_token = StringAt(*page, "metadata", "continue");
    if (!paged || continue_token.empty()) return out;
  }
}

util::Status RestClient::Watch(const std::string& path, const WatchOptions& options, const WatchEventSink& sink,
                               std::stop_token stop) {
  Request r;
  r.path = path;
  r.stop = stop;
  r.query.emplace_back("watch", "true");  // as client-go and kubectl send it
  if (!options.resource_version.empty()) r.query.emplace_back("resourceVersion", options.resource_version);
  if (options.allow_watch_bookmarks) r.query.emplace_back("allowWatchBookmarks", "true");
  if (options.timeout_seconds) r.query.emplace_back("timeoutSeconds", std::to_string(*options.timeout_seconds));
  if (!options.label_selector.empty()) r.query.emplace_back("labelSelector", options.label_selector);
  if (!options.field_selector.empty()) r.query.emplace_back("fieldSelector", options.field_selector);

  // Connect, TLS, the request and the response head get the usual timeout:
  // a server that does not answer is noticed as fast as for any call. The
  // stream may then stay quiet for timeoutSeconds plus a margin (the server
  // ends it by then) ...
  util::Duration idle =
      (options.timeout_seconds ? util::Duration(std::chrono::seconds(*options.timeout_seconds)) : kWatchDefaultIdle) +
      impl_->options.watch_idle_margin;
  // ... or, with bookmarks, 2 minutes: kube-apiserver's watch cache sends a
  // BOOKMARK about every minute, so twice that of silence is a dead stream.
  const util::Duration bookmark_idle = impl_->options.watch_bookmark_idle;
  if (options.allow_watch_bookmarks && bookmark_idle > util::Duration::zero()) idle = std::min(idle, bookmark_idle);
  AnyStop any_stop(With(cancel_, stop));
  AnyStop no_retry(no_retry_);
  Attempt a = impl_->Execute(r, any_stop.token(), no_retry.token(), /*read_body=*/false,
                             r.timeout.value_or(impl_->config.timeout), may_send_);
  if (!a.status.ok()) return a.status;
  if (!a.stream) return util::Internal("watch " + path + ": no response body");
  return impl_->StreamWatch(*a.stream, path, sink, idle, options.raw_objects, any_stop.token());
}

}  // namespace ksched::client
