// kube-apiserver-lite over loopback HTTP, driven by cpprestsdk's http_client
// (the client pkg/client is built on, independent of the server's pkg/net):
// REST verbs, status bodies, chunked watch streams read incrementally,
// bookmarks, 410, disconnects, slow watchers and concurrent writers. Raw
// sockets check the wire details: keep-alive and pipelining, chunked
// request bodies, Expect: 100-continue, malformed and oversized heads, and
// Stop() with open connections and watches.
#include "pkg/apiserverlite/server.h"

// boost/asio/awaitable.hpp (via pplx/threadpool.h) needs <utility> first.
#include <utility>

#include <cpprest/containerstream.h>
#include <cpprest/http_client.h>
#include <gtest/gtest.h>
#include <pplx/threadpool.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <set>
#include <thread>

#include "pkg/net/chunked.h"
#include "pkg/net/message_reader.h"
#include "pkg/net/stream.h"

namespace ksched::apiserver {
namespace {

// Two pool threads for server and client alike: a request path that blocks a
// pool thread (say, waiting on a task while holding a store mutex) then
// deadlocks these tests instead of passing by luck.
const bool kSmallThreadPool = [] {
  crossplat::threadpool::initialize_with_threads(2);
  return true;
}();

using nlohmann::json;
using std::chrono::seconds;
using web::http::methods;
using web::http::status_code;
using web::http::client::http_client;
using web::http::client::http_client_config;

struct Reply {
  status_code code;
  json body;
  web::http::http_headers headers;
};

// One watch stream, read line by line as the server writes it.
class WatchStream {
 public:
  WatchStream(http_client& client, const std::string& target) {
    web::http::http_request req(methods::GET);
    req.set_request_uri(target);
    response_ = client.request(req, cts_.get_token()).get();
    body_ = response_.body();
  }
  ~WatchStream() { cts_.cancel(); }

  status_code code() const { return response_.status_code(); }
  // The next event; null at the end of the stream.
  json Next() {
    concurrency::streams::container_buffer<std::string> line;
    size_t n = body_.read_line(line).get();
    if (n == 0 && body_.is_eof()) return nullptr;
    if (line.collection().empty()) return Next();
    return json::parse(line.collection());
  }
  void Cancel() { cts_.cancel(); }

 private:
  pplx::cancellation_token_source cts_;
  web::http::http_response response_;
  concurrency::streams::istream body_;
};

class ServerTest : public ::testing::Test {
 protected:
  explicit ServerTest(HttpServerOptions http = {}) : handler_(ServerOptions{}, clock_) {
    http.port = 0;
    server_ = std::make_unique<HttpServer>(handler_, http);
    util::Status st = server_->Start();
    EXPECT_TRUE(st.ok()) << st.message();
    http_client_config config;
    config.set_timeout(seconds(30));
    client_ = std::make_unique<http_client>(server_->url(), config);
  }
  ~ServerTest() override {
    handler_.Shutdown();
    server_->Stop();
  }

  Reply Do(const web::http::method& m, const std::string& target, const std::string& body = "",
           const std::string& content_type = "application/json") {
    web::http::http_request req(m);
    req.set_request_uri(target);
    if (!body.empty()) req.set_body(body, content_type);
    web::http::http_response resp = client_->request(req).get();
    std::string text = resp.extract_utf8string(true).get();
    Reply r{resp.status_code(), nullptr, resp.headers()};
    if (!text.empty()) r.body = json::parse(text, nullptr, false);
    return r;
  }
  json Pod(const std::string& name, size_t annotation_bytes = 0) {
    json p = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "pause"}}}}}}};
    if (annotation_bytes > 0) p["metadata"]["annotations"] = {{"pad", std::string(annotation_bytes, 'x')}};
    return p;
  }
  Reply CreatePod(const std::string& name, size_t annotation_bytes = 0) {
    return Do(methods::POST, "/api/v1/namespaces/default/pods", Pod(name, annotation_bytes).dump());
  }
  std::string Rv() { return std::to_string(handler_.current_resource_version()); }

  util::FakeClock clock_;
  ApiHandler handler_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<http_client> client_;
};

