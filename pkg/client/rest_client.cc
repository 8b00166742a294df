#include "pkg/client/rest_client.h"

#include <cpprest/http_client.h>

#include <boost/asio/ssl.hpp>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>

#include "pkg/client/api_errors.h"
#include "pkg/client/file.h"
#include "pkg/client/tls.h"
#include "pkg/client/token_source.h"
#include "pkg/log/log.h"
#include "pkg/util/token_bucket.h"

namespace ksched::client {

namespace http = web::http;
using http::client::http_client;

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

namespace {

constexpr size_t kWatchReadChunk = 64 * 1024;
// cpprestsdk has no "no timeout"; a day stands in for RestConfig::timeout 0.
constexpr util::Duration kNoTimeout = std::chrono::hours(24);
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

util::StatusOr<nlohmann::json> ParseJsonBody(const Request& r, const Response& resp) {
  if (resp.body.find_first_not_of(" \t\r\n") == std::string::npos) return nlohmann::json(nullptr);
  nlohmann::json j = nlohmann::json::parse(resp.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return util::Internal(r.verb + " " + r.path + ": response body is not JSON: " + resp.body.substr(0, 200));
  }
  return j;
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
  std::optional<http::http_response> response;  // set when a response arrived
  std::string body;                             // read unless streaming a 2xx
};

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
  std::string user_agent;
  bool https = false;
  std::shared_ptr<const TlsMaterial> tls;
  BearerTokenSource tokens;
  std::string basic_auth;                      // full header value, or empty
  std::unique_ptr<util::TokenBucket> limiter;  // null: unlimited

  std::mutex mu;
  std::map<int64_t, std::shared_ptr<http_client>> clients;  // guarded by mu; by timeout in µs
  std::mt19937_64 rng;                                      // guarded by mu

  std::shared_ptr<http_client> NewClient(util::Duration timeout) const {
    http::client::http_client_config cfg;
    if (timeout <= util::Duration::zero()) timeout = kNoTimeout;
    cfg.set_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
    if (https) {
      cfg.set_validate_certificates(!config.insecure_skip_tls_verify);
      std::shared_ptr<const TlsMaterial> material = tls;
      cfg.set_ssl_context_callback(
          [material](boost::asio::ssl::context& ctx) { ConfigureSslContext(ctx, *material); });
    }
    return std::make_shared<http_client>(web::uri(server_url), cfg);
  }

  // Clients are shared per timeout so that connections are pooled.
  std::shared_ptr<http_client> ClientFor(util::Duration timeout) {
    int64_t key = std::chrono::duration_cast<std::chrono::microseconds>(timeout).count();
    std::lock_guard<std::mutex> l(mu);
    std::shared_ptr<http_client>& c = clients[key];
    if (!c) c = NewClient(timeout);
    return c;
  }

  double Random01() {
    std::lock_guard<std::mutex> l(mu);
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  }

  // Waits on the clock until `deadline`; false when `stop` came first.
  bool SleepUntil(util::TimePoint deadline, const std::stop_token& stop) const {
    std::mutex m;
    std::condition_variable cv;
    std::stop_callback wake(stop, [&] {
      std::lock_guard<std::mutex> g(m);
      cv.notify_all();
    });
    std::unique_lock<std::mutex> l(m);
    while (!stop.stop_requested()) {
      if (clock.WaitUntil(l, cv, deadline)) return true;
    }
    return false;
  }

  void Throttle(const std::stop_token& stop) const {
    if (!limiter) return;
    util::Duration wait = limiter->Reserve();
    if (wait <= util::Duration::zero()) return;
    // The deadline is fixed before the observer runs, so an observer that
    // advances a fake clock releases the wait.
    util::TimePoint deadline = clock.Now() + wait;
    if (options.observer.on_rate_limiter_wait) options.observer.on_rate_limiter_wait(wait);
    KLOG_V(4, "waiting {}ms for client-side throttling (qps {}, burst {})", Millis(wait), config.qps,
           config.burst);
    SleepUntil(deadline, stop);
  }

  http::http_request BuildMessage(const Request& r) {
    http::http_request msg(r.verb);
    msg.set_request_uri(web::uri(RequestUri(r)));
    http::http_headers& h = msg.headers();
    h.add("Accept", "application/json");
    h.add("User-Agent", user_agent);
    if (tokens.configured()) {
      std::string token = tokens.Token();
      if (!token.empty()) h.add("Authorization", "Bearer " + token);
    } else if (!basic_auth.empty()) {
      h.add("Authorization", basic_auth);
    }
    // cpprestsdk takes the SNI name and the name the certificate must match
    // from the Host header when one is set.
    if (https && !config.tls_server_name.empty()) h.add("Host", config.tls_server_name);
    if (!r.body.empty()) {
      msg.set_body(r.body, r.content_type.empty() ? std::string("application/json") : r.content_type);
    }
    return msg;
  }

