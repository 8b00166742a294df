#include "pkg/client/rest_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include "pkg/client/test_server.h"
#include "pkg/net/stream.h"

namespace ksched::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::RecordedRequest;
using testing::StreamingServer;
using testing::Reply;
using testing::TestServer;

std::string StatusBody(int code, const std::string& reason, const std::string& message) {
  return nlohmann::json{{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                        {"code", code},     {"reason", reason},  {"message", message}}
      .dump();
}

// A client for `url` with no rate limit, no jitter and a fake clock that the
// retry observer advances, so backoff never waits in real time.
struct Harness {
  explicit Harness(const std::string& url, RestConfig config = {}, RestClientOptions options = {}) {
    config.host = url;
    if (config.qps == RestConfig{}.qps) config.qps = 0;
    options.retry.jitter = 0;
    options.jitter_seed = 1;
    options.observer.on_retry = [this](const Request&, int, util::Duration wait, const util::Status&) {
      std::lock_guard<std::mutex> l(mu);
      retry_waits.push_back(wait);
      clock.Step(wait);
    };
    options.observer.on_attempt_done = [this](std::string_view, int code, util::Duration) {
      std::lock_guard<std::mutex> l(mu);
      attempt_codes.push_back(code);
    };
    util::StatusOr<std::unique_ptr<RestClient>> c = RestClient::Create(config, clock, options);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (c.ok()) client = std::move(c).value();
  }

  util::FakeClock clock;
  std::unique_ptr<RestClient> client;
  std::mutex mu;
  std::vector<util::Duration> retry_waits;
  std::vector<int> attempt_codes;
};

// Stream hands the 2xx body over in pieces as it arrives; their
// concatenation is the body.
TEST(RestClientTest, StreamHandsOverTheWholeBody) {
  std::string big(1 << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 97) big[i] = static_cast<char>('a' + i % 26);
  TestServer server([&big](const RecordedRequest&) { return Reply{200, big}; });
  Harness h(server.url());
  Request r;
  r.path = "/api/v1/pods";
  std::string got;
  size_t pieces = 0;
  util::Status s = h.client->Stream(r, [&](std::string_view bytes) {
    ++pieces;
    got.append(bytes);
    return util::Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(got, big);
  EXPECT_GT(pieces, 1u);
}

TEST(RestClientTest, StreamMapsErrorsAndEndsWithTheConsumersError) {
  TestServer server([](const RecordedRequest& r) {
    if (r.path == "/api/v1/nodes") return Reply{404, StatusBody(404, "NotFound", "nodes not found")};
    return Reply{200, R"({"items":[]})"};
  });
  Harness h(server.url());
  Request r;
  r.path = "/api/v1/nodes";
  bool called = false;
  util::Status missing = h.client->Stream(r, [&](std::string_view) {
    called = true;
    return util::Status::Ok();
  });
  EXPECT_EQ(missing.code(), util::StatusCode::kNotFound) << missing.ToString();
  EXPECT_FALSE(called);
  r.path = "/api/v1/pods";
  util::Status refused = h.client->Stream(r, [](std::string_view) { return util::Internal("not a list"); });
  EXPECT_EQ(refused.code(), util::StatusCode::kInternal);
  EXPECT_EQ(refused.message(), "not a list");
}

TEST(RestClientTest, GetSendsHeadersAndEncodedQuery) {
  TestServer server([](const RecordedRequest&) { return Reply{200, R"({"kind":"Pod","metadata":{"name":"p"}})"}; });
  RestConfig config;
  config.bearer_token = "secret-token";
  Harness h(server.url(), config);
  util::StatusOr<nlohmann::json> got =
      h.client->Get("/api/v1/pods", {{"fieldSelector", "status.phase!=Succeeded,status.phase!=Failed"},
                                     {"labelSelector", "app in (a, b),tier=web"}});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["metadata"]["name"], "p");

  ASSERT_EQ(server.request_count(), 1u);
  RecordedRequest req = server.requests()[0];
  EXPECT_EQ(req.method, "GET");
  EXPECT_EQ(req.path, "/api/v1/pods");
  EXPECT_EQ(req.query["fieldSelector"], "status.phase!=Succeeded,status.phase!=Failed");
  EXPECT_EQ(req.query["labelSelector"], "app in (a, b),tier=web");
  EXPECT_EQ(req.headers["authorization"], "Bearer secret-token");
  EXPECT_EQ(req.headers["accept"], "application/json");
  EXPECT_EQ(req.headers["user-agent"], std::string("ksched/") + KSCHED_VERSION + " (linux/amd64)");
  EXPECT_EQ(h.client->user_agent(), req.headers["user-agent"]);
}

TEST(RestClientTest, BasicAuthCustomUserAgentAndServerPathPrefix) {
  TestServer server([](const RecordedRequest&) { return Reply{200, "{}"}; });
  RestConfig config;
  config.username = "admin";
  config.password = "secret";
  config.user_agent = "custom/1.0";
  Harness h(server.url() + "/prefix/", config);
  EXPECT_EQ(h.client->server_url(), server.url() + "/prefix");
  ASSERT_TRUE(h.client->Get("/api/v1/nodes").ok());
  RecordedRequest req = server.requests()[0];
  EXPECT_EQ(req.path, "/prefix/api/v1/nodes");
  EXPECT_EQ(req.headers["authorization"], "Basic YWRtaW46c2VjcmV0");
  EXPECT_EQ(req.headers["user-agent"], "custom/1.0");
}

TEST(RestClientTest, BodiesAndContentTypes) {
  TestServer server([](const RecordedRequest& r) { return Reply{r.method == "DELETE" ? 200 : 201, r.body}; });
  Harness h(server.url());
  nlohmann::json obj = {{"kind", "Binding"}, {"target", {{"kind", "Node"}, {"name", "n1"}}}};
  util::StatusOr<nlohmann::json> posted = h.client->Post("/api/v1/namespaces/d/pods/p/binding", obj);
  ASSERT_TRUE(posted.ok()) << posted.status().ToString();
  EXPECT_EQ(*posted, obj);
  nlohmann::json patch = {{"status", {{"nominatedNodeName", "n1"}}}};
  ASSERT_TRUE(h.client->Patch("/api/v1/namespaces/d/pods/p/status", PatchType::kStrategicMerge, patch).ok());
  ASSERT_TRUE(h.client->Patch("/x", PatchType::kJsonMerge, patch).ok());
  ASSERT_TRUE(h.client->Put("/y", obj).ok());
  ASSERT_TRUE(h.client->Delete("/z", {{"gracePeriodSeconds", 0}}).ok());

  std::vector<RecordedRequest> reqs = server.requests();
  ASSERT_EQ(reqs.size(), 5u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].headers["content-type"], "application/json");
  EXPECT_EQ(nlohmann::json::parse(reqs[0].body), obj);
  EXPECT_EQ(reqs[1].method, "PATCH");
  EXPECT_EQ(reqs[1].headers["content-type"], "application/strategic-merge-patch+json");
  EXPECT_EQ(reqs[2].headers["content-type"], "application/merge-patch+json");
  EXPECT_EQ(reqs[3].method, "PUT");
  EXPECT_EQ(reqs[4].method, "DELETE");
  EXPECT_EQ(nlohmann::json::parse(reqs[4].body)["gracePeriodSeconds"], 0);
}

TEST(RestClientTest, MapsApiErrorsWithoutRetrying) {
  struct Case {
    int code;
    std::string reason;
    util::StatusCode want;
  };
  std::vector<Case> cases = {{404, "NotFound", util::StatusCode::kNotFound},
                             {409, "Conflict", util::StatusCode::kConflict},
                             {409, "AlreadyExists", util::StatusCode::kAlreadyExists},
                             {410, "Expired", util::StatusCode::kGone},
                             {422, "Invalid", util::StatusCode::kInvalidArgument},
                             {403, "Forbidden", util::StatusCode::kInternal}};
  for (const Case& c : cases) {
    TestServer server([&](const RecordedRequest&) { return Reply{c.code, StatusBody(c.code, c.reason, "why " + c.reason)}; });
    Harness h(server.url());
    util::StatusOr<nlohmann::json> got = h.client->Get("/api/v1/namespaces/d/pods/p");
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), c.want) << c.code << " " << c.reason;
    EXPECT_EQ(got.status().message(), "GET /api/v1/namespaces/d/pods/p: " + std::to_string(c.code) + " " +
                                          c.reason + ": why " + c.reason);
    EXPECT_EQ(server.request_count(), 1u);
  }
}

