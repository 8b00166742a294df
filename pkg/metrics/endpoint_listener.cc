#include "pkg/metrics/endpoint_listener.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "pkg/client/tls_stream.h"
#include "pkg/log/log.h"
#include "pkg/net/message_reader.h"
#include "pkg/net/stream.h"
#include "pkg/util/thread_name.h"

namespace ksched::metrics {

namespace {

std::string ErrorResponse(int status, const std::string& body) {
  net::Headers h;
  h.Add("Content-Type", "text/plain; charset=utf-8");
  h.Add("Content-Length", std::to_string(body.size()));
  h.Add("Connection", "close");
  return net::FormatResponseHead(status, h) + body;
}

}  // namespace

// Shared by the listener object and every thread it starts, so a thread
// never touches freed memory whatever the order in which they end.
struct EndpointListener::State {
  std::unique_ptr<net::Listener> listener;
  TlsContextSource tls;
  ConnectionLimits limits;
  ConnectionHandler handler;

  std::mutex mu;
  std::condition_variable idle_cv;  // signalled when a connection ends
  std::unordered_map<uint64_t, net::Socket*> open;  // by connection id
  uint64_t next_id = 0;
  bool stopping = false;
  std::atomic<uint64_t> rejected{0};
  std::thread accept_thread;

  void AcceptLoop(const std::shared_ptr<State>& self);
  void Serve(std::unique_ptr<net::Socket> socket, uint64_t id);
  void ServeStream(net::Stream& stream, X509* cert, STACK_OF(X509) * intermediates, const std::string& peer);
  void Finish(uint64_t id);
};

void EndpointListener::State::AcceptLoop(const std::shared_ptr<State>& self) {
  while (true) {
    util::StatusOr<std::unique_ptr<net::Socket>> s = listener->Accept();
    if (!s.ok()) {
      if (s.status().code() == util::StatusCode::kCancelled) return;
      // Out of file descriptors or the like: pause rather than spin.
      KLOG_V(2, "endpoint accept failed: {}", s.status().message());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    std::lock_guard<std::mutex> lock(mu);
    if (stopping) return;
    if (open.size() >= limits.max_connections) {
      rejected.fetch_add(1, std::memory_order_relaxed);
      KLOG_V(2, "endpoint connection from {} closed: {} connections open", (*s)->PeerAddress(), open.size());
      continue;  // the socket closes as it goes out of scope
    }
    const uint64_t id = next_id++;
    open[id] = s->get();
    // Started under the lock: if the thread cannot start, its socket is
    // destroyed and unregistered before Stop() can reach it.
    try {
      std::thread([self, socket = std::move(s).value(), id]() mutable {
        util::NameThisThread("http-conn");
        self->Serve(std::move(socket), id);
      })
          .detach();
    } catch (const std::system_error& e) {
      spdlog::warn("endpoint connection dropped: cannot start a thread: {}", e.what());
      open.erase(id);
    }
  }
}

void EndpointListener::State::Finish(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu);
  open.erase(id);
  idle_cv.notify_all();
}

void EndpointListener::State::Serve(std::unique_ptr<net::Socket> socket, uint64_t id) {
  // Stop() may shut the socket down (through the pointer registered in
  // `open`) until Finish(id): it must stay alive until then. Moving the
  // unique_ptr into the TLS stream keeps the Socket where it is.
  const std::string peer = socket->PeerAddress();
  if (!tls) {
    ServeStream(*socket, nullptr, nullptr, peer);
    Finish(id);
    return;
  }
  // Held for the connection's life: a reload does not touch it.
  std::shared_ptr<SSL_CTX> ctx = tls();
  util::StatusOr<std::unique_ptr<client::TlsStream>> stream = [&] {
    std::lock_guard<std::mutex> lock(mu);  // a failure destroys the socket
    auto s = ctx ? client::TlsStream::ServerSide(std::move(socket), ctx.get())
                 : util::StatusOr<std::unique_ptr<client::TlsStream>>(util::Internal("no TLS context"));
    if (!s.ok()) open.erase(id);
    return s;
  }();
  if (!stream.ok()) {
    spdlog::warn("endpoint TLS set-up for {} failed: {}", peer, stream.status().message());
    Finish(id);
    return;
  }
  util::Status handshake = (*stream)->AcceptHandshake(net::DeadlineAfter(limits.handshake_timeout));
  if (!handshake.ok()) {
    KLOG_V(4, "endpoint TLS handshake with {} failed: {}", peer, handshake.message());
  } else {
    std::shared_ptr<X509> cert = (*stream)->PeerCertificate();
    std::shared_ptr<STACK_OF(X509)> intermediates = cert ? (*stream)->PeerIntermediates() : nullptr;
    ServeStream(**stream, cert.get(), intermediates.get(), peer);
  }
  Finish(id);  // before the stream and its socket go
}

void EndpointListener::State::ServeStream(net::Stream& stream, X509* cert, STACK_OF(X509) * intermediates,
                                          const std::string& peer) {
  net::MessageReader reader(stream, limits.head);
  bool first = true;
  while (true) {
    net::RequestHead head;
    const net::Deadline head_deadline =
        net::DeadlineAfter(first ? limits.header_timeout : limits.idle_timeout);
    util::StatusOr<bool> got = reader.ReadRequestHead(&head, head_deadline);
    if (!got.ok()) {
      if (got.status().code() == util::StatusCode::kInvalidArgument) {
        const bool large = reader.head_too_large();
        (void)stream.WriteAll(ErrorResponse(large ? 431 : 400, large ? "request header too large\n"
                                                                     : "bad request\n"),
                              net::DeadlineAfter(limits.write_timeout));
      }
      KLOG_V(4, "endpoint connection from {} closed: {}", peer, got.status().message());
      return;
    }
    if (!*got) return;  // the client closed between requests
    first = false;

    util::StatusOr<net::BodyFraming> framing = net::RequestBodyFraming(head);
    if (!framing.ok()) {
      (void)stream.WriteAll(ErrorResponse(400, "bad request: " + framing.status().message() + "\n"),
                            net::DeadlineAfter(limits.write_timeout));
      return;
    }
    reader.BeginBody(*framing);
    if (framing->kind != net::BodyFraming::Kind::kNone) {
      std::string discarded;
      util::Status body = reader.ReadBody(&discarded, limits.max_body_bytes, head_deadline);
      if (!body.ok()) {
        if (reader.body_too_large()) {
          (void)stream.WriteAll(ErrorResponse(413, "request body too large\n"),
                                net::DeadlineAfter(limits.write_timeout));
        } else if (body.code() == util::StatusCode::kInvalidArgument) {
          (void)stream.WriteAll(ErrorResponse(400, "bad request: " + body.message() + "\n"),
                                net::DeadlineAfter(limits.write_timeout));
        }
        return;
      }
    }

    HttpResponse response;
    util::StatusOr<HttpRequest> request = ParseRequestTarget(head.method, head.target);
    if (!request.ok()) {
      response.status = 400;
      response.body = "bad request: " + request.status().message() + "\n";
    } else {
      RequestContext ctx;
      ctx.headers = &head.headers;
      ctx.client_certificate = cert;
      ctx.client_intermediates = intermediates;
      ctx.peer_address = peer;
      response = handler(*request, ctx);
    }
    const bool keep_alive = net::KeepAlive(head.version_minor, head.headers);
    net::Headers h;
    h.Add("Content-Type", response.content_type);
    h.Add("Content-Length", std::to_string(response.body.size()));
    for (const auto& [name, value] : response.headers) h.Add(name, value);
    if (!keep_alive) h.Set("Connection", "close");
    std::string out = net::FormatResponseHead(response.status, h);
    if (head.method != "HEAD") out += response.body;
    util::Status wrote = stream.WriteAll(out, net::DeadlineAfter(limits.write_timeout));
    if (!wrote.ok() || !keep_alive) return;
  }
}

util::StatusOr<std::unique_ptr<EndpointListener>> EndpointListener::Start(const std::string& host, uint16_t port,
                                                                          TlsContextSource tls,
                                                                          ConnectionLimits limits,
                                                                          ConnectionHandler handler,
                                                                          bool reuse_port) {
  util::StatusOr<std::unique_ptr<net::Listener>> l = net::Listener::Listen(host, port, 512, reuse_port);
  if (!l.ok()) return l.status();
  auto state = std::make_shared<State>();
  state->listener = std::move(l).value();
  state->tls = std::move(tls);
  state->limits = limits;
  state->handler = std::move(handler);
  state->accept_thread = std::thread([state] {
    util::NameThisThread("http-accept");
    state->AcceptLoop(state);
  });
  return std::unique_ptr<EndpointListener>(new EndpointListener(std::move(state)));
}

EndpointListener::EndpointListener(std::shared_ptr<State> state) : state_(std::move(state)) {}

EndpointListener::~EndpointListener() { Stop(); }

void EndpointListener::Stop() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stopping = true;
    for (auto& [id, socket] : state_->open) socket->Shutdown();
  }
  state_->listener->Shutdown();
  if (state_->accept_thread.joinable()) state_->accept_thread.join();
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->idle_cv.wait(lock, [this] { return state_->open.empty(); });
}

uint16_t EndpointListener::port() const { return state_->listener->port(); }

size_t EndpointListener::open_connections() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->open.size();
}

uint64_t EndpointListener::rejected_connections() const { return state_->rejected.load(); }

}  // namespace ksched::metrics
