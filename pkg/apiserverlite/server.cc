#include "pkg/apiserverlite/server.h"

#include <fmt/format.h>

#include <chrono>
#include <utility>

#include "pkg/log/log.h"
#include "pkg/net/chunked.h"
#include "pkg/net/http_message.h"
#include "pkg/net/message_reader.h"
#include "pkg/net/url.h"

namespace ksched::apiserver {

namespace {

using Clock = std::chrono::steady_clock;

// How long reading one request body, or writing one response (or one watch
// chunk), may take before the client is considered gone. Waiting for a
// request head has no deadline: idle keep-alive connections are normal,
// and Stop() cancels the wait.
constexpr auto kIoTimeout = std::chrono::minutes(2);
// A body somewhat over max_request_bytes is still read, so the client sees
// the 413 rather than a connection reset mid-upload; beyond this factor the
// connection is closed without reading it.
constexpr size_t kReadOverLimitFactor = 16;
// Bodies up to this size are sent in one write with the head.
constexpr size_t kCoalesceBytes = 256 * 1024;

int64_t MicrosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
}

// The head and body of a complete (Content-Length) response.
std::string FormatResponse(int code, const std::string& content_type,
                           const std::vector<std::pair<std::string, std::string>>& extra,
                           size_t body_size, bool keep_alive) {
  net::Headers headers;
  if (!content_type.empty()) headers.Add("Content-Type", content_type);
  for (const auto& [name, value] : extra) headers.Add(name, value);
  headers.Add("Content-Length", std::to_string(body_size));
  if (!keep_alive) headers.Add("Connection", "close");
  return net::FormatResponseHead(code, headers);
}

// "http://host:port/path?q" (absolute-form, as sent to proxies) -> "/path?q".
std::string_view OriginForm(std::string_view target) {
  if (!target.empty() && target.front() == '/') return target;
  size_t scheme = target.find("://");
  if (scheme == std::string_view::npos) return target;
  size_t slash = target.find('/', scheme + 3);
  return slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
}

}  // namespace

// One accepted connection. `socket` is used by its thread only, except
// Shutdown(), which Stop() and an overflowing watch sink call from other
// threads while the connection is registered.
struct HttpServer::Connection {
  uint64_t id = 0;
  std::unique_ptr<net::Socket> socket;
  std::thread thread;
};

// The HTTP side of a watch. The store appends event lines under its mutex
// (Write never blocks), then calls Flush without it: the committing thread
// sends the lines itself, as one chunk, if the socket takes them at once.
// Only what would block (a slow reader, a full socket buffer) is handed to
// the connection thread, which waits with a deadline. So the usual event
// costs no wake-up and no context switch of the connection thread.
//
// One writer at a time: `writing_` marks who owns the stream's write side
// (a flushing thread or the connection thread). The owner drains the buffer
// before letting go, so bytes leave in the order they were written and no
// line is stranded. The connection thread owns it from the start (the
// response head and the initial events go first) and takes it back, once
// any flush in progress ends, before it writes the last chunk or leaves.
class HttpServer::StreamSink final : public WatchSink {
 public:
  StreamSink(size_t limit, net::Stream* stream) : limit_(limit), stream_(stream) {}

  bool Write(std::string_view line) override {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return false;
    // Unsent bytes (buffered, or taken and not yet written): the client
    // is too slow or gone. Cut its connection so the connection thread,
    // maybe blocked writing to it, ends too.
    if (unsent_ > limit_) {
      if (stream_ != nullptr) stream_->Shutdown();
      return false;
    }
    buffer_.append(line);
    unsent_ += line.size();
    return true;
  }

  void Close() override {
    {
      std::lock_guard<std::mutex> l(mu_);
      closed_ = true;
    }
    ready_.notify_all();
  }

  void Flush() override {
    std::unique_lock<std::mutex> l(mu_);
    if (writing_ || buffer_.empty() || stream_ == nullptr) return;
    writing_ = true;
    std::string out;
    while (!buffer_.empty() && stream_ != nullptr) {
      out.clear();
      net::AppendChunk(buffer_, &out);
      const size_t taken = buffer_.size();
      buffer_.clear();
      net::Stream* stream = stream_;
      l.unlock();
      util::StatusOr<size_t> sent = stream->TryWrite(out);
      l.lock();
      if (!sent.ok() || *sent < out.size()) {
        // The rest would block: the connection thread (now the writer)
        // sends it with a deadline. A broken connection is handed over
        // alike, so that the connection thread's write fails and the
        // watcher is removed, as when it writes itself.
        handoff_ = out.substr(sent.ok() ? *sent : 0);
        handoff_taken_ = taken;
        ready_.notify_all();
        return;
      }
      unsent_ -= taken;
    }
    writing_ = false;
    // Wakes the connection thread only when it has something to do (the
    // stream closed meanwhile and it must end it): not per event.
    if (closed_) ready_.notify_all();
  }

