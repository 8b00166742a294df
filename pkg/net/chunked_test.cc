#include "pkg/net/chunked.h"

#include <gtest/gtest.h>

namespace ksched::net {
namespace {

std::string Encode(const std::vector<std::string>& chunks) {
  std::string out;
  for (const auto& c : chunks) AppendChunk(c, &out);
  out.append(kLastChunk);
  return out;
}

TEST(ChunkEncoderTest, WritesHexSizesAndSkipsEmptyChunks) {
  std::string out;
  AppendChunk("hello", &out);
  AppendChunk("", &out);
  AppendChunk(std::string(26, 'x'), &out);
  EXPECT_EQ(out, "5\r\nhello\r\n1a\r\n" + std::string(26, 'x') + "\r\n");
}

TEST(ChunkedDecoderTest, DecodesWholeBodyAndLeavesTheNextMessage) {
  std::string wire = Encode({"hello ", "world", std::string(300, 'z')}) + "GET / HTTP/1.1\r\n";
  ChunkedDecoder d;
  std::string out;
  auto used = d.Feed(wire, &out);
  ASSERT_TRUE(used.ok()) << used.status().message();
  EXPECT_TRUE(d.done());
  EXPECT_EQ(out, "hello world" + std::string(300, 'z'));
  EXPECT_EQ(wire.substr(*used), "GET / HTTP/1.1\r\n");
}

TEST(ChunkedDecoderTest, SplitAtEveryByteBoundary) {
  std::string wire = "4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-T: 1\r\n\r\nNEXT";
  const std::string body = "Wikipedia in\r\n\r\nchunks.";
  for (size_t split = 0; split <= wire.size(); ++split) {
    ChunkedDecoder d;
    std::string out;
    auto a = d.Feed(std::string_view(wire).substr(0, split), &out);
    ASSERT_TRUE(a.ok()) << split;
    size_t consumed = *a;
    if (!d.done()) {
      ASSERT_EQ(consumed, split);
      auto b = d.Feed(std::string_view(wire).substr(split), &out);
      ASSERT_TRUE(b.ok()) << split;
      consumed += *b;
    }
    EXPECT_TRUE(d.done()) << split;
    EXPECT_EQ(out, body) << split;
    EXPECT_EQ(wire.substr(consumed), "NEXT") << split;
  }
}

TEST(ChunkedDecoderTest, OneByteAtATime) {
  std::string wire = Encode({"a", std::string(17, 'b'), "c"});
  ChunkedDecoder d;
  std::string out;
  for (char c : wire) {
    ASSERT_FALSE(d.done());
    auto used = d.Feed(std::string_view(&c, 1), &out);
    ASSERT_TRUE(used.ok());
    EXPECT_EQ(*used, 1u);
  }
  EXPECT_TRUE(d.done());
  EXPECT_EQ(out, "a" + std::string(17, 'b') + "c");
}

TEST(ChunkedDecoderTest, MalformedInputIsAnError) {
  for (std::string bad : {"zz\r\n", "\r\n", "5\r\nhelloXX", "1234567890abcdef0\r\n",
                          "5\r\nhello\rX"}) {
    ChunkedDecoder d;
    std::string out;
    auto used = d.Feed(bad, &out);
    EXPECT_FALSE(used.ok()) << bad;
    EXPECT_EQ(used.status().code(), util::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(ChunkedDecoderTest, OversizedLinesAndTrailersAreErrors) {
  ChunkedDecoder d;
  std::string out;
  EXPECT_FALSE(d.Feed("1;" + std::string(ChunkedDecoder::kMaxLineBytes, 'e'), &out).ok());
  ChunkedDecoder t;
  std::string trailer = "0\r\n";
  for (int i = 0; i < 1000; ++i) trailer += "X-Trailer: " + std::string(20, 'v') + "\r\n";
  EXPECT_FALSE(t.Feed(trailer, &out).ok());
}

}  // namespace
}  // namespace ksched::net