  Attempt FromException(const Request& r, const std::string& what, std::error_code ec) const {
    Attempt a;
    std::string where = r.verb + " " + server_url + r.path;
    if (ec == std::errc::timed_out) {
      a.failure = AttemptFailure::kTimeout;
      a.status = util::Status(util::StatusCode::kDeadlineExceeded, where + ": timed out: " + what);
    } else if (what.find("SSL handshake") != std::string::npos) {
      a.failure = AttemptFailure::kTlsHandshake;
      a.status = util::Status(util::StatusCode::kUnavailable, where + ": TLS handshake failed: " + what);
    } else if (ec == std::errc::host_unreachable || ec == std::errc::connection_refused ||
               what.find("Failed to connect") != std::string::npos ||
               what.find("resolving address") != std::string::npos) {
      a.failure = AttemptFailure::kNotSent;
      a.status = util::Status(util::StatusCode::kUnavailable, where + ": cannot connect: " + what);
    } else {
      a.failure = AttemptFailure::kConnectionLost;
      a.status = util::Status(util::StatusCode::kUnavailable, where + ": connection failed: " + what);
    }
    return a;
  }

  Attempt SendOnce(http_client& client, const Request& r, bool read_body,
                   const pplx::cancellation_token_source& cts) {
    Attempt a;
    std::optional<http::http_request> msg;
    try {
      msg = BuildMessage(r);
    } catch (const std::exception& e) {
      a.failure = AttemptFailure::kInvalidRequest;
      a.status = util::InvalidArgument(r.verb + " " + r.path + ": cannot build the request: " + e.what());
      return a;
    }
    util::TimePoint start = clock.Now();
    try {
      http::http_response resp = client.request(*msg, cts.get_token()).get();
      a.http_code = resp.status_code();
      bool success = a.http_code >= 200 && a.http_code < 300;
      if (read_body || !success) {
        std::vector<unsigned char> bytes = resp.extract_vector().get();
        a.body.assign(bytes.begin(), bytes.end());
      }
      if (!success) {
        a.failure = AttemptFailure::kHttpStatus;
        a.status = StatusFromHttpResponse(r.verb, r.path, a.http_code, resp.reason_phrase(), a.body);
        auto it = resp.headers().find("Retry-After");
        if (it != resp.headers().end()) a.retry_after = ParseRetryAfter(it->second);
      }
      a.response = std::move(resp);
    } catch (const http::http_exception& e) {
      a = FromException(r, e.what(), e.error_code());
    } catch (const pplx::task_canceled&) {
      a = FromException(r, "cancelled", std::make_error_code(std::errc::operation_canceled));
    } catch (const std::exception& e) {
      a = FromException(r, e.what(), std::error_code());
    }
    util::Duration latency = clock.Now() - start;
    KLOG_V(6, "{} {}{} {} in {}ms", r.verb, server_url, RequestUri(r), a.http_code, Millis(latency));
    if (options.observer.on_attempt_done) options.observer.on_attempt_done(r.verb, a.http_code, latency);
    return a;
  }