  // The connection thread's side. Unless it already owns the write side
  // (`own`), waits until it can take it and has something to do; then
  // moves the wire bytes into `out` (a chunk, or the rest of one a flush
  // could not finish) and the event bytes they carry into *taken. Returns
  // true when the stream has ended: closed and drained (out is empty); the
  // write side is then the connection thread's for good.
  bool Take(std::string* out, size_t* taken, bool own) {
    out->clear();
    *taken = 0;
    std::unique_lock<std::mutex> l(mu_);
    if (!own) {
      ready_.wait(l, [this] { return !handoff_.empty() || (!writing_ && (closed_ || !buffer_.empty())); });
      writing_ = true;
    }
    if (!handoff_.empty()) {
      out->swap(handoff_);
      *taken = handoff_taken_;
      return false;
    }
    if (!buffer_.empty()) {
      net::AppendChunk(buffer_, out);
      *taken = buffer_.size();
      buffer_.clear();
      return false;
    }
    return closed_;
  }

  // The connection thread wrote `taken` event bytes. It lets go of the
  // write side (flushes send directly again) unless more is buffered or the
  // stream closed; returns whether it still owns it.
  bool Sent(size_t taken) {
    std::lock_guard<std::mutex> l(mu_);
    unsent_ -= taken;
    if (!buffer_.empty() || closed_) return true;
    writing_ = false;
    return false;
  }

  // The first take: the initial or replayed events buffered by Start, sent
  // with the response head by the connection thread, which owns the write
  // side from the start. Returns whether the stream is closed already.
  bool TakeInitial(std::string* events) {
    std::lock_guard<std::mutex> l(mu_);
    events->swap(buffer_);
    buffer_.clear();
    return closed_;
  }

  // The connection is going away: never touch its stream again. Called by
  // the connection thread while it owns the write side, so no flush is
  // using the stream.
  void Detach() {
    std::lock_guard<std::mutex> l(mu_);
    stream_ = nullptr;
    closed_ = true;
  }

 private:
  const size_t limit_;
  std::mutex mu_;
  std::condition_variable ready_;
  net::Stream* stream_;  // null once detached
  std::string buffer_;   // event lines not yet taken
  size_t unsent_ = 0;
  bool closed_ = false;
  // Someone owns the write side; initially the connection thread.
  bool writing_ = true;
  // A chunk's unsent rest, handed from a flush to the connection thread.
  std::string handoff_;
  size_t handoff_taken_ = 0;
};

HttpServer::HttpServer(ApiHandler& handler, HttpServerOptions options)
    : handler_(handler), options_(std::move(options)) {}

HttpServer::~HttpServer() { Stop(); }

std::string HttpServer::url() const {
  std::string host = options_.bind_address == "0.0.0.0" ? "127.0.0.1" : options_.bind_address;
  return fmt::format("http://{}:{}", host, port_);
}

util::Status HttpServer::Start() {
  auto listener = net::Listener::Listen(options_.bind_address, options_.port);
  if (!listener.ok()) {
    return util::Status(listener.status().code(),
                        fmt::format("cannot listen on {}:{}: {}", options_.bind_address,
                                    options_.port, listener.status().message()));
  }
  listener_ = std::move(*listener);
  port_ = listener_->port();
  handler_.set_server_address(fmt::format("{}:{}", options_.bind_address, port_));
  accept_thread_ = std::thread([this] { AcceptLoop(); });
  return util::Status::Ok();
}

void HttpServer::Stop() {
  if (!listener_) return;
  // From here on a watch is refused (clients re-watch at once when their
  // stream ends, and a stream opened after this point would never end).
  std::vector<std::shared_ptr<WatchSink>> open;
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    for (const auto& [id, sink] : watch_sinks_) {
      if (auto s = sink.lock()) open.push_back(std::move(s));
    }
    changed_.notify_all();
  }
  listener_->Shutdown();
  if (accept_thread_.joinable()) accept_thread_.join();
  for (const auto& sink : open) sink->Close();
  handler_.CloseWatchStreams();
  std::unique_lock<std::mutex> l(mu_);
  for (const auto& [id, conn] : connections_) conn->socket->Shutdown();
  changed_.wait(l, [this] { return connections_.empty(); });
  std::vector<std::thread> threads = std::move(finished_);
  finished_.clear();
  l.unlock();
  for (std::thread& t : threads) t.join();
  listener_.reset();
}

