#include "pkg/client/test_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>

namespace ksched::client::testing {

namespace http = web::http;

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    socklen_t len = sizeof(addr);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) port = ntohs(addr.sin_port);
  }
  close(fd);
  EXPECT_NE(port, 0) << "no free port";
  return port;
}

TestServer::TestServer(ReplyFn fn) {
  handler_ = [fn = std::move(fn)](http::http_request req, const RecordedRequest& rec) {
    Reply reply = fn(rec);
    http::http_response resp(static_cast<http::status_code>(reply.code));
    for (const auto& [k, v] : reply.headers) resp.headers().add(k, v);
    resp.set_body(reply.body, reply.content_type);
    req.reply(resp);
  };
  Start();
}

TestServer::TestServer(RawHandler handler) : handler_(std::move(handler)) { Start(); }

void TestServer::Start() {
  port_ = FreeLoopbackPort();
  url_ = "http://127.0.0.1:" + std::to_string(port_);
  listener_ = std::make_unique<web::http::experimental::listener::http_listener>(web::uri(url_));
  listener_->support([this](http::http_request req) { Handle(std::move(req)); });
  listener_->open().wait();
}

TestServer::~TestServer() { listener_->close().wait(); }

void TestServer::Handle(http::http_request req) {
  RecordedRequest rec;
  rec.method = req.method();
  rec.path = web::uri::decode(req.request_uri().path());
  for (const auto& [k, v] : web::uri::split_query(req.request_uri().query())) {
    rec.query[web::uri::decode(k)] = web::uri::decode(v);
  }
  for (const auto& [k, v] : req.headers()) {
    std::string name = k;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    rec.headers[name] = v;
  }
  std::vector<unsigned char> body = req.extract_vector().get();
  rec.body.assign(body.begin(), body.end());
  {
    std::lock_guard<std::mutex> l(mu_);
    requests_.push_back(rec);
  }
  cv_.notify_all();
  handler_(std::move(req), rec);
}

std::vector<RecordedRequest> TestServer::requests() const {
  std::lock_guard<std::mutex> l(mu_);
  return requests_;
}

size_t TestServer::request_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return requests_.size();
}

void TestServer::WaitForRequests(size_t n) const {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [&] { return requests_.size() >= n; });
}

StreamingServer::StreamingServer()
    : server_(TestServer::RawHandler([this](http::http_request req, const RecordedRequest&) {
        http::http_response resp(http::status_codes::OK);
        resp.headers().add("Content-Type", "application/json");
        // No length: the listener sends it chunked, reading the buffer as
        // the test fills it.
        resp.set_body(buf_.create_istream());
        req.reply(resp);
        replied_.set_value();
      })) {}

StreamingServer::~StreamingServer() { Close(); }

void StreamingServer::WaitReplied() { replied_.get_future().wait(); }

void StreamingServer::Write(const std::string& bytes) {
  buf_.putn_nocopy(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()).wait();
  buf_.sync().wait();  // lets the listener send what is there instead of waiting for a full chunk
}

void StreamingServer::Close() {
  if (!closed_.exchange(true)) buf_.close(std::ios_base::out).wait();
}

void StreamingServer::Fail() {
  if (!closed_.exchange(true)) {
    buf_.close(std::ios_base::out, std::make_exception_ptr(std::runtime_error("server dropped the stream"))).wait();
  }
}

}  // namespace ksched::client::testing
