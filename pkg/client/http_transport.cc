#include "pkg/client/http_transport.h"

#include <poll.h>

#include <charconv>

#include "pkg/client/tls_stream.h"

namespace ksched::client {

namespace {

using util::Status;
using util::StatusCode;

HttpResult Failed(AttemptFailure failure, StatusCode code, std::string message) {
  HttpResult r;
  r.failure = failure;
  r.status = Status(code, std::move(message));
  return r;
}

// A failed read or write of an exchange, classified.
HttpResult IoFailure(const Status& s, const std::stop_token& stop) {
  if (stop.stop_requested() || s.code() == StatusCode::kCancelled) {
    return Failed(AttemptFailure::kConnectionLost, StatusCode::kCancelled, "cancelled");
  }
  if (s.code() == StatusCode::kDeadlineExceeded) {
    return Failed(AttemptFailure::kTimeout, StatusCode::kDeadlineExceeded, "timed out");
  }
  return Failed(AttemptFailure::kConnectionLost, StatusCode::kUnavailable, "connection failed: " + s.message());
}

// Whether an idle connection is still usable: nothing to read (a readable
// idle connection is one the server closed, or one with stray bytes).
bool StillOpen(const HttpConnection& c) {
  if (c.reader->buffered() > 0) return false;
  pollfd p{c.fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

// A deadline `timeout` from now; none for a zero timeout.
net::Deadline Next(std::chrono::nanoseconds timeout) {
  return timeout > std::chrono::nanoseconds::zero() ? net::DeadlineAfter(timeout) : net::kNoDeadline;
}

}  // namespace

HttpBodyStream::HttpBodyStream(std::unique_ptr<HttpConnection> conn, std::stop_token stop)
    : conn_(std::move(conn)), on_stop_(std::move(stop), ShutdownOnStop{conn_->stream.get()}) {}

util::StatusOr<std::unique_ptr<HttpTransport>> HttpTransport::Create(const std::string& server_url,
                                                                     const TlsMaterial* tls,
                                                                     bool insecure_skip_verify,
                                                                     const std::string& tls_server_name) {
  std::unique_ptr<HttpTransport> t(new HttpTransport());
  std::string_view rest = server_url;
  if (rest.rfind("https://", 0) == 0) {
    t->https_ = true;
    rest.remove_prefix(8);
  } else if (rest.rfind("http://", 0) == 0) {
    rest.remove_prefix(7);
  } else {
    return util::InvalidArgument("server \"" + server_url + "\" must be an http:// or https:// URL");
  }
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) t->path_prefix_ = std::string(rest.substr(slash));
  while (!t->path_prefix_.empty() && t->path_prefix_.back() == '/') t->path_prefix_.pop_back();
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return util::InvalidArgument("server \"" + server_url + "\": bad IPv6 host");
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return util::InvalidArgument("server \"" + server_url + "\": bad port");
      port = authority.substr(close + 2);
    }
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return util::InvalidArgument("server \"" + server_url + "\" has no host name");
  t->host_ = std::string(host);
  t->port_ = t->https_ ? 443 : 80;
  if (!port.empty()) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      return util::InvalidArgument("server \"" + server_url + "\": bad port \"" + std::string(port) + "\"");
    }
    t->port_ = static_cast<uint16_t>(value);
  }
  t->authority_ = std::string(authority);
  if (t->https_) {
    if (tls == nullptr) return util::InvalidArgument("server \"" + server_url + "\": https needs TLS settings");
    t->verify_peer_ = !insecure_skip_verify;
    t->tls_name_ = tls_server_name.empty() ? t->host_ : tls_server_name;
    util::StatusOr<SslCtxPtr> ctx = NewClientSslContext(*tls, t->verify_peer_);
    if (!ctx.ok()) return ctx.status();
    t->ssl_ctx_ = std::move(ctx).value();
  }
  return t;
}

HttpTransport::~HttpTransport() = default;

util::StatusOr<std::unique_ptr<HttpConnection>> HttpTransport::Dial(std::chrono::nanoseconds timeout) {
  util::StatusOr<std::unique_ptr<net::Socket>> socket = net::Socket::Connect(host_, port_, Next(timeout));
  if (!socket.ok()) return socket.status();
  auto conn = std::make_unique<HttpConnection>();
  conn->fd = (*socket)->fd();
  if (https_) {
    util::StatusOr<std::unique_ptr<TlsStream>> tls =
        TlsStream::Handshake(std::move(socket).value(), ssl_ctx_.get(), tls_name_, verify_peer_, Next(timeout));
    if (!tls.ok()) return tls.status();
    conn->stream = std::move(tls).value();
  } else {
    conn->stream = std::move(socket).value();
  }
  conn->reader = std::make_unique<net::MessageReader>(*conn->stream);
  return conn;
}

std::unique_ptr<HttpConnection> HttpTransport::TakeIdle() {
  for (;;) {
    std::unique_ptr<HttpConnection> c;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (idle_.empty()) return nullptr;
      c = std::move(idle_.back());
      idle_.pop_back();
    }
    if (StillOpen(*c)) return c;
    // Closed by the server while idle: drop it (outside the lock) and look on.
  }
}