  // Throttles, sends and retries until success, a final error or a stop.
  Attempt Execute(http_client& client, const Request& r, bool read_body,
                  const pplx::cancellation_token_source& cts) {
    bool idempotent = r.idempotent.value_or(IsIdempotentVerb(r.verb));
    for (int retry = 0;; ++retry) {
      Attempt a;
      if (!r.stop.stop_requested()) {
        Throttle(r.stop);
        if (!r.stop.stop_requested()) a = SendOnce(client, r, read_body, cts);
      }
      if (r.stop.stop_requested()) {
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
      util::Duration wait = RetryDelay(options.retry, retry + 1, a.retry_after, Random01());
      util::TimePoint deadline = clock.Now() + wait;
      KLOG_V(4, "retrying {} {} in {}ms (retry {}): {}", r.verb, r.path, Millis(wait), retry + 1,
             a.status.ToString());
      if (options.observer.on_retry) options.observer.on_retry(r, retry + 1, wait, a.status);
      if (!SleepUntil(deadline, r.stop)) {
        a.status = Cancelled(r);
        return a;
      }
    }
  }

  util::Status StreamWatch(http::http_response& response, const std::string& path, const WatchEventSink& sink,
                           const std::stop_token& stop) {
    concurrency::streams::streambuf<uint8_t> body = response.body().streambuf();
    WatchStreamDecoder decoder;
    std::optional<util::Status> error_event;
    WatchEventSink emit = [&](util::StatusOr<WatchEvent> event) {
      if (error_event) return;  // the server closes the stream after an ERROR event
      if (event.ok() && event->type == "ERROR") {
        error_event = StatusFromApiStatus(event->object, "watch " + path);
        return;
      }
      sink(std::move(event));
    };
    std::vector<uint8_t> buf(kWatchReadChunk);
    for (;;) {
      size_t n = 0;
      try {
        // Ask for what is already there (at least one byte), so the call
        // returns as soon as any data arrives instead of waiting for a full
        // buffer: this is what makes decoding incremental.
        size_t want = std::clamp<size_t>(body.in_avail(), 1, buf.size());
        n = body.getn(buf.data(), want).get();
      } catch (const http::http_exception& e) {
        if (stop.stop_requested()) return util::Status(util::StatusCode::kCancelled, "watch " + path + ": stopped");
        if (e.error_code() == std::errc::timed_out) {
          return util::Status(util::StatusCode::kDeadlineExceeded, "watch " + path + ": idle timeout: " + e.what());
        }
        return util::Status(util::StatusCode::kUnavailable, "watch " + path + ": connection lost: " + e.what());
      } catch (const std::exception& e) {
        if (stop.stop_requested()) return util::Status(util::StatusCode::kCancelled, "watch " + path + ": stopped");
        return util::Status(util::StatusCode::kUnavailable, "watch " + path + ": connection lost: " + e.what());
      }
      if (stop.stop_requested()) return util::Status(util::StatusCode::kCancelled, "watch " + path + ": stopped");
      if (n == 0) {
        decoder.Finish(emit);
        return error_event.value_or(util::Status::Ok());
      }
      decoder.Feed(std::string_view(reinterpret_cast<const char*>(buf.data()), n), emit);
      if (error_event) return *error_event;
    }
  }
};

RestClient::RestClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestClient::~RestClient() = default;

util::StatusOr<std::unique_ptr<RestClient>> RestClient::Create(const RestConfig& config, const util::Clock& clock,
                                                               RestClientOptions options) {
  util::Status valid = ValidateRestConfig(config);
  if (!valid.ok()) return valid;
  util::StatusOr<std::string> url = ServerUrl(config);
  if (!url.ok()) return url.status();

  auto impl = std::make_unique<Impl>(config, clock, std::move(options));
  impl->server_url = *url;
  impl->https = url->rfind("https://", 0) == 0;
  impl->user_agent = config.user_agent.empty() ? DefaultUserAgent() : config.user_agent;
  if (impl->https) {
    util::StatusOr<TlsMaterial> tls = LoadTlsMaterial(config);
    if (!tls.ok()) return tls.status();
    impl->tls = std::make_shared<const TlsMaterial>(std::move(tls).value());
  }
  if (!config.username.empty() || !config.password.empty()) {
    impl->basic_auth = "Basic " + EncodeBase64(config.username + ":" + config.password);
  }
  if (config.qps > 0) impl->limiter = std::make_unique<util::TokenBucket>(config.qps, config.burst, clock);
  uint64_t seed = impl->options.jitter_seed;
  if (seed == 0) seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  impl->rng.seed(seed);
  try {
    impl->ClientFor(config.timeout);
  } catch (const std::exception& e) {
    return util::InvalidArgument("server \"" + impl->server_url + "\": " + e.what());
  }
  return std::unique_ptr<RestClient>(new RestClient(std::move(impl)));
}

const std::string& RestClient::server_url() const { return impl_->server_url; }
const std::string& RestClient::user_agent() const { return impl_->user_agent; }

util::StatusOr<Response> RestClient::Do(const Request& request) {
  std::shared_ptr<http_client> client = impl_->ClientFor(request.timeout.value_or(impl_->config.timeout));
  pplx::cancellation_token_source cts;
  std::stop_callback on_stop(request.stop, [&cts] { cts.cancel(); });
  Attempt a = impl_->Execute(*client, request, /*read_body=*/true, cts);
  if (!a.status.ok()) return a.status;
  return Response{a.http_code, std::move(a.body)};
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

  // A dedicated client: the inactivity timeout must cover a quiet stream.
  util::Duration idle =
      (options.timeout_seconds ? util::Duration(std::chrono::seconds(*options.timeout_seconds)) : kWatchDefaultIdle) +
      impl_->options.watch_idle_margin;
  std::shared_ptr<http_client> client = impl_->NewClient(idle);
  pplx::cancellation_token_source cts;
  std::stop_callback on_stop(stop, [&cts] { cts.cancel(); });
  // Whatever way we leave, close the connection: after an ERROR event or a
  // stop nobody reads the rest of the body.
  struct CloseOnExit {
    pplx::cancellation_token_source& cts;
    ~CloseOnExit() { cts.cancel(); }
  } close_on_exit{cts};

  Attempt a = impl_->Execute(*client, r, /*read_body=*/false, cts);
  if (!a.status.ok()) return a.status;
  return impl_->StreamWatch(*a.response, path, sink, stop);
}

}  // namespace ksched::client
