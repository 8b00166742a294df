#include "pkg/net/message_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <vector>

namespace ksched::net {
namespace {

// Hands out scripted pieces, one (or part of one) per ReadSome; end of
// stream after the last piece, or an error if `fail_at_end`.
class ScriptedStream : public Stream {
 public:
  explicit ScriptedStream(std::deque<std::string> pieces, bool fail_at_end = false)
      : pieces_(std::move(pieces)), fail_at_end_(fail_at_end) {}

  util::StatusOr<size_t> ReadSome(char* buf, size_t n, Deadline) override {
    if (pieces_.empty()) {
      if (fail_at_end_) return util::Status(util::StatusCode::kUnavailable, "reset");
      return size_t{0};
    }
    asked_.push_back(n);
    std::string& front = pieces_.front();
    size_t take = std::min(n, front.size());
    front.copy(buf, take);
    front.erase(0, take);
    if (front.empty()) pieces_.pop_front();
    ++reads_;
    return take;
  }
  util::Status WriteAll(std::string_view, Deadline) override { return util::Status::Ok(); }
  void Shutdown() override {}

  int reads() const { return reads_; }
  // The size each ReadSome asked for.
  const std::vector<size_t>& asked() const { return asked_; }

 private:
  std::deque<std::string> pieces_;
  bool fail_at_end_;
  int reads_ = 0;
  std::vector<size_t> asked_;
};

const std::string kPipelined =
    "POST /api/v1/namespaces/default/pods HTTP/1.1\r\nContent-Length: 11\r\n"
    "Content-Type: application/json\r\n\r\n{\"a\":\"xyz\"}"
    "PUT /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    "GET /c?watch=1 HTTP/1.1\r\nConnection: close\r\n\r\n";

// Reads every request of kPipelined; fails the test on a mismatch.
void ExpectPipelined(ScriptedStream& stream) {
  MessageReader reader(stream);
  struct Want {
    std::string method, target, body;
  };
  std::vector<Want> wants = {{"POST", "/api/v1/namespaces/default/pods", "{\"a\":\"xyz\"}"},
                             {"PUT", "/b", "abcde"},
                             {"GET", "/c?watch=1", ""}};
  for (const Want& want : wants) {
    RequestHead head;
    auto got = reader.ReadRequestHead(&head, kNoDeadline);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_TRUE(*got);
    EXPECT_EQ(head.method, want.method);
    EXPECT_EQ(head.target, want.target);
    auto framing = RequestBodyFraming(head);
    ASSERT_TRUE(framing.ok());
    reader.BeginBody(*framing);
    std::string body;
    ASSERT_TRUE(reader.ReadBody(&body, 1024, kNoDeadline).ok());
    EXPECT_EQ(body, want.body);
    EXPECT_TRUE(reader.body_done());
  }
  RequestHead head;
  auto end = reader.ReadRequestHead(&head, kNoDeadline);
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(*end);  // clean end of the connection
}

TEST(MessageReaderTest, PipelinedRequestsInOneRead) {
  ScriptedStream stream({kPipelined});
  ExpectPipelined(stream);
}

TEST(MessageReaderTest, PipelinedRequestsSplitAtEveryByteBoundary) {
  for (size_t split = 1; split < kPipelined.size(); ++split) {
    SCOPED_TRACE(split);
    ScriptedStream stream({kPipelined.substr(0, split), kPipelined.substr(split)});
    ExpectPipelined(stream);
  }
}

TEST(MessageReaderTest, OneByteAtATime) {
  std::deque<std::string> bytes;
  for (char c : kPipelined) bytes.emplace_back(1, c);
  ScriptedStream stream(bytes);
  ExpectPipelined(stream);
}

TEST(MessageReaderTest, StreamingChunkedResponseBody) {
  std::string wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  std::deque<std::string> pieces = {wire};
  std::string chunk;
  AppendChunk("{\"type\":\"ADDED\"}\n", &chunk);
  pieces.push_back(chunk);
  pieces.push_back(chunk.substr(0, 5));
  pieces.push_back(chunk.substr(5));
  pieces.push_back(std::string(kLastChunk));
  ScriptedStream stream(pieces);
  MessageReader reader(stream);
  ResponseHead head;
  ASSERT_TRUE(*reader.ReadResponseHead(&head, kNoDeadline));
  EXPECT_EQ(head.status, 200);
  reader.BeginBody(*ResponseBodyFraming(head, "GET"));
  std::string events;
  int pieces_read = 0;
  while (true) {
    std::string piece;
    auto more = reader.ReadBodySome(&piece, kNoDeadline);
    ASSERT_TRUE(more.ok()) << more.status().message();
    if (!*more) break;
    EXPECT_FALSE(piece.empty());
    events += piece;
    ++pieces_read;
  }
  EXPECT_EQ(events, "{\"type\":\"ADDED\"}\n{\"type\":\"ADDED\"}\n");
  EXPECT_GE(pieces_read, 2);  // delivered as they arrived, not at the end
}

TEST(MessageReaderTest, SmallMessagesKeepReadsSmallAndLargeOnesGrowThemTo16KiB) {
  const std::string small = "HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nbound";
  ScriptedStream calm({small, small, small});
  MessageReader calm_reader(calm);
  for (int i = 0; i < 3; ++i) {
    ResponseHead head;
    ASSERT_TRUE(*calm_reader.ReadResponseHead(&head, kNoDeadline));
    calm_reader.BeginBody(*ResponseBodyFraming(head, "POST"));
    std::string body;
    ASSERT_TRUE(calm_reader.ReadBody(&body, 1 << 20, kNoDeadline).ok());
    EXPECT_EQ(body, "bound");
  }
  EXPECT_EQ(calm.asked(), (std::vector<size_t>{4096, 4096, 4096}));

  const std::string large = "HTTP/1.1 200 OK\r\nContent-Length: 200000\r\n\r\n" + std::string(200000, 'x');
  ScriptedStream busy({large});  // one piece: every read is filled
  MessageReader busy_reader(busy);
  ResponseHead head;
  ASSERT_TRUE(*busy_reader.ReadResponseHead(&head, kNoDeadline));
  busy_reader.BeginBody(*ResponseBodyFraming(head, "GET"));
  std::string body;
  ASSERT_TRUE(busy_reader.ReadBody(&body, 1 << 20, kNoDeadline).ok());
  EXPECT_EQ(body.size(), 200000u);
  ASSERT_GE(busy.asked().size(), 4u);
  EXPECT_EQ(busy.asked().front(), 4096u);
  EXPECT_EQ(*std::max_element(busy.asked().begin(), busy.asked().end()), 16384u);
  EXPECT_EQ(busy.asked()[busy.asked().size() / 2], 16384u);
}

TEST(MessageReaderTest, BodyUntilClose) {
  ScriptedStream stream({"HTTP/1.0 200 OK\r\n\r\nhello ", "world"});
  MessageReader reader(stream);
  ResponseHead head;
  ASSERT_TRUE(*reader.ReadResponseHead(&head, kNoDeadline));
  reader.BeginBody(*ResponseBodyFraming(head, "GET"));
  std::string body;
  ASSERT_TRUE(reader.ReadBody(&body, 100, kNoDeadline).ok());
  EXPECT_EQ(body, "hello world");
}

TEST(MessageReaderTest, MalformedAndOversizedHeads) {
  ScriptedStream bad({"GET /a HTTP/9.9\r\n\r\n"});
  MessageReader r1(bad);
  RequestHead head;
  auto st = r1.ReadRequestHead(&head, kNoDeadline);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), util::StatusCode::kInvalidArgument);
  EXPECT_FALSE(r1.head_too_large());

