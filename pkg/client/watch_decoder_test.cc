#include "pkg/client/watch_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/json_reader.h"

namespace ksched::client {
namespace {

struct Collected {
  std::vector<WatchEvent> events;
  std::vector<util::Status> errors;
  WatchEventSink Sink() {
    return [this](util::StatusOr<WatchEvent> e) {
      if (e.ok()) {
        events.push_back(std::move(e).value());
      } else {
        errors.push_back(e.status());
      }
    };
  }
};

std::string Line(const std::string& type, const std::string& name, const std::string& rv) {
  return nlohmann::json{{"type", type},
                        {"object", {{"kind", "Pod"}, {"metadata", {{"name", name}, {"resourceVersion", rv}}}}}}
             .dump() +
         "\n";
}

TEST(WatchDecoderTest, DecodesOneEvent) {
  util::StatusOr<WatchEvent> e = DecodeWatchEvent(R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->type, "ADDED");
  EXPECT_EQ(e->object["metadata"]["name"], "a");
}

TEST(WatchDecoderTest, RejectsMalformedEvents) {
  for (const char* bad : {"{not json", "[1,2]", R"({"object":{}})", R"({"type":"ADDED"})",
                          R"({"type":"RENAMED","object":{}})", R"({"type":"ADDED","object":"x"})",
                          R"({"type":7,"object":{}})"}) {
    util::StatusOr<WatchEvent> e = DecodeWatchEvent(bad);
    EXPECT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().code(), util::StatusCode::kInvalidArgument) << bad;
  }
}

// Found by watch_event_fuzz: the raw scan took the object text with the NULs
// after it, which the typed decoders read as the text's end.
TEST(WatchDecoderTest, ARawNulSendsTheLineToTheParser) {
  using namespace std::string_view_literals;
  const std::string_view line = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}\0\0}"sv;
  for (bool raw : {true, false}) {
    util::StatusOr<WatchEvent> e = DecodeWatchEvent(line, raw);
    EXPECT_EQ(e.status().code(), util::StatusCode::kInvalidArgument) << "raw=" << raw;
  }
}

TEST(WatchDecoderTest, EmitsEachEventAsSoonAsItsLineCompletes) {
  std::string stream = Line("ADDED", "a", "1") + Line("MODIFIED", "a", "2") + Line("DELETED", "a", "3") +
                       Line("BOOKMARK", "", "4");
  // Feed byte by byte: each event must appear exactly when its newline does.
  WatchStreamDecoder d;
  Collected c;
  size_t lines_seen = 0;
  for (char ch : stream) {
    d.Feed(std::string_view(&ch, 1), c.Sink());
    if (ch == '\n') ++lines_seen;
    ASSERT_EQ(c.events.size(), lines_seen);
  }
  ASSERT_EQ(c.events.size(), 4u);
  EXPECT_EQ(c.events[0].type, "ADDED");
  EXPECT_EQ(c.events[1].type, "MODIFIED");
  EXPECT_EQ(c.events[2].type, "DELETED");
  EXPECT_EQ(c.events[3].type, "BOOKMARK");
  EXPECT_EQ(c.events[3].object["metadata"]["resourceVersion"], "4");
  EXPECT_EQ(d.buffered_bytes(), 0u);
  EXPECT_TRUE(c.errors.empty());
}

TEST(WatchDecoderTest, HandlesChunksSpanningAndHoldingManyLines) {
  std::string stream;
  for (int i = 0; i < 50; ++i) stream += Line("ADDED", "p" + std::to_string(i), std::to_string(i));
  for (size_t chunk : {size_t{3}, size_t{17}, size_t{64}, size_t{1000}, stream.size()}) {
    WatchStreamDecoder d;
    Collected c;
    for (size_t off = 0; off < stream.size(); off += chunk) {
      d.Feed(std::string_view(stream).substr(off, chunk), c.Sink());
    }
    d.Finish(c.Sink());
    ASSERT_EQ(c.events.size(), 50u) << "chunk " << chunk;
    EXPECT_EQ(c.events[49].object["metadata"]["name"], "p49");
  }
}