TEST_F(ServerTest, ListensOnAFreePort) {
  EXPECT_NE(server_->port(), 0);
  EXPECT_EQ(server_->url(), "http://127.0.0.1:" + std::to_string(server_->port()));
  Reply health = Do(methods::GET, "/healthz");
  EXPECT_EQ(health.code, 200);
  Reply api = Do(methods::GET, "/api");
  EXPECT_EQ(api.body["serverAddressByClientCIDRs"][0]["serverAddress"],
            "127.0.0.1:" + std::to_string(server_->port()));
  EXPECT_EQ(api.headers.content_type(), "application/json");
}

TEST_F(ServerTest, CrudOverHttp) {
  Reply created = CreatePod("p1");
  ASSERT_EQ(created.code, 201);
  EXPECT_EQ(created.body["metadata"]["name"], "p1");
  EXPECT_EQ(CreatePod("p1").code, 409);

  Reply got = Do(methods::GET, "/api/v1/namespaces/default/pods/p1");
  EXPECT_EQ(got.code, 200);
  EXPECT_EQ(got.body, created.body);

  json stale = created.body;
  stale["metadata"]["labels"] = {{"v", "1"}};
  ASSERT_EQ(Do(methods::PUT, "/api/v1/namespaces/default/pods/p1", stale.dump()).code, 200);
  Reply conflict = Do(methods::PUT, "/api/v1/namespaces/default/pods/p1", stale.dump());
  EXPECT_EQ(conflict.code, 409);
  EXPECT_EQ(conflict.body["reason"], "Conflict");

  Reply patched = Do(methods::PATCH, "/api/v1/namespaces/default/pods/p1",
                     R"({"metadata":{"labels":{"w":"2"}}})", "application/merge-patch+json");
  EXPECT_EQ(patched.code, 200);
  EXPECT_EQ(patched.body["metadata"]["labels"], json::parse(R"({"v":"1","w":"2"})"));

  Reply deleted = Do(methods::DEL, "/api/v1/namespaces/default/pods/p1");
  EXPECT_EQ(deleted.code, 200);
  EXPECT_EQ(Do(methods::GET, "/api/v1/namespaces/default/pods/p1").code, 404);
}

TEST_F(ServerTest, QueryStringsAreDecoded) {
  json labeled = Pod("a");
  labeled["metadata"]["labels"] = {{"app", "web"}, {"tier", "x"}};
  ASSERT_EQ(Do(methods::POST, "/api/v1/namespaces/default/pods", labeled.dump()).code, 201);
  ASSERT_EQ(CreatePod("b").code, 201);
  // Go's url.Values encoding: spaces as '+', reserved characters escaped.
  Reply in = Do(methods::GET, "/api/v1/pods?labelSelector=app+in+%28web%2Cdb%29");
  ASSERT_EQ(in.code, 200) << in.body.dump();
  EXPECT_EQ(in.body["items"].size(), 1u);
  Reply not_a = Do(methods::GET, "/api/v1/pods?fieldSelector=metadata.name%21%3Da");
  EXPECT_EQ(not_a.body["items"].size(), 1u);
  EXPECT_EQ(Do(methods::GET, "/api/v1/pods?labelSelector=%zz").code, 400);
}