// Answers `failures` times with `code` (and Retry-After when given), then 200.
TestServer::ReplyFn FailThenSucceed(int failures, int code, std::string retry_after = "") {
  auto count = std::make_shared<std::atomic<int>>(0);
  return [=](const RecordedRequest&) {
    if (count->fetch_add(1) < failures) {
      Reply r{code, StatusBody(code, "", "try again")};
      if (!retry_after.empty()) r.headers["Retry-After"] = retry_after;
      return r;
    }
    return Reply{200, R"({"ok":true})"};
  };
}

TEST(RestClientTest, Retries5xxWithExponentialBackoffOnTheClock) {
  TestServer server(FailThenSucceed(3, 500));
  Harness h(server.url());
  util::TimePoint start = h.clock.Now();
  util::StatusOr<nlohmann::json> got = h.client->Get("/api/v1/nodes");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_EQ(h.retry_waits, (std::vector<util::Duration>{milliseconds(100), milliseconds(200), milliseconds(400)}));
  EXPECT_EQ(h.attempt_codes, (std::vector<int>{500, 500, 500, 200}));
  EXPECT_EQ(h.clock.Now() - start, milliseconds(700));
}

TEST(RestClientTest, Honours429RetryAfterEvenForPost) {
  TestServer server(FailThenSucceed(2, 429, "3"));
  Harness h(server.url());
  util::StatusOr<nlohmann::json> got = h.client->Post("/api/v1/namespaces/d/pods/p/binding", nlohmann::json::object());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(h.retry_waits, (std::vector<util::Duration>{seconds(3), seconds(3)}));
}

