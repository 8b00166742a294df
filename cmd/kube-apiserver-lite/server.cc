#include "cmd/kube-apiserver-lite/server.h"

#include <arpa/inet.h>
#include <cpprest/producerconsumerstream.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <vector>

#include "pkg/log/log.h"

namespace ksched::apiserver {

namespace {

using web::http::http_request;
using web::http::http_response;

// The in-memory buffer a watch response is read from. cpprestsdk's public
// write/sync/close return tasks completed by continuations on the thread
// pool; waiting on them while holding a store mutex deadlocks once every pool
// thread waits for that mutex. Nothing here waits: the protected _putn and
// _sync work synchronously, and close() has ended writing when it returns.
class WatchBuffer final
    : public concurrency::streams::details::basic_producer_consumer_buffer<uint8_t> {
 public:
  WatchBuffer() : basic_producer_consumer_buffer<uint8_t>(4096) {}

  // Appends `data` and makes it readable at once (a pending read of the
  // listener completes with it).
  void Append(std::string_view data) {
    this->_putn(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    this->_sync();
  }
  // End of stream: the listener sends what is left, then the last chunk.
  // close() ends writing before it returns; only its returned task (never
  // failed here, so safe to drop) completes later on the pool.
  void Finish() { (void)this->close(std::ios_base::out); }
};

// The HTTP side of a watch: events go into a WatchBuffer that the listener
// drains into the connection as chunks.
class StreamSink final : public WatchSink {
 public:
  explicit StreamSink(size_t limit)
      : limit_(limit), buffer_(std::make_shared<WatchBuffer>()) {}

  bool Write(std::string_view line) override {
    if (closed_.load(std::memory_order_acquire)) return false;
    // Unsent bytes: the consumer (the connection) is too slow or gone.
    if (buffer_->in_avail() > limit_) return false;
    buffer_->Append(line);
    return true;
  }

  void Close() override {
    if (!closed_.exchange(true, std::memory_order_acq_rel)) buffer_->Finish();
  }

  concurrency::streams::istream Stream() {
    return concurrency::streams::streambuf<uint8_t>(buffer_).create_istream();
  }

 private:
  const size_t limit_;
  std::atomic<bool> closed_{false};
  std::shared_ptr<WatchBuffer> buffer_;
};

// Query strings as Go's url.ParseQuery reads them: '&'-separated, '+' is a
// space, percent-escapes decoded. Throws web::uri_exception on bad escapes.
std::map<std::string, std::string> ParseQuery(const std::string& raw) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start < raw.size()) {
    size_t amp = raw.find('&', start);
    if (amp == std::string::npos) amp = raw.size();
    std::string part = raw.substr(start, amp - start);
    start = amp + 1;
    if (part.empty()) continue;
    std::replace(part.begin(), part.end(), '+', ' ');
    size_t eq = part.find('=');
    std::string key = part.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
    out[web::uri::decode(key)] = web::uri::decode(value);
  }
  return out;
}

bool HasBody(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

// Observes a reply's completion: a client that went away is not an error,
// and an unobserved failed task must not reach pplx's terminate handler.
void Observe(pplx::task<void> reply) {
  reply.then([](pplx::task<void> t) {
    try {
      t.get();
    } catch (const std::exception&) {
      // The client went away before the response was written.
    }
  });
}

void ReplyStatus(http_request& request, const ApiError& error, bool close) {
  try {
    http_response response(static_cast<web::http::status_code>(error.code));
    if (close) response.headers().add("Connection", "close");
    response.set_body(error.ToStatus().dump(), "application/json");
    Observe(request.reply(response));
  } catch (const std::exception& e) {
    // Already answered, or the connection is gone.
    KLOG_V(4, "could not send a {} reply: {}", error.code, e.what());
  }
}

// Picks a free TCP port on `address` by binding port 0.
uint16_t FindFreePort(const std::string& address) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (::inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1) {
    ::close(fd);
    return 0;
  }
  uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    socklen_t len = sizeof(addr);
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port = ntohs(addr.sin_port);
    }
  }
  ::close(fd);
  return port;
}

}  // namespace

HttpServer::HttpServer(ApiHandler& handler, HttpServerOptions options)
    : handler_(handler), options_(std::move(options)) {
  if (options_.fault_latency > util::Duration::zero()) {
    delays_ = std::make_unique<TimerQueue>(util::RealClock::Get());
  }
}

HttpServer::~HttpServer() { Stop(); }

std::string HttpServer::url() const {
  std::string host = options_.bind_address == "0.0.0.0" ? "127.0.0.1" : options_.bind_address;
  return fmt::format("http://{}:{}", host, port_);
}

util::Status HttpServer::Start() {
  std::string last_error;
  // With port 0 the probed port can be taken before the listener binds it:
  // try a few.
  for (int attempt = 0; attempt < (options_.port == 0 ? 5 : 1); ++attempt) {
    uint16_t port = options_.port != 0 ? options_.port : FindFreePort(options_.bind_address);
    if (port == 0) {
      return util::Status(util::StatusCode::kInvalidArgument,
                          "cannot bind to address " + options_.bind_address);
    }
    auto listener = std::make_unique<web::http::experimental::listener::http_listener>(
        fmt::format("http://{}:{}/", options_.bind_address, port));
    listener->support([this](http_request request) { OnRequest(std::move(request)); });
    try {
      listener->open().wait();
      listener_ = std::move(listener);
      port_ = port;
      handler_.set_server_address(fmt::format("{}:{}", options_.bind_address, port));
      return util::Status::Ok();
    } catch (const std::exception& e) {
      last_error = e.what();
    }
  }
  return util::Status(util::StatusCode::kUnavailable,
                      fmt::format("cannot listen on {}:{}: {}", options_.bind_address,
                                  options_.port, last_error));
}