TEST_F(ServerTest, PaginationOverHttp) {
  for (int i = 0; i < 7; ++i) ASSERT_EQ(CreatePod("p" + std::to_string(i)).code, 201);
  std::vector<std::string> names;
  std::string cont;
  int pages = 0;
  do {
    std::string target = "/api/v1/namespaces/default/pods?limit=3";
    if (!cont.empty()) target += "&continue=" + cont;
    Reply page = Do(methods::GET, target);
    ASSERT_EQ(page.code, 200);
    for (const auto& item : page.body["items"]) names.push_back(item["metadata"]["name"]);
    cont = page.body["metadata"].value("continue", "");
    ++pages;
  } while (!cont.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(names.size(), 7u);
}

TEST_F(ServerTest, BindTwiceIsConflict) {
  ASSERT_EQ(CreatePod("p").code, 201);
  Reply first = Do(methods::POST, "/api/v1/namespaces/default/pods/p/binding",
                   R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},
                       "target":{"apiVersion":"v1","kind":"Node","name":"n1"}})");
  EXPECT_EQ(first.code, 201);
  Reply second = Do(methods::POST, "/api/v1/namespaces/default/pods/p/binding",
                    R"({"target":{"name":"n2"}})");
  EXPECT_EQ(second.code, 409);
  EXPECT_EQ(second.body["message"],
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to "
            "node \"n1\"");
}

TEST_F(ServerTest, MalformedBodiesAre400AndTooLargeIs413) {
  Reply bad = Do(methods::POST, "/api/v1/namespaces/default/pods", "{\"metadata\":");
  EXPECT_EQ(bad.code, 400);
  EXPECT_EQ(bad.body["kind"], "Status");
  EXPECT_EQ(bad.body["reason"], "BadRequest");
  Reply binary = Do(methods::POST, "/api/v1/namespaces/default/pods", std::string("\x00\xff\x10", 3));
  EXPECT_EQ(binary.code, 400);
  Reply huge = Do(methods::POST, "/api/v1/namespaces/default/pods",
                  Pod("big", 4 * 1024 * 1024).dump());
  EXPECT_EQ(huge.code, 413);
  EXPECT_EQ(huge.body["reason"], "RequestEntityTooLarge");
  // The server is still serving.
  EXPECT_EQ(Do(methods::GET, "/healthz").code, 200);
}

TEST_F(ServerTest, WatchStreamsEventsAsTheyHappen) {
  ASSERT_EQ(CreatePod("a").code, 201);
  WatchStream watch(*client_, "/api/v1/namespaces/default/pods?watch=1");
  ASSERT_EQ(watch.code(), 200);
  json added = watch.Next();
  EXPECT_EQ(added["type"], "ADDED");
  EXPECT_EQ(added["object"]["metadata"]["name"], "a");
  // Each event arrives while the stream stays open.
  for (int i = 0; i < 3; ++i) {
    std::string name = "live" + std::to_string(i);
    ASSERT_EQ(CreatePod(name).code, 201);
    json e = watch.Next();
    EXPECT_EQ(e["type"], "ADDED");
    EXPECT_EQ(e["object"]["metadata"]["name"], name);
  }
  ASSERT_EQ(Do(methods::DEL, "/api/v1/namespaces/default/pods/a").code, 200);
  EXPECT_EQ(watch.Next()["type"], "DELETED");
}

TEST_F(ServerTest, WatchFromResourceVersionAndExpired) {
  ASSERT_EQ(CreatePod("a").code, 201);
  std::string rv = Rv();
  ASSERT_EQ(CreatePod("b").code, 201);
  WatchStream resumed(*client_, "/api/v1/namespaces/default/pods?watch=1&resourceVersion=" + rv);
  json e = resumed.Next();
  EXPECT_EQ(e["type"], "ADDED");
  EXPECT_EQ(e["object"]["metadata"]["name"], "b");

  handler_.store("pods")->Compact();
  WatchStream expired(*client_, "/api/v1/namespaces/default/pods?watch=1&resourceVersion=" + rv);
  EXPECT_EQ(expired.code(), 200);
  json error = expired.Next();
  EXPECT_EQ(error["type"], "ERROR");
  EXPECT_EQ(error["object"]["code"], 410);
  EXPECT_TRUE(expired.Next().is_null());  // the server ends the stream
}