TEST(RestClientTest, DoesNotRetryNonIdempotentCallsOn5xx) {
  TestServer server(FailThenSucceed(1, 503));
  Harness h(server.url());
  util::StatusOr<nlohmann::json> got = h.client->Post("/api/v1/namespaces/d/pods/p/binding", nlohmann::json::object());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), util::StatusCode::kUnavailable);
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_TRUE(h.retry_waits.empty());
}

TEST(RestClientTest, GivesUpAfterMaxRetries) {
  TestServer server(FailThenSucceed(1000, 503));
  RestClientOptions options;
  options.retry.max_retries = 3;
  Harness h(server.url(), RestConfig{}, options);
  util::StatusOr<nlohmann::json> got = h.client->Get("/api/v1/nodes");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), util::StatusCode::kUnavailable);
  EXPECT_NE(got.status().message().find("(after 3 retries)"), std::string::npos) << got.status().message();
  EXPECT_EQ(server.request_count(), 4u);
}

TEST(RestClientTest, DefaultPolicyRetriesTenTimes) {
  TestServer server(FailThenSucceed(1000, 500));
  Harness h(server.url());
  EXPECT_FALSE(h.client->Get("/api/v1/nodes").ok());
  EXPECT_EQ(server.request_count(), 11u);
  EXPECT_EQ(h.retry_waits.back(), seconds(10));  // capped at max_backoff
}

TEST(RestClientTest, RetriesConnectionRefusedForEveryVerb) {
  int port = testing::FreeLoopbackPort();  // nothing listens there
  RestClientOptions options;
  options.retry.max_retries = 2;
  Harness h("http://127.0.0.1:" + std::to_string(port), RestConfig{}, options);
  util::StatusOr<nlohmann::json> got = h.client->Post("/api/v1/namespaces/d/events", nlohmann::json::object());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), util::StatusCode::kUnavailable);
  EXPECT_NE(got.status().message().find("cannot connect"), std::string::npos) << got.status().message();
  EXPECT_EQ(h.attempt_codes, (std::vector<int>{0, 0, 0}));
}

TEST(RestClientTest, RateLimiterThrottlesThroughTheClock) {
  TestServer server([](const RecordedRequest&) { return Reply{200, "{}"}; });
  RestConfig config;
  config.qps = 10;
  config.burst = 2;
  std::vector<util::Duration> waits;
  util::FakeClock* clock = nullptr;
  RestClientOptions options;
  options.observer.on_rate_limiter_wait = [&](util::Duration d) {
    waits.push_back(d);
    clock->Step(d);
  };
  Harness h(server.url(), config, options);
  clock = &h.clock;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(h.client->Get("/api/v1/nodes").ok());
  // Two from the burst, then one token per 100ms.
  EXPECT_EQ(waits, (std::vector<util::Duration>{milliseconds(100), milliseconds(100), milliseconds(100)}));
  EXPECT_EQ(server.request_count(), 5u);
}

TEST(RestClientTest, NoLimiterWhenQpsIsZero) {
  TestServer server([](const RecordedRequest&) { return Reply{200, "{}"}; });
  RestConfig config;
  config.qps = 0;
  config.burst = 1;
  int waits = 0;
  RestClientOptions options;
  options.observer.on_rate_limiter_wait = [&](util::Duration) { ++waits; };
  Harness h(server.url(), config, options);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(h.client->Get("/api/v1/nodes").ok());
  EXPECT_EQ(waits, 0);
}