void HttpTransport::PutIdle(std::unique_ptr<HttpConnection> conn) {
  conn->reused = true;
  std::lock_guard<std::mutex> l(mu_);
  if (idle_.size() < kMaxIdle) idle_.push_back(std::move(conn));
}

HttpResult HttpTransport::TryOn(HttpConnection& conn, const std::string& wire, const HttpRequest& request,
                                bool stream_body, std::chrono::nanoseconds timeout, const std::stop_token& stop,
                                bool* retry_fresh, bool* keep) {
  *retry_fresh = false;
  *keep = false;
  std::stop_callback shutdown_on_stop(stop, [&conn] { conn.stream->Shutdown(); });
  if (stop.stop_requested()) return IoFailure(Status(StatusCode::kCancelled, ""), stop);
  Status written = conn.stream->WriteAll(wire, Next(timeout));
  if (!written.ok()) {
    *retry_fresh = conn.reused && written.code() == StatusCode::kUnavailable;
    return IoFailure(written, stop);
  }
  // Neither a new nor a pooled connection holds unread bytes (StillOpen):
  // the response cannot have arrived yet.
  conn.stream->WaitBeforeNextRead();
  HttpResult r;
  for (;;) {
    util::StatusOr<bool> got = conn.reader->ReadResponseHead(&r.head, Next(timeout));
    if (!got.ok()) {
      *retry_fresh = conn.reused && request.idempotent && got.status().code() == StatusCode::kUnavailable &&
                     !conn.reader->head_too_large();
      return IoFailure(got.status(), stop);
    }
    if (!*got) {
      *retry_fresh = conn.reused && request.idempotent;
      return IoFailure(Status(StatusCode::kUnavailable, "the server closed the connection"), stop);
    }
    if (r.head.status >= 200 || r.head.status < 100) break;  // skip 1xx interim responses
  }
  util::StatusOr<net::BodyFraming> framing = net::ResponseBodyFraming(r.head, request.method);
  if (!framing.ok()) return IoFailure(Status(StatusCode::kUnavailable, framing.status().message()), stop);
  conn.reader->BeginBody(*framing);
  const bool success = r.head.status >= 200 && r.head.status < 300;
  if (stream_body && success) return r;  // the caller reads the body
  for (;;) {
    util::StatusOr<bool> more = conn.reader->ReadBodySome(&r.body, Next(timeout));
    if (!more.ok()) return IoFailure(more.status(), stop);
    if (!*more) break;
  }
  *keep = framing->kind != net::BodyFraming::Kind::kUntilClose && net::KeepAlive(r.head.version_minor, r.head.headers);
  return r;
}

HttpResult HttpTransport::Exchange(const HttpRequest& request, bool stream_body, std::chrono::nanoseconds timeout,
                                   const std::stop_token& stop) {
  // One buffer for the head and the body, the transport's fields written
  // in place of the request's own (no copy of its headers).
  char length[24];
  const char* length_end = std::to_chars(length, length + sizeof(length), request.body.size()).ptr;
  const bool has_length =
      !request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH";
  const std::pair<std::string_view, std::string_view> set[] = {
      {"Host", authority_}, {"Content-Length", std::string_view(length, length_end - length)}};
  std::string wire;
  wire.reserve(256 + request.target.size() + request.body.size());
  const std::string prefixed = path_prefix_.empty() ? std::string() : path_prefix_ + request.target;
  net::AppendRequestHead(request.method, path_prefix_.empty() ? request.target : prefixed, request.headers,
                         std::span(set, has_length ? 2 : 1), &wire);
  wire += request.body;

  std::unique_ptr<HttpConnection> conn = TakeIdle();
  for (;;) {
    if (!conn) {
      util::StatusOr<std::unique_ptr<HttpConnection>> dialed = Dial(timeout);
      if (!dialed.ok()) {
        const Status& s = dialed.status();
        if (stop.stop_requested() || s.code() == StatusCode::kCancelled) {
          return Failed(AttemptFailure::kNotSent, StatusCode::kCancelled, "cancelled");
        }
        if (s.code() == StatusCode::kDeadlineExceeded) {
          return Failed(AttemptFailure::kTimeout, StatusCode::kDeadlineExceeded, "timed out connecting");
        }
        if (s.message().rfind("TLS handshake failed", 0) == 0) {
          return Failed(AttemptFailure::kTlsHandshake, StatusCode::kUnavailable, s.message());
        }
        return Failed(AttemptFailure::kNotSent, StatusCode::kUnavailable, "cannot connect: " + s.message());
      }
      conn = std::move(dialed).value();
    }
    bool retry_fresh = false;
    bool keep = false;
    HttpResult r = TryOn(*conn, wire, request, stream_body, timeout, stop, &retry_fresh, &keep);
    if (!r.status.ok()) {
      conn.reset();
      if (retry_fresh && !stop.stop_requested()) continue;  // a stale pooled connection: once more on a new one
      return r;
    }
    const bool success = r.head.status >= 200 && r.head.status < 300;
    if (stream_body && success) {
      r.stream = std::make_unique<HttpBodyStream>(std::move(conn), stop);
    } else if (keep) {
      PutIdle(std::move(conn));
    }
    return r;
  }
}

}  // namespace ksched::client
