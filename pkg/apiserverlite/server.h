// HttpServer: serves an ApiHandler over HTTP/1.1 on pkg/net (no HTTP
// library underneath).
//
// Threads: one listener thread accepts connections and starts one thread per
// connection. A connection thread reads a request, calls the handler and
// writes the response itself, then reads the next request (keep-alive,
// pipelining), so a request costs no hand-off between threads. Connections
// are few (pooled client connections, informer watches, kubectl), so a
// thread each is cheap.
//
// Each request is decoded (percent-decoded path, query with '+' as space as
// Go's url.ParseQuery reads it, Content-Type, Accept, body by Content-Length
// or chunked up to max_request_bytes or 413) and answered with the
// handler's response. A watch answers 200 at once with a chunked body: the
// handler writes each event (one JSON object and '\n') into the watch's sink
// under a store mutex, which only appends to a per-watch buffer; after the
// mutex is released the writing thread sends the buffer as one chunk itself
// if the socket takes it without blocking, and otherwise hands the rest to
// the watch's connection thread, which sends it with a deadline (so the
// usual event costs no thread wake-up). A watcher whose unsent bytes
// exceed max_watch_buffer_bytes is closed and its connection cut, as the real server drops watchers that
// fall behind; when the connection fails the watcher is unregistered.
//
// Every request is logged at --v=4 (method, target, code, size, latency).
//
// Thread-safety: Start/Stop from one thread. The handler must outlive the
// server. Stop() refuses new watches with 503, ends the open watch streams,
// closes every connection and joins every thread, so the handler may be
// destroyed as soon as Stop() returns.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pkg/apiserverlite/handler.h"
#include "pkg/net/stream.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::apiserver {

struct HttpServerOptions {
  std::string bind_address = "127.0.0.1";
  // 0: pick a free port (see port() after Start).
  uint16_t port = 8080;
  size_t max_request_bytes = 3 * 1024 * 1024;
  size_t max_watch_buffer_bytes = 64 * 1024 * 1024;
  // Fault injection: delay before each request is handled (real time).
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
  // Stops accepting, ends watch streams, closes open connections and joins
  // every thread; idempotent.
  void Stop();

  uint16_t port() const { return port_; }
  // "http://127.0.0.1:PORT"
  std::string url() const;

 private:
  struct Connection;
  class StreamSink;

  void AcceptLoop();
  // The connection thread's body: serves requests until the peer closes,
  // an error, or Stop().
  void RunConnection(std::shared_ptr<Connection> conn);
  void ServeConnection(Connection& conn);
  // Serves a watch response on `conn`; false when the connection must close.
  bool ServeWatch(Connection& conn, std::shared_ptr<PendingWatch> watch,
                  const std::string& content_type, const std::string& target);
  // Waits out fault_latency; false when Stop() began meanwhile.
  bool InjectLatency();
  void JoinFinished();

  ApiHandler& handler_;
  const HttpServerOptions options_;
  uint16_t port_ = 0;
  std::unique_ptr<net::Listener> listener_;
  std::thread accept_thread_;

  std::mutex mu_;
  std::condition_variable changed_;  // stopping_ set, or a connection ended
  // Set once Stop() began: new watches are refused with 503, latency waits
  // end.
  bool stopping_ = false;
  uint64_t last_id_ = 0;
  // Open connections by id; a connection thread removes its own entry and
  // moves its std::thread to finished_ as its last step.
  std::map<uint64_t, std::shared_ptr<Connection>> connections_;
  std::vector<std::thread> finished_;
  // The open watch streams, so Stop() can end them.
  std::map<uint64_t, std::weak_ptr<WatchSink>> watch_sinks_;
};

}  // namespace ksched::apiserver