// Holds every request unanswered until Release(); replies 200 then.
struct HeldRequests {
  std::mutex mu;
  std::vector<web::http::http_request> held;
  TestServer::RawHandler Handler() {
    return [this](web::http::http_request req, const RecordedRequest&) {
      std::lock_guard<std::mutex> l(mu);
      held.push_back(std::move(req));
    };
  }
  void Release() {
    std::lock_guard<std::mutex> l(mu);
    for (auto& r : held) {
      try {
        r.reply(web::http::status_codes::OK, "{}").wait();
      } catch (const std::exception&) {
        // The client gave up and closed the connection: nothing to answer.
      }
    }
    held.clear();
  }
};

TEST(RestClientTest, PerRequestTimeoutIsDeadlineExceededAndNotRetried) {
  HeldRequests held;
  TestServer server(held.Handler());
  Harness h(server.url());
  Request r;
  r.path = "/api/v1/nodes";
  r.timeout = milliseconds(200);
  util::StatusOr<Response> got = h.client->Do(r);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), util::StatusCode::kDeadlineExceeded) << got.status().ToString();
  EXPECT_EQ(server.request_count(), 1u);
  held.Release();
}

TEST(RestClientTest, StopCancelsAnInFlightRequest) {
  HeldRequests held;
  TestServer server(held.Handler());
  Harness h(server.url());
  std::stop_source stop;
  auto result = std::async(std::launch::async, [&] { return h.client->Get("/api/v1/nodes", {}, stop.get_token()); });
  server.WaitForRequests(1);
  stop.request_stop();
  util::StatusOr<nlohmann::json> got = result.get();
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), util::StatusCode::kCancelled);
  held.Release();
}

TEST(RestClientTest, StopEndsTheBackoffWait) {
  TestServer server(FailThenSucceed(1000, 503));
  std::stop_source stop;
  util::FakeClock clock;
  RestConfig config;
  config.host = server.url();
  config.qps = 0;
  RestClientOptions options;
  options.observer.on_retry = [&](const Request&, int, util::Duration, const util::Status&) { stop.request_stop(); };
  std::unique_ptr<RestClient> client = std::move(RestClient::Create(config, clock, options)).value();
  util::StatusOr<nlohmann::json> got = client->Get("/api/v1/nodes", {}, stop.get_token());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), util::StatusCode::kCancelled);
  EXPECT_EQ(server.request_count(), 1u);
}

// A client on a fake clock that never moves, so a retry wait can only end
// by a stop; `on_retry` runs as each wait begins.
std::unique_ptr<RestClient> ClientOnAStillClock(const std::string& url, util::FakeClock& clock,
                                                std::function<void()> on_retry) {
  RestConfig config;
  config.host = url;
  config.qps = 0;
  RestClientOptions options;
  options.observer.on_retry = [on_retry](const Request&, int, util::Duration, const util::Status&) { on_retry(); };
  return std::move(RestClient::Create(config, clock, options)).value();
}

// A view's cancel token ends the retry wait at once, from another thread,
// on a clock that never moves: nothing else could end it.
TEST(RestClientViewTest, CancelEndsTheRetryWaitAtOnce) {
  TestServer server(FailThenSucceed(1000, 503));
  util::FakeClock clock;
  std::promise<void> waiting;
  std::once_flag once;
  std::unique_ptr<RestClient> base =
      ClientOnAStillClock(server.url(), clock, [&] { std::call_once(once, [&] { waiting.set_value(); }); });
  std::stop_source shutdown;
  std::unique_ptr<RestClient> view = base->WithStops({.cancel = shutdown.get_token()});
  auto result = std::async(std::launch::async, [&] { return view->Get("/api/v1/nodes"); });
  waiting.get_future().wait();
  const util::TimePoint before = clock.Now();
  shutdown.request_stop();
  util::StatusOr<nlohmann::json> got = result.get();
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), util::StatusCode::kCancelled) << got.status().ToString();
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ(clock.Now(), before);
}

// no_retry ends the retry wait at once too, but the call returns its last
// error (the attempt it made stands), not kCancelled.
TEST(RestClientViewTest, NoRetryEndsTheRetryWaitWithTheLastError) {
  TestServer server(FailThenSucceed(1000, 503));
  util::FakeClock clock;
  std::promise<void> waiting;
  std::once_flag once;
  std::unique_ptr<RestClient> base =
      ClientOnAStillClock(server.url(), clock, [&] { std::call_once(once, [&] { waiting.set_value(); }); });
  std::stop_source shutdown;
  std::unique_ptr<RestClient> view = base->WithStops({.no_retry = shutdown.get_token()});
  auto result = std::async(std::launch::async, [&] { return view->Get("/api/v1/nodes"); });
  waiting.get_future().wait();
  shutdown.request_stop();
  util::StatusOr<nlohmann::json> got = result.get();
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), util::StatusCode::kUnavailable) << got.status().ToString();
  EXPECT_NE(got.status().message().find("not retried"), std::string::npos) << got.status().message();
  EXPECT_EQ(server.request_count(), 1u);
}