// An event is more_arrived when bytes of the stream follow its line in the
// fed piece, even only the start of the next line.
TEST(WatchDecoderTest, AnEventFollowedByMoreOfThePieceIsMoreArrived) {
  const std::string a = Line("ADDED", "a", "1");
  const std::string b = Line("MODIFIED", "a", "2");
  WatchStreamDecoder d;
  Collected c;
  d.Feed(a + b + b.substr(0, 5), c.Sink());  // a, b, then part of a third
  d.Feed(b.substr(5), c.Sink());
  d.Feed(a.substr(0, a.size() - 1), c.Sink());
  d.Finish(c.Sink());  // the last line, without its newline
  ASSERT_EQ(c.events.size(), 4u);
  EXPECT_TRUE(c.events[0].more_arrived);
  EXPECT_TRUE(c.events[1].more_arrived);
  EXPECT_FALSE(c.events[2].more_arrived);
  EXPECT_FALSE(c.events[3].more_arrived);
}

TEST(WatchDecoderTest, SkipsMalformedLinesAndKeepsGoing) {
  std::string stream = Line("ADDED", "a", "1") + "{\"type\":\"ADDED\",\"object\":{\"metadata\":\n" + "\n" +
                       "garbage\r\n" + Line("MODIFIED", "a", "2");
  WatchStreamDecoder d;
  Collected c;
  d.Feed(stream, c.Sink());
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.events[1].type, "MODIFIED");
  ASSERT_EQ(c.errors.size(), 2u);
  EXPECT_NE(c.errors[0].message().find("not valid JSON"), std::string::npos);
  EXPECT_NE(c.errors[1].message().find("garbage"), std::string::npos);
}

TEST(WatchDecoderTest, FinishDecodesALastLineWithoutNewline) {
  std::string line = Line("ADDED", "a", "1");
  line.pop_back();
  WatchStreamDecoder d;
  Collected c;
  d.Feed(line, c.Sink());
  EXPECT_TRUE(c.events.empty());
  d.Finish(c.Sink());
  EXPECT_EQ(c.events.size(), 1u);
}

TEST(WatchDecoderTest, OverlongLinesAreSkippedWithoutBufferingThem) {
  WatchStreamDecoder d(/*max_line_bytes=*/100);
  Collected c;
  std::string huge = "{\"type\":\"ADDED\",\"object\":{\"x\":\"" + std::string(500, 'a') + "\"}}\n";
  for (size_t off = 0; off < huge.size(); off += 30) d.Feed(std::string_view(huge).substr(off, 30), c.Sink());
  EXPECT_LE(d.buffered_bytes(), 100u);
  d.Feed(Line("ADDED", "ok", "1"), c.Sink());
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_NE(c.errors[0].message().find("longer than 100 bytes"), std::string::npos);
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].object["metadata"]["name"], "ok");
}

// The limit does not depend on how the stream was cut: an over-long line
// that arrives whole in one chunk is skipped as one cut into pieces is.
TEST(WatchDecoderTest, OverlongLineInOneChunkIsSkippedToo) {
  const std::string huge = "{\"type\":\"ADDED\",\"object\":{\"x\":\"" + std::string(500, 'a') + "\"}}\n";
  WatchStreamDecoder whole(/*max_line_bytes=*/100);
  Collected c;
  whole.Feed(huge + Line("ADDED", "ok", "1"), c.Sink());
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_NE(c.errors[0].message().find("longer than 100 bytes skipped: {\"type\":\"ADDED\""), std::string::npos)
      << c.errors[0].message();
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].object["metadata"]["name"], "ok");
}

// Raw mode hands the usual events over as text and everything else as
// without it: the same type and object (once parsed), or the same error.
// What a raw-mode caller does with an unchecked object: keep it when it is
// one JSON value (a typed decode confirms that), else recheck the line.
util::StatusOr<WatchEvent> Resolved(util::StatusOr<WatchEvent> event) {
  if (!event.ok() || !event->object_unchecked) return event;
  api::JsonReader r(event->object_text);
  std::string_view value;
  if (r.CaptureValue(&value) && r.AtEnd()) return event;
  util::StatusOr<WatchEvent> rechecked = RecheckWatchEvent(*event);
  EXPECT_TRUE(!rechecked.ok() || !rechecked->object_unchecked);
  return rechecked;
}

