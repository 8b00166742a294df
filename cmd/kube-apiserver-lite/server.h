// HttpServer: serves an ApiHandler over HTTP with cpprestsdk's
// http_listener (Boost.Asio based on Linux).
//
// Each request is decoded (percent-decoded path, query with '+' as space,
// Content-Type, Accept, body up to max_request_bytes or 413) and answered
// with the handler's response. A watch answers 200 at once with a body read
// from a producer_consumer_buffer of unknown length, which the listener sends
// with chunked transfer encoding: each event is one JSON object and '\n',
// written once per watcher and flushed (sync) so the listener forwards it as
// soon as it is written. A watcher whose unsent bytes exceed
// max_watch_buffer_bytes is closed, as the real server drops watchers that
// fall behind; when the connection fails the watcher is unregistered.
//
// Every request is logged at --v=4 (method, URI, code, latency).
//
// Thread-safety: Start/Stop from one thread; requests are served on the
// cpprestsdk thread pool. The handler must outlive the server. Stop() ends
// the open watch streams first (the listener waits for open responses), then
// waits until every watch has unregistered from the handler, so the handler
// may be destroyed as soon as Stop() returns.
#pragma once

#include <cpprest/http_listener.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cmd/kube-apiserver-lite/handler.h"
#include "cmd/kube-apiserver-lite/timer_queue.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::apiserver {

struct HttpServerOptions {
  std::string bind_address = "127.0.0.1";
  // 0: pick a free port (see port() after Start).
  uint16_t port = 8080;
  size_t max_request_bytes = 3 * 1024 * 1024;
  size_t max_watch_buffer_bytes = 64 * 1024 * 1024;
  // Fault injection: delay before each request is handled.
  util::Duration fault_latency = util::Duration::zero();
};

class HttpServer {
 public:
  HttpServer(ApiHandler& handler, HttpServerOptions options);
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving. Fails when the address cannot be bound.
  util::Status Start();
  // Stops accepting, closes open connections; idempotent.
  void Stop();

  uint16_t port() const { return port_; }
  // "http://127.0.0.1:PORT"
  std::string url() const;

 private:
  void OnRequest(web::http::http_request request);
  // Serve applies the injected latency, Respond handles and replies.
  void Serve(web::http::http_request request, std::string body);
  void Respond(web::http::http_request request, std::string body);
  void RespondOrThrow(web::http::http_request& request, std::string body);

  ApiHandler& handler_;
  const HttpServerOptions options_;
  uint16_t port_ = 0;
  std::unique_ptr<web::http::experimental::listener::http_listener> listener_;
  std::unique_ptr<TimerQueue> delays_;  // only with fault_latency

  // Watch responses whose completion handler (which unregisters the watcher
  // from the handler) has not run yet. cpprestsdk runs it on its pool, after
  // the listener has closed the connection, so Stop() waits for it.
  std::mutex watches_mu_;
  std::condition_variable watches_done_;
  size_t open_watches_ = 0;
  // The open watch streams, so Stop() can end them; set once Stop() began,
  // after which watches are refused with 503.
  std::map<uint64_t, std::weak_ptr<WatchSink>> watch_sinks_;
  uint64_t last_sink_id_ = 0;
  bool stopping_ = false;
};

}  // namespace ksched::apiserver