// After no_retry, a call still makes its first attempt (a binding in the
// drain), and only that one.
TEST(RestClientViewTest, NoRetryStillSendsTheFirstAttemptOnly) {
  TestServer server(FailThenSucceed(1, 429, "1"));
  util::FakeClock clock;
  std::unique_ptr<RestClient> base = ClientOnAStillClock(server.url(), clock, [] {});
  std::stop_source shutdown;
  shutdown.request_stop();
  std::unique_ptr<RestClient> view = base->WithStops({.no_retry = shutdown.get_token()});
  util::StatusOr<nlohmann::json> got = view->Post("/api/v1/namespaces/d/pods/p/binding", nlohmann::json::object());
  EXPECT_EQ(got.status().code(), util::StatusCode::kUnavailable) << got.status().ToString();
  EXPECT_EQ(server.request_count(), 1u);
  got = view->Post("/api/v1/namespaces/d/pods/p/binding", nlohmann::json::object());
  EXPECT_TRUE(got.ok()) << got.status().ToString();
}

// Views of views add up their stops; a view's stop leaves its parent alone.
TEST(RestClientViewTest, ViewsOfViewsCancelOnEitherStop) {
  TestServer server([](const RecordedRequest&) { return Reply{200, "{}"}; });
  util::FakeClock clock;
  std::unique_ptr<RestClient> base = ClientOnAStillClock(server.url(), clock, [] {});
  std::stop_source gate, shutdown;
  std::unique_ptr<RestClient> view =
      base->WithStops({.cancel = gate.get_token()})->WithStops({.cancel = shutdown.get_token()});
  EXPECT_TRUE(view->Get("/api/v1/nodes").ok());
  gate.request_stop();
  EXPECT_EQ(view->Get("/api/v1/nodes").status().code(), util::StatusCode::kCancelled);
  EXPECT_TRUE(base->Get("/api/v1/nodes").ok());
  EXPECT_EQ(server.request_count(), 2u);
}

// may_send is asked before every attempt: a fenced view sends nothing, and a
// call whose fence closes during its retry wait ends unsent (kCancelled)
// instead of retrying (a write that passed its gate, then waited past the
// leader's tenure).
TEST(RestClientViewTest, MaySendIsAskedBeforeEveryAttemptRetriesIncluded) {
  TestServer server(FailThenSucceed(1, 429, "1"));
  util::FakeClock clock;
  std::unique_ptr<RestClient> base =
      ClientOnAStillClock(server.url(), clock, [&] { clock.Step(std::chrono::seconds(2)); });
  std::unique_ptr<RestClient> fenced = base->WithStops({.may_send = [] { return false; }});
  util::StatusOr<nlohmann::json> got = fenced->Post("/api/v1/namespaces/d/pods/p/binding", nlohmann::json::object());
  EXPECT_EQ(got.status().code(), util::StatusCode::kCancelled) << got.status().ToString();
  EXPECT_EQ(server.request_count(), 0u);

  std::atomic<int> asked{0};
  std::unique_ptr<RestClient> view =
      base->WithStops({.may_send = [&] { return asked.fetch_add(1) == 0; }})->WithStops({});
  got = view->Post("/api/v1/namespaces/d/pods/p/binding", nlohmann::json::object());
  EXPECT_EQ(got.status().code(), util::StatusCode::kCancelled) << got.status().ToString();
  EXPECT_EQ(server.request_count(), 1u);  // the 429; its retry was not sent
  EXPECT_EQ(asked.load(), 2);
  EXPECT_TRUE(base->Post("/api/v1/namespaces/d/pods/p/binding", nlohmann::json::object()).ok());
}

nlohmann::json Item(const std::string& name) { return {{"metadata", {{"name", name}}}}; }

TEST(RestClientTest, ListFollowsContinueTokens) {
  TestServer server([](const RecordedRequest& r) {
    nlohmann::json page = {{"kind", "PodList"}, {"metadata", {{"resourceVersion", "100"}}}};
    auto cont = r.query.find("continue");
    if (cont == r.query.end()) {
      page["items"] = {Item("a"), Item("b")};
      page["metadata"]["continue"] = "c1";
    } else if (cont->second == "c1") {
      page["items"] = {Item("c"), Item("d")};
      page["metadata"]["continue"] = "c2";
    } else {
      page["items"] = {Item("e")};
    }
    return Reply{200, page.dump()};
  });
  Harness h(server.url());
  ListOptions opts;
  opts.limit = 2;
  opts.resource_version = "0";
  opts.label_selector = "app=web";
  util::StatusOr<RawList> list = h.client->List("/api/v1/pods", opts);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->resource_version, "100");
  ASSERT_EQ(list->items.size(), 5u);
  EXPECT_EQ(list->items[4]["metadata"]["name"], "e");

  std::vector<RecordedRequest> reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].query["limit"], "2");
  EXPECT_EQ(reqs[0].query["resourceVersion"], "0");
  EXPECT_EQ(reqs[0].query.count("continue"), 0u);
  EXPECT_EQ(reqs[1].query["continue"], "c1");
  EXPECT_EQ(reqs[1].query.count("resourceVersion"), 0u);
  EXPECT_EQ(reqs[2].query["continue"], "c2");
  EXPECT_EQ(reqs[2].query["labelSelector"], "app=web");
}