TEST_F(ServerTest, BookmarksAndTimeoutOverHttp) {
  WatchStream watch(*client_, "/api/v1/nodes?watch=1&allowWatchBookmarks=true&timeoutSeconds=20"
                              "&resourceVersion=" + Rv());
  ASSERT_EQ(watch.code(), 200);
  clock_.Step(seconds(5));
  json bookmark = watch.Next();
  EXPECT_EQ(bookmark["type"], "BOOKMARK");
  EXPECT_EQ(bookmark["object"]["kind"], "Node");
  EXPECT_EQ(bookmark["object"]["metadata"]["resourceVersion"], Rv());
  clock_.Step(seconds(15));
  json next;
  do {
    next = watch.Next();
  } while (!next.is_null() && next["type"] == "BOOKMARK");
  EXPECT_TRUE(next.is_null());
}

TEST_F(ServerTest, DisconnectedWatchersAreRemoved) {
  ObjectStore& pods = *handler_.store("pods");
  {
    WatchStream watch(*client_, "/api/v1/pods?watch=1");
    ASSERT_EQ(watch.code(), 200);
    EXPECT_EQ(pods.watcher_count(), 1u);
    watch.Cancel();
  }
  // The server notices on the next writes to the dead connection.
  for (int i = 0; i < 200 && pods.watcher_count() > 0; ++i) {
    ASSERT_EQ(CreatePod("p" + std::to_string(i)).code, 201);
  }
  EXPECT_EQ(pods.watcher_count(), 0u);
}

class SlowWatcherTest : public ServerTest {
 protected:
  static HttpServerOptions Small() {
    HttpServerOptions o;
    o.max_watch_buffer_bytes = 256 * 1024;
    return o;
  }
  SlowWatcherTest() : ServerTest(Small()) {}
};

// Opens a watch on a raw socket that never reads (http_client would drain
// the socket into its own buffer).
int OpenStalledWatch(uint16_t port, const std::string& target) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int small = 4096;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return -1;
  std::string req = "GET " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
  if (::send(fd, req.data(), req.size(), 0) != static_cast<ssize_t>(req.size())) return -1;
  // The response headers follow the watcher's registration: read up to them,
  // then never again.
  std::string head;
  char c;
  while (head.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1) head += c;
  return head.rfind("HTTP/1.1 200", 0) == 0 ? fd : -1;
}

TEST_F(SlowWatcherTest, AWatcherThatFallsBehindIsClosedAndWritersGoOn) {
  ObjectStore& pods = *handler_.store("pods");
  int fd = OpenStalledWatch(server_->port(), "/api/v1/pods?watch=1");
  ASSERT_GE(fd, 0);
  WatchStream healthy(*client_, "/api/v1/pods?watch=1");
  ASSERT_EQ(pods.watcher_count(), 2u);
  // Writes go straight to the handler: the stalled watcher's socket buffers
  // fill, then its server-side buffer, and it is dropped. The healthy watcher
  // reads every event before the next write, so its buffer never holds more
  // than one event however slowly this machine runs its reader.
  int created = 0;
  for (; created < 2000 && pods.watcher_count() == 2; ++created) {
    ApiRequest r;
    r.method = "POST";
    r.path = "/api/v1/namespaces/default/pods";
    r.body = Pod("p" + std::to_string(created), 32 * 1024).dump();
    ASSERT_EQ(handler_.Handle(r).code, 201);
    json e = healthy.Next();
    ASSERT_FALSE(e.is_null()) << "the healthy watcher ended after " << created << " events";
    ASSERT_EQ(e["object"]["metadata"]["name"], "p" + std::to_string(created));
  }
  EXPECT_EQ(pods.watcher_count(), 1u) << "after " << created << " events";
  // Writers go on, and the healthy watcher still streams.
  ApiRequest r;
  r.method = "POST";
  r.path = "/api/v1/namespaces/default/pods";
  r.body = Pod("after", 1024).dump();
  ASSERT_EQ(handler_.Handle(r).code, 201);
  json e = healthy.Next();
  ASSERT_FALSE(e.is_null());
  EXPECT_EQ(e["object"]["metadata"]["name"], "after");
  ::close(fd);
}

