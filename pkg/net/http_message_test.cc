#include "pkg/net/http_message.h"

#include <gtest/gtest.h>

namespace ksched::net {
namespace {

using State = HeadParse::State;

TEST(HeadersTest, CaseInsensitiveLookupAndTokens) {
  Headers h;
  h.Add("Content-Type", "application/json");
  h.Add("connection", "keep-alive, Upgrade");
  h.Add("X-Multi", "a");
  h.Add("x-multi", "b");
  ASSERT_NE(h.Get("content-type"), nullptr);
  EXPECT_EQ(*h.Get("CONTENT-TYPE"), "application/json");
  EXPECT_EQ(h.GetOr("X-MULTI"), "a");
  EXPECT_EQ(h.GetOr("Missing", "dflt"), "dflt");
  EXPECT_TRUE(h.HasToken("Connection", "upgrade"));
  EXPECT_TRUE(h.HasToken("Connection", "Keep-Alive"));
  EXPECT_FALSE(h.HasToken("Connection", "close"));
  h.Set("X-Multi", "c");
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(h.GetOr("x-multi"), "c");
  h.Remove("CONNECTION");
  EXPECT_FALSE(h.Has("Connection"));
}

TEST(ParseRequestHeadTest, ParsesRequestLineAndFields) {
  std::string wire =
      "\r\nGET /api/v1/pods?watch=1 HTTP/1.1\r\nHost: x\r\nAccept:  application/json \r\n"
      "X-Empty:\r\n\r\nBODY";
  RequestHead head;
  HeadParse p = ParseRequestHead(wire, {}, &head);
  ASSERT_EQ(p.state, State::kComplete) << p.error;
  EXPECT_EQ(wire.substr(p.consumed), "BODY");
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.target, "/api/v1/pods?watch=1");
  EXPECT_EQ(head.version_minor, 1);
  EXPECT_EQ(head.headers.GetOr("accept"), "application/json");
  EXPECT_TRUE(head.headers.Has("x-empty"));
  EXPECT_EQ(head.headers.GetOr("x-empty", "absent"), "");
}

TEST(ParseRequestHeadTest, BareLineFeedsAndHttp10) {
  RequestHead head;
  HeadParse p = ParseRequestHead("POST /x HTTP/1.0\nContent-Length: 3\n\nabc", {}, &head);
  ASSERT_EQ(p.state, State::kComplete) << p.error;
  EXPECT_EQ(p.consumed, 36u);
  EXPECT_EQ(head.version_minor, 0);
  EXPECT_FALSE(KeepAlive(head.version_minor, head.headers));
}

TEST(ParseRequestHeadTest, IncompleteAtEveryPrefix) {
  std::string wire = "PUT /a HTTP/1.1\r\nContent-Length: 2\r\nX: y\r\n\r\n";
  for (size_t n = 0; n < wire.size(); ++n) {
    RequestHead head;
    EXPECT_EQ(ParseRequestHead(std::string_view(wire).substr(0, n), {}, &head).state,
              State::kIncomplete)
        << n;
  }
  RequestHead head;
  EXPECT_EQ(ParseRequestHead(wire, {}, &head).state, State::kComplete);
}

TEST(ParseRequestHeadTest, MalformedHeads) {
  for (std::string bad : {
           "GET /a\r\n\r\n",                        // no version
           "GET  /a HTTP/1.1\r\n\r\n",              // double space
           "GET /a HTTP/2.0\r\n\r\n",               // unsupported version
           "G(T /a HTTP/1.1\r\n\r\n",               // method not a token
           "GET /a HTTP/1.1\r\nNoColon\r\n\r\n",    // field without colon
           "GET /a HTTP/1.1\r\nBad Name: x\r\n\r\n",  // space in name
           "GET /a HTTP/1.1\r\nName : x\r\n\r\n",   // space before colon
           "GET /a HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",  // obs-fold
           "GET /a HTTP/1.1\r\nA: b\x01\r\n\r\n",   // control character
           "GET /a HTTP/1.1\r\nA: b\rc\r\n\r\n",    // bare CR
       }) {
    RequestHead head;
    HeadParse p = ParseRequestHead(bad, {}, &head);
    EXPECT_EQ(p.state, State::kMalformed) << bad;
    EXPECT_FALSE(p.error.empty());
  }
}

TEST(ParseRequestHeadTest, OversizeHeads) {
  HeadLimits limits;
  limits.max_head_bytes = 100;
  limits.max_headers = 3;
  RequestHead head;
  // Complete but too long.
  std::string longer = "GET /a HTTP/1.1\r\nX: " + std::string(100, 'v') + "\r\n\r\n";
  EXPECT_EQ(ParseRequestHead(longer, limits, &head).state, State::kTooLarge);
  // Incomplete and already over the limit: no need to wait for the rest.
  EXPECT_EQ(ParseRequestHead("GET /" + std::string(200, 'a'), limits, &head).state,
            State::kTooLarge);
  // Too many fields.
  HeadParse many = ParseRequestHead("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n",
                                    limits, &head);
  EXPECT_EQ(many.state, State::kTooLarge);
  EXPECT_NE(many.error.find("header fields"), std::string::npos);
}

TEST(ParseResponseHeadTest, StatusLines) {
  ResponseHead head;
  HeadParse p = ParseResponseHead("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", {}, &head);
  ASSERT_EQ(p.state, State::kComplete);
  EXPECT_EQ(head.status, 404);
  EXPECT_EQ(head.reason, "Not Found");
  ASSERT_EQ(ParseResponseHead("HTTP/1.1 200 \r\n\r\n", {}, &head).state, State::kComplete);
  EXPECT_EQ(head.reason, "");
  ASSERT_EQ(ParseResponseHead("HTTP/1.0 204\r\n\r\n", {}, &head).state, State::kComplete);
  EXPECT_EQ(head.status, 204);
  for (std::string bad : {"HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n",
                          "HTTP/1.1 abc OK\r\n\r\n", "ICY 200 OK\r\n\r\n", "\r\n\r\n"}) {
    EXPECT_EQ(ParseResponseHead(bad, {}, &head).state, State::kMalformed) << bad;
  }
}

RequestHead Req(std::vector<std::pair<std::string, std::string>> fields) {
  RequestHead h;
  h.method = "POST";
  for (auto& [n, v] : fields) h.headers.Add(n, v);
  return h;
}

TEST(BodyFramingTest, Requests) {
  using Kind = BodyFraming::Kind;
  EXPECT_EQ(RequestBodyFraming(Req({}))->kind, Kind::kNone);
  auto cl = RequestBodyFraming(Req({{"Content-Length", "42"}}));
  EXPECT_EQ(cl->kind, Kind::kContentLength);
  EXPECT_EQ(cl->length, 42u);
  EXPECT_EQ(RequestBodyFraming(Req({{"Content-Length", "42, 42"}}))->length, 42u);
  EXPECT_EQ(RequestBodyFraming(Req({{"Content-Length", "0"}}))->kind, Kind::kNone);
  EXPECT_EQ(RequestBodyFraming(Req({{"Transfer-Encoding", "Chunked"}}))->kind, Kind::kChunked);
  EXPECT_FALSE(RequestBodyFraming(Req({{"Content-Length", "4x"}})).ok());
  EXPECT_FALSE(RequestBodyFraming(Req({{"Content-Length", "-1"}})).ok());
  EXPECT_FALSE(RequestBodyFraming(Req({{"Content-Length", "1"}, {"content-length", "2"}})).ok());
  EXPECT_FALSE(RequestBodyFraming(Req({{"Transfer-Encoding", "gzip"}})).ok());
  EXPECT_FALSE(
      RequestBodyFraming(Req({{"Transfer-Encoding", "chunked"}, {"Content-Length", "3"}})).ok());
}

TEST(BodyFramingTest, Responses) {
  using Kind = BodyFraming::Kind;
  ResponseHead r;
  r.status = 200;
  EXPECT_EQ(ResponseBodyFraming(r, "GET")->kind, Kind::kUntilClose);
  r.headers.Add("Content-Length", "10");
  EXPECT_EQ(ResponseBodyFraming(r, "GET")->kind, Kind::kContentLength);
  EXPECT_EQ(ResponseBodyFraming(r, "HEAD")->kind, Kind::kNone);
  r.headers.Add("Transfer-Encoding", "chunked");
  EXPECT_EQ(ResponseBodyFraming(r, "GET")->kind, Kind::kChunked);
  for (int status : {100, 204, 304}) {
    r.status = status;
    EXPECT_EQ(ResponseBodyFraming(r, "GET")->kind, Kind::kNone) << status;
  }
}

TEST(KeepAliveTest, VersionAndConnectionHeader) {
  Headers none, close, keep;
  close.Add("Connection", "Close");
  keep.Add("Connection", "keep-alive");
  EXPECT_TRUE(KeepAlive(1, none));
  EXPECT_FALSE(KeepAlive(1, close));
  EXPECT_FALSE(KeepAlive(0, none));
  EXPECT_TRUE(KeepAlive(0, keep));
}

TEST(FormatTest, HeadsRoundTripAndCannotBeSplit) {
  Headers h;
  h.Add("Content-Type", "application/json");
  h.Add("X-Evil", "a\r\nInjected: yes");
  std::string wire = FormatResponseHead(429, h);
  EXPECT_EQ(wire.rfind("HTTP/1.1 429 Too Many Requests\r\n", 0), 0u);
  ResponseHead parsed;
  ASSERT_EQ(ParseResponseHead(wire, {}, &parsed).state, State::kComplete);
  EXPECT_EQ(parsed.status, 429);
  EXPECT_EQ(parsed.headers.size(), 2u);
  EXPECT_FALSE(parsed.headers.Has("Injected"));

  std::string req = FormatRequestHead("GET", "/api?x=1", h);
  RequestHead rh;
  ASSERT_EQ(ParseRequestHead(req, {}, &rh).state, State::kComplete);
  EXPECT_EQ(rh.method, "GET");
  EXPECT_EQ(rh.target, "/api?x=1");
  EXPECT_EQ(std::string(StatusText(599)), "Unknown");
}

TEST(FormatTest, AppendRequestHeadWritesTheSetFieldsInPlaceOfTheRequestsOwn) {
  Headers h;
  h.Add("Accept", "application/json");
  h.Add("host", "spoofed");
  h.Add("X-Note", "a\r\nInjected: yes");
  const std::pair<std::string_view, std::string_view> set[] = {{"Host", "api:6443"}, {"Content-Length", "2"}};
  std::string wire = "kept";
  AppendRequestHead("POST", "/api/v1/x", h, set, &wire);
  EXPECT_EQ(wire,
            "keptPOST /api/v1/x HTTP/1.1\r\nAccept: application/json\r\nX-Note: a  Injected: yes\r\n"
            "Host: api:6443\r\nContent-Length: 2\r\n\r\n");
  // Without fields to set it is FormatRequestHead.
  std::string plain;
  AppendRequestHead("GET", "/", h, {}, &plain);
  EXPECT_EQ(plain, FormatRequestHead("GET", "/", h));
  EXPECT_NE(plain.find("host: spoofed\r\n"), std::string::npos);
}

}  // namespace
}  // namespace ksched::net