TEST(RestClientTest, ListFallsBackToFullListWhenContinueExpires) {
  TestServer server([](const RecordedRequest& r) {
    if (r.query.count("continue")) return Reply{410, StatusBody(410, "Expired", "continue token expired")};
    nlohmann::json page = {{"metadata", {{"resourceVersion", "7"}}}};
    if (r.query.count("limit")) {
      page["items"] = {Item("a")};
      page["metadata"]["continue"] = "c1";
    } else {
      page["items"] = {Item("a"), Item("b"), Item("c")};
    }
    return Reply{200, page.dump()};
  });
  Harness h(server.url());
  ListOptions opts;
  opts.limit = 1;
  util::StatusOr<RawList> list = h.client->List("/api/v1/nodes", opts);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->items.size(), 3u);
  EXPECT_EQ(list->resource_version, "7");
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(RestClientTest, ListRejectsNonListBodies) {
  TestServer server([](const RecordedRequest&) { return Reply{200, R"({"items":"nope"})"}; });
  Harness h(server.url());
  util::StatusOr<RawList> list = h.client->List("/api/v1/nodes", {});
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("not an array"), std::string::npos);
}

// Collects sink calls and lets the test wait for a number of them.
struct EventLog {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<WatchEvent> events;
  std::vector<util::Status> errors;

  WatchEventSink Sink() {
    return [this](util::StatusOr<WatchEvent> e) {
      std::lock_guard<std::mutex> l(mu);
      if (e.ok()) {
        events.push_back(std::move(e).value());
      } else {
        errors.push_back(e.status());
      }
      cv.notify_all();
    };
  }
  // Bounded so that a client that does not decode incrementally fails the
  // test instead of hanging it.
  bool WaitForEvents(size_t n) {
    std::unique_lock<std::mutex> l(mu);
    return cv.wait_for(l, seconds(10), [&] { return events.size() >= n; });
  }
};

std::string EventLine(const std::string& type, const std::string& name, const std::string& rv) {
  return nlohmann::json{{"type", type},
                        {"object", {{"kind", "Pod"}, {"metadata", {{"name", name}, {"resourceVersion", rv}}}}}}
             .dump() +
         "\n";
}

TEST(RestClientWatchTest, DecodesEventsAsChunksArrive) {
  StreamingServer stream;
  Harness h(stream.url());
  EventLog log;
  WatchOptions opts;
  opts.resource_version = "5";
  opts.timeout_seconds = 300;
  opts.field_selector = "spec.nodeName=";
  auto result = std::async(std::launch::async, [&] {
    return h.client->Watch("/api/v1/pods", opts, log.Sink(), std::stop_token());
  });
  stream.WaitReplied();

  // Each event must reach the sink before the server sends the next one.
  stream.Write(EventLine("ADDED", "a", "6"));
  ASSERT_TRUE(log.WaitForEvents(1));
  std::string second = EventLine("MODIFIED", "a", "7");
  stream.Write(second.substr(0, 10));
  stream.Write(second.substr(10));
  ASSERT_TRUE(log.WaitForEvents(2));
  stream.Write("this is not json\n" + EventLine("BOOKMARK", "", "8") + EventLine("DELETED", "a", "9"));
  ASSERT_TRUE(log.WaitForEvents(4));
  stream.Close();

  util::Status s = result.get();
  EXPECT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(log.events.size(), 4u);
  EXPECT_EQ(log.events[0].type, "ADDED");
  EXPECT_EQ(log.events[1].type, "MODIFIED");
  EXPECT_EQ(log.events[1].object["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(log.events[2].type, "BOOKMARK");
  EXPECT_EQ(log.events[3].type, "DELETED");
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].code(), util::StatusCode::kInvalidArgument);

  RecordedRequest req = stream.server().requests()[0];
  EXPECT_EQ(req.path, "/api/v1/pods");
  EXPECT_EQ(req.query["watch"], "true");
  EXPECT_EQ(req.query["resourceVersion"], "5");
  EXPECT_EQ(req.query["allowWatchBookmarks"], "true");
  EXPECT_EQ(req.query["timeoutSeconds"], "300");
  EXPECT_EQ(req.query["fieldSelector"], "spec.nodeName=");
}

