// EndpointListener: one listening socket of the endpoint server, on pkg/net
// (plain HTTP/1.1, or TLS through client::TlsStream), built to bound what
// any one client can hold before a handler runs:
//
//   - at most `max_connections` open connections; one more is accepted and
//     closed at once (so the kernel's backlog never fills);
//   - the TLS handshake must end within `handshake_timeout` of the accept;
//   - a connection's first request head must arrive whole within
//     `header_timeout` of the handshake, and a kept-alive connection's next
//     one within `idle_timeout` of the previous response: a silent or
//     trickling client is closed then;
//   - a head over `limits.max_head_bytes` / `max_headers` gets 431, a
//     malformed one 400, and the connection is closed;
//   - a request body (none is expected: only GET and HEAD are served) is
//     read and dropped within the head's deadline, up to `max_body_bytes`
//     (else 413); a malformed chunk size (e.g. "-1") gets 400; both close
//     the connection;
//   - a response must be written within `write_timeout`.
// The timeouts are real time (network deadlines, see pkg/net/stream.h);
// tests shorten them through these options.
//
// Threads: one accept thread, and one thread per open connection, which
// handshakes, reads each request, calls the handler and writes its
// response. The handler gets the connection's client certificate, if any,
// unverified.
//
// Thread-safety: Stop() from any one thread; it stops accepting, shuts down
// every connection, and returns once no thread runs the handler any more
// (the handler may be destroyed then). The destructor stops.
#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "pkg/metrics/http_types.h"
#include "pkg/net/http_message.h"
#include "pkg/util/status.h"

namespace ksched::metrics {

struct ConnectionLimits {
  std::chrono::milliseconds handshake_timeout{10'000};
  std::chrono::milliseconds header_timeout{10'000};
  std::chrono::milliseconds idle_timeout{10'000};
  std::chrono::milliseconds write_timeout{10'000};
  size_t max_connections = 1024;
  net::HeadLimits head{64 * 1024, 100};
  size_t max_body_bytes = 64 * 1024;
};

// What the handler learns about one request besides the request itself.
struct RequestContext {
  const net::Headers* headers = nullptr;
  // The client's certificate and the intermediates it sent, NOT verified:
  // the handler verifies them against the CAs it trusts (null: none).
  X509* client_certificate = nullptr;
  STACK_OF(X509)* client_intermediates = nullptr;
  std::string peer_address;
};

using ConnectionHandler = std::function<HttpResponse(const HttpRequest&, const RequestContext&)>;
// The TLS server context for the next accepted connection; the connection
// keeps the one it got until it closes (so a reloaded certificate applies
// to new connections only).
using TlsContextSource = std::function<std::shared_ptr<SSL_CTX>()>;

class EndpointListener {
 public:
  // Binds host:port (port 0: a free one) and starts accepting. `tls` empty:
  // plain HTTP; otherwise asked for a server context at each accept.
  // `reuse_port`: SO_REUSEPORT (--permit-port-sharing).
  static util::StatusOr<std::unique_ptr<EndpointListener>> Start(const std::string& host, uint16_t port,
                                                                 TlsContextSource tls,
                                                                 ConnectionLimits limits,
                                                                 ConnectionHandler handler,
                                                                 bool reuse_port = false);
  ~EndpointListener();
  EndpointListener(const EndpointListener&) = delete;
  EndpointListener& operator=(const EndpointListener&) = delete;

  void Stop();
  uint16_t port() const;
  // Open connections now (tests).
  size_t open_connections() const;
  // Connections closed at once because `max_connections` were open.
  uint64_t rejected_connections() const;

 private:
  struct State;
  explicit EndpointListener(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace ksched::metrics