  HeadLimits limits;
  limits.max_head_bytes = 1024;
  // An endless header: the reader stops once past the limit instead of
  // buffering without bound.
  std::deque<std::string> endless = {"GET /a HTTP/1.1\r\nX: "};
  for (int i = 0; i < 100; ++i) endless.push_back(std::string(100, 'x'));
  ScriptedStream big(endless);
  MessageReader r2(big, limits);
  st = r2.ReadRequestHead(&head, kNoDeadline);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(r2.head_too_large());
  EXPECT_LT(big.reads(), 20);
}

TEST(MessageReaderTest, TruncatedMessagesAndStreamErrors) {
  RequestHead head;
  ScriptedStream mid_head({"GET /a HTTP/1.1\r\nHost"});
  MessageReader r1(mid_head);
  auto st = r1.ReadRequestHead(&head, kNoDeadline);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), util::StatusCode::kUnavailable);

  ScriptedStream mid_body({"POST /a HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"});
  MessageReader r2(mid_body);
  ASSERT_TRUE(*r2.ReadRequestHead(&head, kNoDeadline));
  r2.BeginBody(*RequestBodyFraming(head));
  std::string body;
  EXPECT_EQ(r2.ReadBody(&body, 100, kNoDeadline).code(), util::StatusCode::kUnavailable);

  ScriptedStream reset({"GET /a HT"}, /*fail_at_end=*/true);
  MessageReader r3(reset);
  EXPECT_EQ(r3.ReadRequestHead(&head, kNoDeadline).status().code(),
            util::StatusCode::kUnavailable);

  ScriptedStream bad_chunk({"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nq\r\n"});
  MessageReader r4(bad_chunk);
  ASSERT_TRUE(*r4.ReadRequestHead(&head, kNoDeadline));
  r4.BeginBody(*RequestBodyFraming(head));
  EXPECT_EQ(r4.ReadBody(&body, 100, kNoDeadline).code(), util::StatusCode::kInvalidArgument);
}

TEST(MessageReaderTest, BodyLimit) {
  RequestHead head;
  ScriptedStream declared({"POST /a HTTP/1.1\r\nContent-Length: 100\r\n\r\n"});
  MessageReader r1(declared);
  ASSERT_TRUE(*r1.ReadRequestHead(&head, kNoDeadline));
  r1.BeginBody(*RequestBodyFraming(head));
  std::string body;
  EXPECT_FALSE(r1.ReadBody(&body, 99, kNoDeadline).ok());
  EXPECT_TRUE(r1.body_too_large());

  std::string chunks;
  for (int i = 0; i < 10; ++i) AppendChunk(std::string(20, 'c'), &chunks);
  ScriptedStream chunked({"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks +
                          std::string(kLastChunk)});
  MessageReader r2(chunked);
  ASSERT_TRUE(*r2.ReadRequestHead(&head, kNoDeadline));
  r2.BeginBody(*RequestBodyFraming(head));
  body.clear();
  EXPECT_FALSE(r2.ReadBody(&body, 150, kNoDeadline).ok());
  EXPECT_TRUE(r2.body_too_large());
}

}  // namespace
}  // namespace ksched::net