void HttpServer::Stop() {
  if (delays_) delays_->Stop();
  if (!listener_) return;
  // Open watch responses would keep the listener's close waiting. A watch
  // that arrives from now on is refused (clients re-watch at once when their
  // stream ends, and a stream opened after this point would never end).
  std::vector<std::shared_ptr<WatchSink>> open;
  {
    std::lock_guard<std::mutex> l(watches_mu_);
    stopping_ = true;
    for (const auto& [id, sink] : watch_sinks_) {
      if (auto s = sink.lock()) open.push_back(std::move(s));
    }
  }
  for (const auto& sink : open) sink->Close();
  handler_.CloseWatchStreams();
  try {
    listener_->close().wait();
  } catch (const std::exception& e) {
    spdlog::warn("closing the listener: {}", e.what());
  }
  listener_.reset();
  std::unique_lock<std::mutex> l(watches_mu_);
  watches_done_.wait(l, [this] { return open_watches_ == 0; });
}

void HttpServer::OnRequest(http_request request) {
  try {
    const std::string method = request.method();
    if (!HasBody(method)) {
      Serve(std::move(request), "");
      return;
    }
    // A body somewhat over the limit is still read, so the client sees the 413
    // rather than a connection reset mid-upload; an absurd one is refused at
    // once and the connection closed.
    if (request.headers().content_length() > 16 * options_.max_request_bytes) {
      ReplyStatus(request, RequestEntityTooLargeError(options_.max_request_bytes), true);
      return;
    }
    request.extract_vector().then([this, request](pplx::task<std::vector<unsigned char>> t) {
      http_request r = request;
      try {
        std::vector<unsigned char> bytes = t.get();
        if (bytes.size() > options_.max_request_bytes) {
          ReplyStatus(r, RequestEntityTooLargeError(options_.max_request_bytes), true);
          return;
        }
        Serve(r, std::string(bytes.begin(), bytes.end()));
      } catch (const std::exception& e) {
        ReplyStatus(r, BadRequestError(fmt::format("reading the request body: {}", e.what())),
                    true);
      }
    });
  } catch (const std::exception& e) {
    ReplyStatus(request, InternalError(e.what()), false);
  }
}

void HttpServer::Serve(http_request request, std::string body) {
  if (delays_) {
    auto delayed = std::make_shared<std::string>(std::move(body));
    delays_->ScheduleAfter(options_.fault_latency, [this, request, delayed] {
      // Off the timer thread, so one delayed request never holds up the next.
      pplx::create_task([this, request, delayed] { Respond(request, std::move(*delayed)); });
    });
    return;
  }
  Respond(std::move(request), std::move(body));
}

void HttpServer::Respond(http_request request, std::string body) {
  try {
    RespondOrThrow(request, std::move(body));
  } catch (const std::exception& e) {
    ReplyStatus(request, InternalError(e.what()), false);
  }
}

void HttpServer::RespondOrThrow(http_request& request, std::string body) {
  const auto start = std::chrono::steady_clock::now();
  ApiRequest api;
  try {
    api.method = request.method();
    const web::uri& uri = request.request_uri();
    api.path = web::uri::decode(uri.path());
    api.query = ParseQuery(uri.query());
  } catch (const std::exception& e) {
    ReplyStatus(request, BadRequestError(fmt::format("malformed request URI: {}", e.what())),
                false);
    return;
  }
  const auto& headers = request.headers();
  api.content_type = headers.content_type();
  auto accept = headers.find("Accept");
  if (accept != headers.end()) api.accept = accept->second;
  api.body = std::move(body);

  ApiResponse response = handler_.Handle(api);
  const std::string target = request.request_uri().to_string();

  if (response.watch) {
    auto sink = std::make_shared<StreamSink>(options_.max_watch_buffer_bytes);
    std::shared_ptr<PendingWatch> watch = response.watch;
    uint64_t sink_id = 0;
    {
      std::lock_guard<std::mutex> l(watches_mu_);
      if (stopping_) {
        ReplyStatus(request, ServiceUnavailableError("the server is shutting down"), true);
        return;
      }
      sink_id = ++last_sink_id_;
      watch_sinks_.emplace(sink_id, sink);
      ++open_watches_;
    }
    watch->Start(sink);
    http_response reply(web::http::status_codes::OK);
    reply.headers().add("Cache-Control", "no-cache, private");
    reply.set_body(sink->Stream(), "application/json");
    KLOG_V(4, "WATCH {} 200 started", target);
    request.reply(reply).then([this, watch, target, start, sink_id](pplx::task<void> t) {
      try {
        t.get();
      } catch (const std::exception&) {
        // The client closed the connection.
      }
      watch->Stop();
      KLOG_V(4, "WATCH {} ended after {}ms", target,
             std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - start)
                 .count());
      std::lock_guard<std::mutex> l(watches_mu_);
      watch_sinks_.erase(sink_id);
      if (--open_watches_ == 0) watches_done_.notify_all();
    });
    return;
  }

  http_response reply(static_cast<web::http::status_code>(response.code));
  for (const auto& [name, value] : response.headers) reply.headers().add(name, value);
  size_t bytes = response.body.size();
  reply.set_body(std::move(response.body), response.content_type);
  KLOG_V(4, "{} {} {} {}B {}us", api.method, target, response.code, bytes,
         std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now() - start)
             .count());
  Observe(request.reply(reply));
}

}  // namespace ksched::apiserver