TEST_F(ServerTest, ConcurrentWritersAndAWatcher) {
  WatchStream watch(*client_, "/api/v1/pods?watch=1&resourceVersion=" + Rv());
  constexpr int kThreads = 4, kPerThread = 25;
  std::atomic<int> bound{0}, conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string name = "t" + std::to_string(t) + "-" + std::to_string(i);
        EXPECT_EQ(CreatePod(name).code, 201);
        // Two binders race for every pod: exactly one wins.
        for (int attempt = 0; attempt < 2; ++attempt) {
          Reply r = Do(methods::POST, "/api/v1/namespaces/default/pods/" + name + "/binding",
                       R"({"target":{"name":"n)" + std::to_string(attempt) + R"("}})");
          if (r.code == 201) ++bound;
          if (r.code == 409) ++conflicts;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bound.load(), kThreads * kPerThread);
  EXPECT_EQ(conflicts.load(), kThreads * kPerThread);
  int added = 0, modified = 0;
  uint64_t last_rv = 0;
  while (added + modified < 2 * kThreads * kPerThread) {
    json e = watch.Next();
    ASSERT_FALSE(e.is_null());
    uint64_t rv = std::stoull(e["object"]["metadata"]["resourceVersion"].get<std::string>());
    EXPECT_GT(rv, last_rv);
    last_rv = rv;
    if (e["type"] == "ADDED") ++added;
    if (e["type"] == "MODIFIED") ++modified;
  }
  EXPECT_EQ(added, kThreads * kPerThread);
  EXPECT_EQ(modified, kThreads * kPerThread);
}

// A raw HTTP/1.1 connection: bytes written as given, responses read with
// pkg/net's MessageReader.
class RawConnection {
 public:
  explicit RawConnection(uint16_t port) {
    auto s = net::Socket::Connect("127.0.0.1", port, net::DeadlineAfter(seconds(10)));
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (s.ok()) socket_ = std::move(*s);
    if (socket_) reader_ = std::make_unique<net::MessageReader>(*socket_);
  }
  bool Send(const std::string& bytes) {
    return socket_ && socket_->WriteAll(bytes, net::DeadlineAfter(seconds(10))).ok();
  }
  struct Response {
    int status = 0;  // 0: no response (connection closed or error)
    net::Headers headers;
    std::string body;
  };
  // The next response, body read whole (not for open watch streams).
  Response Read(const std::string& method = "GET") {
    Response r;
    net::ResponseHead head;
    if (!reader_) return r;
    auto got = reader_->ReadResponseHead(&head, net::DeadlineAfter(seconds(30)));
    if (!got.ok() || !*got) return r;
    auto framing = net::ResponseBodyFraming(head, method);
    if (!framing.ok()) return r;
    reader_->BeginBody(*framing);
    if (!reader_->ReadBody(&r.body, 64 << 20, net::DeadlineAfter(seconds(30))).ok()) return r;
    r.status = head.status;
    r.headers = head.headers;
    return r;
  }
  // Reads a response head and starts its body (a watch stream).
  int ReadHead(net::ResponseHead* head) {
    auto got = reader_->ReadResponseHead(head, net::DeadlineAfter(seconds(30)));
    if (!got.ok() || !*got) return 0;
    reader_->BeginBody(*net::ResponseBodyFraming(*head, "GET"));
    return head->status;
  }
  // The next watch line; "" at the end of the stream, "<error>" on errors.
  std::string NextLine() {
    while (true) {
      size_t nl = pending_.find('\n');
      if (nl != std::string::npos) {
        std::string line = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        return line;
      }
      auto more = reader_->ReadBodySome(&pending_, net::DeadlineAfter(seconds(30)));
      if (!more.ok()) return "<error>";
      if (!*more) return "";
    }
  }
  // True when the server closed the connection (EOF or reset).
  bool Closed() {
    char c;
    auto r = socket_->ReadSome(&c, 1, net::DeadlineAfter(seconds(30)));
    return !r.ok() ? r.status().code() == util::StatusCode::kUnavailable : *r == 0;
  }