TEST(WatchDecoderTest, RawModeGivesObjectTextForUsualEventsAndTheSameAnswerOtherwise) {
  util::StatusOr<WatchEvent> raw = DecodeWatchEvent(R"({"type":"MODIFIED","object":{"metadata":{"name":"a"}}})", true);
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_EQ(raw->type, "MODIFIED");
  EXPECT_EQ(raw->object_text, R"({"metadata":{"name":"a"}})");
  EXPECT_TRUE(raw->object_unchecked);  // the API server's layout: taken unread
  EXPECT_TRUE(raw->object.is_null());
  // Object first: read, so checked.
  raw = DecodeWatchEvent(R"({"object":{"a":1},"type":"ADDED"} )", true);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->object_text, R"({"a":1})");
  EXPECT_FALSE(raw->object_unchecked);

  const std::vector<std::pair<std::string, bool>> lines = {
      // {line, expected as text}
      {R"({"object":{"a":1},"type":"ADDED"})", true},            // members in either order
      {R"({ "type" : "DELETED" , "object" : { "a" : [1, 2.5, null] } , "x": {} })", true},
      {R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"5"}}})", true},
      {R"({"type":"ERROR","object":{"kind":"Status","code":410}})", false},  // parsed for the client
      {R"({"type":"ADDED","type":"ADDED","object":{}})", false},  // repeated member
      {R"({"type":"ADDED","object":[]})", false},                 // not an object
      {R"({"type":"ADDED"})", false},
      {R"({"type":"FROB","object":{}})", false},                  // unknown type
      {R"({"type":"ADDED","object":{"name":"Ren\u00e9e"}})", false},
      {"{\"type\":\"ADDED\",\"object\":{\"name\":\"\xc3\xa9\"}}", false},
      {R"({"type":"ADDED","object":{"a":}})", false},             // bad JSON
      {R"({"type":"ADDED","object":{}} x)", false},
      {R"({"type":"ADDED","object":{"a":1}{"b":2}})", false},     // two values where one goes
      {R"({"type":"ADDED","object":{"a":1},"object":{"a":2}})", false},  // the tree keeps the last
      {R"({"type":"ADDED","object":{"a":1},"type":"DELETED"})", false},
      {R"([1])", false},
  };
  for (const auto& [line, as_text] : lines) {
    SCOPED_TRACE(line);
    util::StatusOr<WatchEvent> fast = Resolved(DecodeWatchEvent(line, true));
    util::StatusOr<WatchEvent> slow = DecodeWatchEvent(line, false);
    ASSERT_EQ(fast.ok(), slow.ok());
    if (!slow.ok()) {
      EXPECT_EQ(fast.status().ToString(), slow.status().ToString());
      continue;
    }
    EXPECT_EQ(fast->type, slow->type);
    EXPECT_EQ(!fast->object_text.empty(), as_text);
    nlohmann::json object = fast->object_text.empty() ? fast->object : nlohmann::json::parse(fast->object_text);
    EXPECT_EQ(object, slow->object);
  }

  // Through the stream decoder, split at every byte.
  const std::string stream = Line("ADDED", "a", "1") + Line("MODIFIED", "a", "2");
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    WatchStreamDecoder d(size_t{1} << 20, /*raw_objects=*/true);
    Collected c;
    d.Feed(std::string_view(stream).substr(0, cut), c.Sink());
    d.Feed(std::string_view(stream).substr(cut), c.Sink());
    ASSERT_EQ(c.events.size(), 2u);
    EXPECT_EQ(nlohmann::json::parse(c.events[1].object_text)["metadata"]["resourceVersion"], "2");
  }
}

}  // namespace
}  // namespace ksched::client
