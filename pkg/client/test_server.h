// TestServer: a tiny HTTP server on 127.0.0.1 and a free port, built on
// cpprestsdk's http_listener, for RestClient tests. It records every request
// and answers through a test-provided function.
//
// Thread-safety: handlers run on cpprestsdk's thread pool; the recorded
// requests are guarded by a mutex. WaitForRequests blocks until the count is
// reached (no sleeping).
#pragma once

#include <cpprest/http_listener.h>
#include <cpprest/producerconsumerstream.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ksched::client::testing {

struct RecordedRequest {
  std::string method;
  std::string path;                           // decoded path
  std::map<std::string, std::string> query;   // decoded
  std::map<std::string, std::string> headers; // lower-case names
  std::string body;
};

struct Reply {
  int code = 200;
  std::string body;
  std::string content_type = "application/json";
  std::map<std::string, std::string> headers;
};

class TestServer {
 public:
  using ReplyFn = std::function<Reply(const RecordedRequest&)>;
  // For streaming tests: the handler replies itself (e.g. with a body stream
  // it keeps writing to).
  using RawHandler = std::function<void(web::http::http_request, const RecordedRequest&)>;

  explicit TestServer(ReplyFn fn);
  explicit TestServer(RawHandler handler);
  ~TestServer();

  // "http://127.0.0.1:PORT".
  const std::string& url() const { return url_; }
  int port() const { return port_; }

  std::vector<RecordedRequest> requests() const;
  size_t request_count() const;
  // Blocks until at least `n` requests have been recorded.
  void WaitForRequests(size_t n) const;

 private:
  void Start();
  void Handle(web::http::http_request request);

  RawHandler handler_;
  int port_ = 0;
  std::string url_;
  std::unique_ptr<web::http::experimental::listener::http_listener> listener_;

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<RecordedRequest> requests_;
};

// A server whose every response is one chunked 200 body that the test
// writes piece by piece, as an API server streams a watch. Serves one request.
class StreamingServer {
 public:
  StreamingServer();
  ~StreamingServer();  // closes the body if the test did not

  const std::string& url() const { return server_.url(); }
  TestServer& server() { return server_; }
  // Blocks until the response headers have been handed to the listener.
  void WaitReplied();

  // Appends bytes to the body and flushes them to the client at once.
  void Write(const std::string& bytes);
  // Ends the body cleanly (final chunk).
  void Close();
  // Breaks the connection mid-body.
  void Fail();

 private:
  concurrency::streams::producer_consumer_buffer<uint8_t> buf_;
  std::promise<void> replied_;
  std::atomic<bool> closed_{false};
  TestServer server_;
};

// Picks a TCP port on 127.0.0.1 that was free a moment ago.
int FreeLoopbackPort();

}  // namespace ksched::client::testing