 private:
  std::unique_ptr<net::Socket> socket_;
  std::unique_ptr<net::MessageReader> reader_;
  std::string pending_;
};

std::string PostPod(const std::string& name, bool close = false) {
  std::string body = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                     R"("},"spec":{"containers":[{"name":"c","image":"pause"}]}})";
  return "POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n"
         "Content-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + (close ? "\r\nConnection: close" : "") + "\r\n\r\n" +
         body;
}

TEST_F(ServerTest, KeepAliveAndPipelinedRequestsOnOneConnection) {
  RawConnection c(server_->port());
  // Three requests in one write: answered in order on the same connection.
  ASSERT_TRUE(c.Send(PostPod("a") + "GET /api/v1/namespaces/default/pods/a HTTP/1.1\r\n\r\n" +
                     "GET /api/v1/namespaces/default/pods/missing HTTP/1.1\r\n\r\n"));
  auto created = c.Read("POST");
  EXPECT_EQ(created.status, 201);
  EXPECT_EQ(created.headers.GetOr("Content-Type"), "application/json");
  auto got = c.Read();
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(json::parse(got.body)["metadata"]["name"], "a");
  auto missing = c.Read();
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(json::parse(missing.body)["reason"], "NotFound");
  // Connection: close is honoured after the response.
  ASSERT_TRUE(c.Send(PostPod("b", /*close=*/true)));
  auto last = c.Read("POST");
  EXPECT_EQ(last.status, 201);
  EXPECT_EQ(last.headers.GetOr("Connection"), "close");
  EXPECT_TRUE(c.Closed());
}

TEST_F(ServerTest, ChunkedRequestBodiesAndExpectContinue) {
  RawConnection c(server_->port());
  std::string pod = Pod("chunked").dump();
  std::string chunks;
  net::AppendChunk(pod.substr(0, 10), &chunks);
  net::AppendChunk(pod.substr(10), &chunks);
  chunks += net::kLastChunk;
  ASSERT_TRUE(c.Send("POST /api/v1/namespaces/default/pods HTTP/1.1\r\n"
                     "Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n" +
                     chunks));
  EXPECT_EQ(c.Read("POST").status, 201);
  // curl's Expect: 100-continue: the interim response comes before the body.
  std::string pod2 = Pod("expect").dump();
  ASSERT_TRUE(c.Send("POST /api/v1/namespaces/default/pods HTTP/1.1\r\nExpect: 100-continue\r\n"
                     "Content-Length: " + std::to_string(pod2.size()) + "\r\n\r\n"));
  EXPECT_EQ(c.Read().status, 100);
  ASSERT_TRUE(c.Send(pod2));
  EXPECT_EQ(c.Read("POST").status, 201);
  EXPECT_EQ(Do(methods::GET, "/api/v1/namespaces/default/pods/expect").code, 200);
}

TEST_F(ServerTest, MalformedHeadsAre400AndOversizedHeads431) {
  {
    RawConnection c(server_->port());
    ASSERT_TRUE(c.Send("GET /healthz HTTP/1.1\r\nBad Header\r\n\r\n"));
    auto r = c.Read();
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(json::parse(r.body)["reason"], "BadRequest");
    EXPECT_TRUE(c.Closed());
  }
  {
    RawConnection c(server_->port());
    ASSERT_TRUE(c.Send("GET /healthz HTTP/1.1\r\nX-Big: " + std::string(100 * 1024, 'x') +
                       "\r\n\r\n"));
    EXPECT_EQ(c.Read().status, 431);
  }
  {
    RawConnection c(server_->port());
    ASSERT_TRUE(c.Send("POST /api/v1/namespaces/default/pods HTTP/1.1\r\n"
                       "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"));
    EXPECT_EQ(c.Read().status, 400);
  }
  {
    // Announced far over the limit: refused before the body is sent.
    RawConnection c(server_->port());
    ASSERT_TRUE(c.Send("POST /api/v1/namespaces/default/pods HTTP/1.1\r\n"
                       "Content-Length: 999999999999\r\n\r\n"));
    auto r = c.Read();
    EXPECT_EQ(r.status, 413);
    EXPECT_EQ(json::parse(r.body)["reason"], "RequestEntityTooLarge");
  }
  {
    // A bad escape in the path answers 400 and keeps the connection.
    RawConnection c(server_->port());
    ASSERT_TRUE(c.Send("GET /api/v1/namespaces/%zz/pods HTTP/1.1\r\n\r\n"
                       "GET /healthz HTTP/1.1\r\n\r\n"));
    EXPECT_EQ(c.Read().status, 400);
    EXPECT_EQ(c.Read().status, 200);
  }
  EXPECT_EQ(Do(methods::GET, "/healthz").code, 200);
}