void HttpServer::JoinFinished() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> l(mu_);
    threads.swap(finished_);
  }
  for (std::thread& t : threads) t.join();
}

void HttpServer::AcceptLoop() {
  while (true) {
    auto socket = listener_->Accept();
    JoinFinished();
    if (!socket.ok()) {
      if (socket.status().code() == util::StatusCode::kCancelled) return;
      // Out of fds or memory: pause instead of spinning, then go on.
      spdlog::warn("accepting a connection: {}", socket.status().message());
      std::unique_lock<std::mutex> l(mu_);
      changed_.wait_for(l, std::chrono::milliseconds(100), [this] { return stopping_; });
      if (stopping_) return;
      continue;
    }
    auto conn = std::make_shared<Connection>();
    conn->socket = std::move(*socket);
    // The thread handle is stored under mu_, which the thread takes before
    // it moves its own handle to finished_.
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) return;
    conn->id = ++last_id_;
    connections_.emplace(conn->id, conn);
    conn->thread = std::thread([this, conn] { RunConnection(conn); });
  }
}

void HttpServer::RunConnection(std::shared_ptr<Connection> conn) {
  ServeConnection(*conn);
  std::lock_guard<std::mutex> l(mu_);
  connections_.erase(conn->id);
  finished_.push_back(std::move(conn->thread));
  changed_.notify_all();
  // `conn` (and its socket) is destroyed when this thread drops it: nobody
  // else can reach it once it left connections_.
}

bool HttpServer::InjectLatency() {
  if (options_.fault_latency <= util::Duration::zero()) return true;
  std::unique_lock<std::mutex> l(mu_);
  changed_.wait_for(l, options_.fault_latency, [this] { return stopping_; });
  return !stopping_;
}

void HttpServer::ServeConnection(Connection& conn) {
  net::Stream& stream = *conn.socket;
  net::MessageReader reader(stream);
  // Sends a Status body and reports whether the connection may go on.
  auto reply_error = [&](const ApiError& error, bool keep_alive) {
    std::string body = error.ToStatus().dump();
    std::string out =
        FormatResponse(error.code, "application/json", {}, body.size(), keep_alive);
    out += body;
    return stream.WriteAll(out, net::DeadlineAfter(kIoTimeout)).ok() && keep_alive;
  };

  while (true) {
    net::RequestHead head;
    util::StatusOr<bool> got = reader.ReadRequestHead(&head, net::kNoDeadline);
    if (!got.ok()) {
      if (got.status().code() == util::StatusCode::kInvalidArgument) {
        ApiError error = BadRequestError(got.status().message());
        if (reader.head_too_large()) {
          error = ApiError{431, "RequestHeaderFieldsTooLarge", got.status().message(), nullptr};
        }
        reply_error(error, false);
      }
      return;  // the peer went away, or Stop()
    }
    if (!*got) return;  // the peer closed between requests
    const auto start = Clock::now();
    bool keep_alive = net::KeepAlive(head.version_minor, head.headers);

    // The body, whatever the method: the connection stays in step only if
    // it is consumed.
    util::StatusOr<net::BodyFraming> framing = net::RequestBodyFraming(head);
    if (!framing.ok()) {
      reply_error(BadRequestError(framing.status().message()), false);
      return;
    }
    const size_t limit = options_.max_request_bytes;
    if (framing->kind == net::BodyFraming::Kind::kContentLength &&
        framing->length > kReadOverLimitFactor * limit) {
      reply_error(RequestEntityTooLargeError(limit), false);
      return;
    }
    std::string body;
    if (framing->kind != net::BodyFraming::Kind::kNone) {
      if (head.headers.HasToken("Expect", "100-continue") &&
          !stream.WriteAll("HTTP/1.1 100 Continue\r\n\r\n", net::DeadlineAfter(kIoTimeout)).ok()) {
        return;
      }
      reader.BeginBody(*framing);
      util::Status read =
          reader.ReadBody(&body, kReadOverLimitFactor * limit, net::DeadlineAfter(kIoTimeout));
      if (!read.ok()) {
        if (reader.body_too_large()) {
          reply_error(RequestEntityTooLargeError(limit), false);
        } else if (read.code() == util::StatusCode::kInvalidArgument) {
          reply_error(BadRequestError("reading the request body: " + read.message()), false);
        }
        return;
      }
      if (body.size() > limit) {
        reply_error(RequestEntityTooLargeError(limit), false);
        return;
      }
    }

    if (!InjectLatency()) return;

    ApiRequest api;
    api.method = head.method;
    auto [raw_path, raw_query] = net::SplitTarget(OriginForm(head.target));
    util::StatusOr<std::string> path = net::PercentDecode(raw_path);
    util::StatusOr<net::QueryParams> query = net::ParseQuery(raw_query);
    if (!path.ok() || !query.ok()) {
      const util::Status& bad = path.ok() ? query.status() : path.status();
      if (!reply_error(BadRequestError("malformed request URI: " + bad.message()), keep_alive)) {
        return;
      }
      continue;
    }
    api.path = std::move(*path);
    for (auto& [key, value] : *query) api.query[std::move(key)] = std::move(value);
    api.content_type = std::string(head.headers.GetOr("Content-Type"));
    api.accept = std::string(head.headers.GetOr("Accept"));
    api.body = std::move(body);

    ApiResponse response;
    try {
      response = handler_.Handle(api);
    } catch (const std::exception& e) {
      // The handler reports errors as responses; this is a last resort so a
      // bug answers 500 instead of ending the process.
      spdlog::error("{} {}: {}", head.method, head.target, e.what());
      if (!reply_error(InternalError(e.what()), keep_alive)) return;
      continue;
    }

    if (response.watch) {
      KLOG_V(4, "WATCH {} 200 started", head.target);
      bool ok = ServeWatch(conn, std::move(response.watch), response.content_type, head.target);
      KLOG_V(4, "WATCH {} ended after {}ms", head.target, MicrosSince(start) / 1000);
      if (!ok || !keep_alive) return;
      continue;
    }

    const size_t bytes = response.body.size();
    bool head_only = head.method == "HEAD";
    std::string out = FormatResponse(response.code, response.content_type, response.headers,
                                     bytes, keep_alive);
    util::Status wrote;
    auto deadline = net::DeadlineAfter(kIoTimeout);
    if (head_only) {
      wrote = stream.WriteAll(out, deadline);
    } else if (bytes <= kCoalesceBytes) {
      out += response.body;
      wrote = stream.WriteAll(out, deadline);
    } else {
      wrote = stream.WriteAll(out, deadline);
      if (wrote.ok()) wrote = stream.WriteAll(response.body, deadline);
    }
    KLOG_V(4, "{} {} {} {}B {}us", head.method, head.target, response.code, bytes,
           MicrosSince(start));
    if (!wrote.ok() || !keep_alive) return;
  }
}

