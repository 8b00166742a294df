// HttpTransport: HTTP/1.1 exchanges with one API server over pooled
// keep-alive connections (plain TCP or TLS), on ksched's own wire layer
// (pkg/net). The calling thread does its own I/O: a request costs no
// thread hand-off (with a task-based HTTP client, hand-offs and their
// futex wake-ups were the largest share of end-to-end CPU).
//
// Connections:
//   - an idle connection is reused (most recently used first) unless the
//     server closed it meanwhile (checked with a zero-time poll);
//   - a reused connection that fails while the request is being written is
//     replaced by a new one and the request sent again (the server cannot
//     have acted on an incomplete request); one that closes before any byte
//     of a response is retried the same way for idempotent verbs only;
//   - after a complete response that allows keep-alive the connection goes
//     back to the pool (at most kMaxIdle kept); otherwise it is closed;
//   - a streamed response (watch) owns its connection until it is dropped.
// The timeout is one of inactivity, as RestConfig::timeout says: every step
// (connect, TLS handshake, write, each read) gets that long. A stop request
// shuts the connection down so blocked I/O returns at once.
//
// Thread-safety: every method may be called concurrently; each exchange
// uses its connection from one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/client/retry_policy.h"
#include "pkg/client/tls.h"
#include "pkg/net/http_message.h"
#include "pkg/net/message_reader.h"
#include "pkg/net/stream.h"
#include "pkg/util/status.h"

namespace ksched::client {

// What to send. `target` is the request-target ("/api/v1/pods?watch=true"),
// already percent-encoded; the transport prefixes the server URL's path.
struct HttpRequest {
  std::string method = "GET";
  std::string target;
  net::Headers headers;  // besides Host and Content-Length, which the transport sets
  std::string body;
  bool idempotent = true;
};

// One open connection with its response reader.
struct HttpConnection {
  std::unique_ptr<net::Stream> stream;
  std::unique_ptr<net::MessageReader> reader;
  int fd = -1;  // the socket under `stream`, for the liveness check
  bool reused = false;
};

// The body of a streamed response (see HttpTransport::Exchange); owns the
// connection, which is closed when this is destroyed. A stop request shuts
// it down (ReadSome then fails with kCancelled).
class HttpBodyStream {
 public:
  HttpBodyStream(std::unique_ptr<HttpConnection> conn, std::stop_token stop);
  // Appends the next body bytes to `out`; false once the body ended.
  util::StatusOr<bool> ReadSome(std::string* out, net::Deadline deadline) {
    return conn_->reader->ReadBodySome(out, deadline);
  }
  // Whether more of the body (or its framing) has arrived unread: the next
  // ReadSome may not wait for the server (net::MessageReader::HasInput).
  bool HasInput() const { return conn_->reader->HasInput(); }

 private:
  struct ShutdownOnStop {
    net::Stream* stream;
    void operator()() const { stream->Shutdown(); }
  };
  std::unique_ptr<HttpConnection> conn_;
  std::stop_callback<ShutdownOnStop> on_stop_;
};

// One attempt's outcome.
struct HttpResult {
  // OK when a response arrived (any status code); else why not.
  util::Status status;
  AttemptFailure failure = AttemptFailure::kHttpStatus;  // meaningful when !status.ok()
  net::ResponseHead head;
  std::string body;  // read unless streamed
  // Set instead of `body` when streaming was asked for and the status is 2xx.
  std::unique_ptr<HttpBodyStream> stream;
};

class HttpTransport {
 public:
  // Above the scheduler's concurrent requests (64 binding threads and the
  // API writer's): a burst's connections all stay for the next one, rather
  // than each burst paying TLS handshakes again.
  static constexpr size_t kMaxIdle = 128;

  // `server_url` is normalized (see rest_config.h ServerUrl): scheme, host,
  // optional port and path prefix. `tls` is required for https URLs;
  // `tls_server_name` (may be empty) overrides the name the server
  // certificate must carry and the SNI name.
  static util::StatusOr<std::unique_ptr<HttpTransport>> Create(const std::string& server_url,
                                                               const TlsMaterial* tls, bool insecure_skip_verify,
                                                               const std::string& tls_server_name);
  ~HttpTransport();

  // Sends `request` and reads the response head, then the whole body unless
  // `stream_body` is set and the status is 2xx (then `stream` is set).
  // `timeout` (zero: none) bounds each step. Failures carry "cannot connect", "TLS handshake failed", "timed
  // out" or "connection failed" in the message, with the AttemptFailure
  // retry_policy.h decides on; a stop gives kCancelled.
  HttpResult Exchange(const HttpRequest& request, bool stream_body, std::chrono::nanoseconds timeout,
                      const std::stop_token& stop);

  // "host:port" as sent in the Host header.
  const std::string& authority() const { return authority_; }

 private:
  HttpTransport() = default;
  util::StatusOr<std::unique_ptr<HttpConnection>> Dial(std::chrono::nanoseconds timeout);
  std::unique_ptr<HttpConnection> TakeIdle();
  void PutIdle(std::unique_ptr<HttpConnection> conn);
  // One try on `conn`; `retry_fresh` is set when a reused connection failed
  // in a way that makes sending again on a new one safe.
  HttpResult TryOn(HttpConnection& conn, const std::string& wire, const HttpRequest& request, bool stream_body,
                   std::chrono::nanoseconds timeout, const std::stop_token& stop, bool* retry_fresh, bool* keep);

  bool https_ = false;
  std::string host_;  // without brackets
  uint16_t port_ = 0;
  std::string authority_;
  std::string path_prefix_;  // "" or "/prefix"
  std::string tls_name_;
  bool verify_peer_ = true;
  SslCtxPtr ssl_ctx_;

  std::mutex mu_;
  std::vector<std::unique_ptr<HttpConnection>> idle_;  // guarded by mu_
};

}  // namespace ksched::client