TEST_F(ServerTest, HeadRequestsGetNoBody) {
  RawConnection c(server_->port());
  ASSERT_TRUE(c.Send("HEAD /healthz HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n"));
  auto head = c.Read("HEAD");
  EXPECT_NE(head.status, 0);
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(c.Read().status, 200);  // still in step
}

TEST_F(ServerTest, WatchStreamOnARawConnectionThenKeepAlive) {
  ASSERT_EQ(CreatePod("a").code, 201);
  RawConnection c(server_->port());
  ASSERT_TRUE(c.Send("GET /api/v1/namespaces/default/pods?watch=1&timeoutSeconds=5 HTTP/1.1\r\n"
                     "\r\n"));
  net::ResponseHead head;
  ASSERT_EQ(c.ReadHead(&head), 200);
  EXPECT_TRUE(head.headers.HasToken("Transfer-Encoding", "chunked"));
  EXPECT_EQ(head.headers.GetOr("Content-Type"), "application/json");
  EXPECT_EQ(json::parse(c.NextLine())["object"]["metadata"]["name"], "a");
  ASSERT_EQ(CreatePod("b").code, 201);
  EXPECT_EQ(json::parse(c.NextLine())["object"]["metadata"]["name"], "b");
  // timeoutSeconds runs on the handler's (fake) clock: the stream ends with
  // the last chunk and the connection serves the next request.
  clock_.Step(seconds(5));
  EXPECT_EQ(c.NextLine(), "");
  ASSERT_TRUE(c.Send("GET /healthz HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(c.Read().status, 200);
}

// Stop() with an idle keep-alive connection, a connection in the middle of a
// request head and open watch streams: it ends them all, unregisters every
// watcher and returns, after which the handler can go.
TEST(ServerShutdownTest, StopEndsWatchesAndConnectionsThenTheHandlerCanGo) {
  util::FakeClock clock;
  auto handler = std::make_unique<ApiHandler>(ServerOptions{}, clock);
  HttpServerOptions options;
  options.port = 0;
  auto server = std::make_unique<HttpServer>(*handler, options);
  ASSERT_TRUE(server->Start().ok());
  RawConnection idle(server->port());
  ASSERT_TRUE(idle.Send("GET /healthz HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(idle.Read().status, 200);
  RawConnection partial(server->port());
  ASSERT_TRUE(partial.Send("GET /healthz HTTP/1.1\r\nHost:"));
  std::vector<std::unique_ptr<RawConnection>> watches;
  for (int i = 0; i < 3; ++i) {
    watches.push_back(std::make_unique<RawConnection>(server->port()));
    ASSERT_TRUE(watches.back()->Send("GET /api/v1/pods?watch=1 HTTP/1.1\r\n\r\n"));
    net::ResponseHead head;
    ASSERT_EQ(watches.back()->ReadHead(&head), 200);
  }
  ObjectStore& pods = *handler->store("pods");
  EXPECT_EQ(pods.watcher_count(), 3u);
  server->Stop();
  EXPECT_EQ(pods.watcher_count(), 0u);
  for (auto& w : watches) {
    std::string line = w->NextLine();
    EXPECT_TRUE(line.empty() || line == "<error>") << line;
  }
  EXPECT_TRUE(idle.Closed());
  EXPECT_TRUE(partial.Closed());
  // Nothing of the server touches the handler any more (ASan checks this).
  handler->Shutdown();
  handler.reset();
  server->Stop();  // idempotent
  server.reset();
  // The port no longer accepts.
}

TEST(ServerShutdownTest, StopInterruptsInjectedLatency) {
  util::FakeClock clock;
  ApiHandler handler(ServerOptions{}, clock);
  HttpServerOptions options;
  options.port = 0;
  options.fault_latency = std::chrono::minutes(10);
  HttpServer server(handler, options);
  ASSERT_TRUE(server.Start().ok());
  RawConnection c(server.port());
  ASSERT_TRUE(c.Send("GET /healthz HTTP/1.1\r\n\r\n"));
  auto start = std::chrono::steady_clock::now();
  server.Stop();
  // Far less than the 10-minute latency: Stop() did not wait it out.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::minutes(1));
  EXPECT_TRUE(c.Closed());
  handler.Shutdown();
}

TEST(ServerShutdownTest, InjectedLatencyDelaysEachRequest) {
  util::FakeClock clock;
  ApiHandler handler(ServerOptions{}, clock);
  HttpServerOptions options;
  options.port = 0;
  options.fault_latency = std::chrono::milliseconds(50);
  HttpServer server(handler, options);
  ASSERT_TRUE(server.Start().ok());
  RawConnection c(server.port());
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(c.Send("GET /healthz HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(c.Read().status, 200);
  EXPECT_EQ(c.Read().status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
  server.Stop();
  handler.Shutdown();
}

TEST(ServerShutdownTest, StartFailsOnATakenPort) {
  util::FakeClock clock;
  ApiHandler handler(ServerOptions{}, clock);
  HttpServerOptions options;
  options.port = 0;
  HttpServer first(handler, options);
  ASSERT_TRUE(first.Start().ok());
  options.port = first.port();
  HttpServer second(handler, options);
  util::Status st = second.Start();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot listen"), std::string::npos) << st.message();
  second.Stop();
  first.Stop();
  handler.Shutdown();
}

// Writers send events straight to a watcher's socket while it takes them;
// a watcher that stops reading for a while gets the rest from its own
// connection thread once the socket is full. Either way it receives every
// event, once, in resourceVersion order, and stays connected.
TEST_F(ServerTest, AWatcherPausedPastTheSocketBuffersGetsEveryEventInOrder) {
  RawConnection watcher(server_->port());
  ASSERT_TRUE(watcher.Send("GET /api/v1/pods?watch=1&resourceVersion=" + Rv() +
                           " HTTP/1.1\r\nHost: x\r\n\r\n"));
  net::ResponseHead head;
  ASSERT_EQ(watcher.ReadHead(&head), 200);
  // ~24 MB of events while the watcher reads nothing: far past the
  // loopback socket buffers.
  constexpr int kThreads = 3, kPerThread = 100;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        EXPECT_EQ(CreatePod("t" + std::to_string(t) + "-" + std::to_string(i), 80000).code, 201);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<std::string> names;
  uint64_t last_rv = 0;
  for (int n = 0; n < kThreads * kPerThread; ++n) {
    std::string line = watcher.NextLine();
    ASSERT_FALSE(line.empty() || line == "<error>") << "after " << n << " events";
    json e = json::parse(line);
    EXPECT_EQ(e["type"], "ADDED");
    uint64_t rv = std::stoull(e["object"]["metadata"]["resourceVersion"].get<std::string>());
    EXPECT_GT(rv, last_rv);
    last_rv = rv;
    EXPECT_TRUE(names.insert(e["object"]["metadata"]["name"].get<std::string>()).second);
  }
  EXPECT_EQ(handler_.store("pods")->watcher_count(), 1u);
  // And the stream goes on.
  ASSERT_EQ(CreatePod("after").code, 201);
  json e = json::parse(watcher.NextLine());
  EXPECT_EQ(e["object"]["metadata"]["name"], "after");
}

}  // namespace
}  // namespace ksched::apiserver