bool HttpServer::ServeWatch(Connection& conn, std::shared_ptr<PendingWatch> watch,
                            const std::string& content_type, const std::string& target) {
  net::Stream& stream = *conn.socket;
  auto sink = std::make_shared<StreamSink>(options_.max_watch_buffer_bytes, &stream);
  uint64_t sink_id = 0;
  {
    std::unique_lock<std::mutex> l(mu_);
    if (stopping_) {
      l.unlock();
      ApiError error = ServiceUnavailableError("the server is shutting down");
      std::string body = error.ToStatus().dump();
      std::string out = FormatResponse(error.code, "application/json", {}, body.size(), false);
      out += body;
      (void)stream.WriteAll(out, net::DeadlineAfter(kIoTimeout));
      return false;
    }
    sink_id = ++last_id_;
    watch_sinks_.emplace(sink_id, sink);
  }
  // Initial or replayed events land in the sink's buffer at once, and go out
  // with the response head.
  watch->Start(sink);

  net::Headers headers;
  headers.Add("Content-Type", content_type);
  headers.Add("Cache-Control", "no-cache, private");
  headers.Add("Transfer-Encoding", "chunked");
  std::string out = net::FormatResponseHead(200, headers);
  std::string initial;
  bool ended = sink->TakeInitial(&initial);
  net::AppendChunk(initial, &out);
  size_t taken = initial.size();
  bool ok = true;
  while (true) {
    if (ended) out.append(net::kLastChunk);
    util::Status wrote = stream.WriteAll(out, net::DeadlineAfter(kIoTimeout));
    if (!wrote.ok()) {
      KLOG_V(4, "WATCH {}: {}", target, wrote.message());
      ok = false;
      break;
    }
    if (ended) break;
    // Lets go of the write side when nothing more is buffered: from then
    // on committing threads send directly (Flush).
    const bool own = sink->Sent(taken);
    ended = sink->Take(&out, &taken, own);
  }
  // Unregisters the watcher: no Write comes after this returns.
  watch->Stop();
  sink->Detach();
  std::lock_guard<std::mutex> l(mu_);
  watch_sinks_.erase(sink_id);
  return ok;
}

}  // namespace ksched::apiserver