TEST(RestClientWatchTest, ErrorEventEndsTheWatchWithItsStatus) {
  StreamingServer stream;
  Harness h(stream.url());
  EventLog log;
  auto result = std::async(std::launch::async, [&] {
    return h.client->Watch("/api/v1/nodes", {}, log.Sink(), std::stop_token());
  });
  stream.WaitReplied();
  stream.Write(EventLine("ADDED", "n1", "3") +
               R"json({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired",)json"
               R"json("message":"too old resource version: 1 (3)"}})json"
               "\n");
  util::Status s = result.get();  // returns without waiting for the server to close
  EXPECT_EQ(s.code(), util::StatusCode::kGone);
  EXPECT_NE(s.message().find("too old resource version"), std::string::npos);
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].type, "ADDED");
}

TEST(RestClientWatchTest, GoneResponseIsKGone) {
  TestServer server([](const RecordedRequest&) { return Reply{410, StatusBody(410, "Gone", "too old")}; });
  Harness h(server.url());
  EventLog log;
  util::Status s = h.client->Watch("/api/v1/pods", {}, log.Sink(), std::stop_token());
  EXPECT_EQ(s.code(), util::StatusCode::kGone);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(RestClientWatchTest, StopEndsAnIdleWatch) {
  StreamingServer stream;
  Harness h(stream.url());
  EventLog log;
  std::stop_source stop;
  auto result = std::async(std::launch::async, [&] {
    return h.client->Watch("/api/v1/pods", {}, log.Sink(), stop.get_token());
  });
  stream.WaitReplied();
  stream.Write(EventLine("ADDED", "a", "2"));
  ASSERT_TRUE(log.WaitForEvents(1));
  stop.request_stop();
  util::Status s = result.get();
  EXPECT_EQ(s.code(), util::StatusCode::kCancelled);
}

TEST(RestClientWatchTest, ConnectionLossIsUnavailable) {
  StreamingServer stream;
  Harness h(stream.url());
  EventLog log;
  auto result = std::async(std::launch::async, [&] {
    return h.client->Watch("/api/v1/pods", {}, log.Sink(), std::stop_token());
  });
  stream.WaitReplied();
  stream.Write(EventLine("ADDED", "a", "2"));
  ASSERT_TRUE(log.WaitForEvents(1));
  stream.Fail();
  util::Status s = result.get();
  EXPECT_EQ(s.code(), util::StatusCode::kUnavailable) << s.ToString();
  EXPECT_EQ(log.events.size(), 1u);
}

TEST(RestClientWatchTest, FailedWatchRequestIsRetriedLikeAGet) {
  TestServer server(FailThenSucceed(2, 503));
  Harness h(server.url());
  EventLog log;
  // The final 200 carries {"ok":true} and no newline: one malformed event.
  util::Status s = h.client->Watch("/api/v1/pods", {}, log.Sink(), std::stop_token());
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(log.errors.size(), 1u);
}

// A loopback server whose peer is alive but says nothing: it accepts every
// connection and, with `send_head`, reads the request and answers a chunked
// 200 head, then never another byte.
class SilentServer {
 public:
  explicit SilentServer(bool send_head) : send_head_(send_head) {
    auto listener = net::Listener::Listen("127.0.0.1", 0);
    EXPECT_TRUE(listener.ok()) << listener.status().ToString();
    listener_ = std::move(listener).value();
    thread_ = std::thread([this] { Serve(); });
  }
  ~SilentServer() {
    listener_->Shutdown();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(listener_->port()); }

 private:
  void Serve() {
    for (;;) {
      util::StatusOr<std::unique_ptr<net::Socket>> conn = listener_->Accept();
      if (!conn.ok()) return;
      if (send_head_) {
        std::string request;
        char buf[4096];
        while (request.find("\r\n\r\n") == std::string::npos) {
          util::StatusOr<size_t> got = (*conn)->ReadSome(buf, sizeof(buf), net::DeadlineAfter(seconds(5)));
          if (!got.ok() || *got == 0) break;
          request.append(buf, *got);
        }
        (void)(*conn)->WriteAll("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                "Transfer-Encoding: chunked\r\n\r\n",
                                net::DeadlineAfter(seconds(5)));
      }
      held_.push_back(std::move(conn).value());
    }
  }

  const bool send_head_;
  std::unique_ptr<net::Listener> listener_;
  std::vector<std::unique_ptr<net::Socket>> held_;  // the server thread's only
  std::thread thread_;
};

// Runs a watch against `url`; fails the test (and stops the watch) when it
// has not ended within `bound`.
util::Status WatchWithin(Harness& h, const WatchOptions& opts, std::chrono::milliseconds bound) {
  EventLog log;
  std::stop_source stop;
  auto result = std::async(std::launch::async, [&] {
    return h.client->Watch("/api/v1/pods", opts, log.Sink(), stop.get_token());
  });
  bool ended = result.wait_for(bound) == std::future_status::ready;
  if (!ended) stop.request_stop();
  util::Status s = result.get();
  EXPECT_TRUE(ended) << "the watch was still waiting after " << bound.count() << " ms";
  return s;
}

// Connect, TLS and the response head get the normal request timeout, not the
// watch's (timeoutSeconds + a margin: 6 to 11 minutes).
TEST(RestClientWatchTest, ServerThatNeverAnswersFailsWithinTheRequestTimeout) {
  SilentServer server(/*send_head=*/false);
  RestConfig config;
  config.timeout = milliseconds(200);
  Harness h(server.url(), config);
  WatchOptions opts;
  opts.timeout_seconds = 300;
  auto start = std::chrono::steady_clock::now();
  util::Status s = WatchWithin(h, opts, milliseconds(3000));
  EXPECT_EQ(s.code(), util::StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(200));
}

// With bookmarks asked for, a healthy stream is never silent for long; a
// stream that stalls after its head is given up after watch_bookmark_idle.
TEST(RestClientWatchTest, StreamThatStallsAfterTheHeadFailsWithinTheIdleLimit) {
  SilentServer server(/*send_head=*/true);
  RestConfig config;
  config.timeout = seconds(10);
  RestClientOptions options;
  options.watch_bookmark_idle = milliseconds(300);
  Harness h(server.url(), config, options);
  WatchOptions opts;
  opts.timeout_seconds = 300;
  opts.allow_watch_bookmarks = true;
  util::Status s = WatchWithin(h, opts, milliseconds(3000));
  EXPECT_EQ(s.code(), util::StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_NE(s.message().find("idle"), std::string::npos) << s.ToString();
}

// Without bookmarks the server may rightly stay silent until timeoutSeconds:
// only timeoutSeconds plus the margin bounds the stream.
TEST(RestClientWatchTest, StreamWithoutBookmarksMayStaySilentUntilItsTimeout) {
  SilentServer server(/*send_head=*/true);
  RestClientOptions options;
  options.watch_bookmark_idle = milliseconds(100);
  options.watch_idle_margin = milliseconds(300);
  Harness h(server.url(), {}, options);
  WatchOptions opts;
  opts.timeout_seconds = 1;
  opts.allow_watch_bookmarks = false;
  auto start = std::chrono::steady_clock::now();
  util::Status s = WatchWithin(h, opts, milliseconds(4000));
  EXPECT_EQ(s.code(), util::StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(1300));
}

TEST(RestClientTest, CreateRejectsBadConfigs) {
  util::FakeClock clock;
  RestConfig none;
  EXPECT_FALSE(RestClient::Create(none, clock).ok());
  RestConfig both;
  both.host = "http://127.0.0.1:1";
  both.bearer_token = "t";
  both.username = "u";
  util::StatusOr<std::unique_ptr<RestClient>> c = RestClient::Create(both, clock);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("not both"), std::string::npos);
  RestConfig missing_ca;
  missing_ca.host = "https://127.0.0.1:1";
  missing_ca.ca_file = "/nonexistent/ca.crt";
  util::StatusOr<std::unique_ptr<RestClient>> m = RestClient::Create(missing_ca, clock);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("/nonexistent/ca.crt"), std::string::npos);
}

TEST(RestClientTest, MalformedPathIsInvalidArgumentAndNeverSent) {
  TestServer server([](const RecordedRequest&) { return Reply{200, "{}"}; });
  Harness h(server.url());
  util::StatusOr<nlohmann::json> got = h.client->Get("/api/v1/namespaces/d/pods/bad name{}");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), util::StatusCode::kInvalidArgument) << got.status().ToString();
  EXPECT_EQ(server.request_count(), 0u);
  EXPECT_TRUE(h.retry_waits.empty());
}

TEST(RestClientTest, EncodesQueryComponents) {
  EXPECT_EQ(EncodeQueryComponent("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(EncodeQueryComponent("a=b,c!=d e&f+g/h"), "a%3Db%2Cc%21%3Dd%20e%26f%2Bg%2Fh");
}

}  // namespace
}  // namespace ksched::client
