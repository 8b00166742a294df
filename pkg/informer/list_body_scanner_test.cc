#include "pkg/informer/list_body_scanner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksched::informer {
namespace {

struct Scanned {
  util::Status status;
  std::vector<std::string> items;
  std::string resource_version;
  std::string continue_token;
};

// `body` fed in pieces of `piece` bytes (0: at once).
Scanned Scan(const std::string& body, size_t piece = 0) {
  Scanned out;
  ListBodyScanner scanner("list /api/v1/pods", [&out](std::string_view item) { out.items.emplace_back(item); });
  const size_t step = piece == 0 ? body.size() : piece;
  for (size_t at = 0; at < body.size() && out.status.ok(); at += step) {
    out.status = scanner.Feed(std::string_view(body).substr(at, step));
  }
  if (out.status.ok()) out.status = scanner.Finish();
  out.resource_version = scanner.resource_version();
  out.continue_token = scanner.continue_token();
  return out;
}

const std::string kItemA =
    R"({"metadata":{"name":"a","labels":{"k":"v\"q]}"}},"spec":{"x":[1,{"y":null}],"z":-1.5e3,"s":"\\"}})";
const std::string kItemB = R"({"metadata":{"name":"b\u00e9"}})";

TEST(ListBodyScannerTest, FindsEachItemsTextAndTheListsMetadataWhateverThePieces) {
  const std::string body = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"tok"},)"
                           "\n \"items\" : [ " + kItemA + " ,\n" + kItemB + "] }\n";
  for (size_t piece : {0, 1, 2, 3, 7, 64}) {
    Scanned s = Scan(body, piece);
    ASSERT_TRUE(s.status.ok()) << piece << ": " << s.status.ToString();
    EXPECT_EQ(s.items, (std::vector<std::string>{kItemA, kItemB})) << piece;
    EXPECT_EQ(s.resource_version, "42");
    EXPECT_EQ(s.continue_token, "tok");
  }
}

TEST(ListBodyScannerTest, MetadataMayFollowTheItemsAndItemsMayBeNullOrEmpty) {
  Scanned after = Scan(R"({"items":[{"a":1}],"metadata":{"resourceVersion":"9"},"n":12})", 1);
  ASSERT_TRUE(after.status.ok()) << after.status.ToString();
  EXPECT_EQ(after.items, (std::vector<std::string>{R"({"a":1})"}));
  EXPECT_EQ(after.resource_version, "9");
  Scanned null_items = Scan(R"({"metadata":{},"items":null})");
  ASSERT_TRUE(null_items.status.ok()) << null_items.status.ToString();
  EXPECT_TRUE(null_items.items.empty());
  EXPECT_EQ(null_items.resource_version, "");
  Scanned empty = Scan(R"({"items":[]})");
  ASSERT_TRUE(empty.status.ok());
  EXPECT_TRUE(empty.items.empty());
  EXPECT_TRUE(Scan("{}").status.ok());
}

// An escaped key means what it decodes to.
TEST(ListBodyScannerTest, EscapedKeysAreDecoded) {
  Scanned s = Scan(R"({"m\u0065tadata":{"resourceVersion":"7"},"\u0069tems":[{"b":2}]})", 5);
  ASSERT_TRUE(s.status.ok()) << s.status.ToString();
  EXPECT_EQ(s.resource_version, "7");
  EXPECT_EQ(s.items, (std::vector<std::string>{R"({"b":2})"}));
}

// Items are handed over as text: one that is not an object is its decoder's
// to refuse, and the others still arrive.
TEST(ListBodyScannerTest, AnItemsOwnSyntaxIsTheDecodersBusiness) {
  Scanned s = Scan(R"({"items":[7,"x,]",{"a":[1,2]},null]})", 1);
  ASSERT_TRUE(s.status.ok()) << s.status.ToString();
  EXPECT_EQ(s.items, (std::vector<std::string>{"7", R"("x,]")", R"({"a":[1,2]})", "null"}));
}

TEST(ListBodyScannerTest, BodiesThatAreNotAListAreErrors) {
  auto error_of = [](const std::string& body) { return Scan(body).status.message(); };
  EXPECT_NE(error_of("[]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error_of(R"({"items":{}})").find("items is not an array"), std::string::npos);
  EXPECT_NE(error_of(R"({"items":"x"})").find("items is not an array"), std::string::npos);
  EXPECT_NE(error_of(R"({"items":nonsense})").find("items is not an array"), std::string::npos);
  EXPECT_NE(error_of(R"({"items":[],"items":[]})").find("items appears twice"), std::string::npos);
  EXPECT_NE(error_of(R"({"metadata":{]})").find("metadata is not JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"a" 1})").find("expected ':'"), std::string::npos);
  EXPECT_NE(error_of(R"({"a":1 "b":2})").find("expected ',' or '}'"), std::string::npos);
  EXPECT_NE(error_of(R"({"items":[{} {}]})").find("expected ',' or ']'"), std::string::npos);
  EXPECT_NE(error_of(R"({"items":[]} x)").find("data after the list's end"), std::string::npos);
  EXPECT_NE(error_of(R"({"items":[{"a":1})").find("ended before the list did"), std::string::npos);
  EXPECT_NE(error_of("").find("ended before the list did"), std::string::npos);
  EXPECT_EQ(Scan("[]").status.code(), util::StatusCode::kInternal);
  EXPECT_NE(error_of("[]").find("list /api/v1/pods"), std::string::npos);
}

TEST(ListBodyScannerTest, AnErrorIsFinal) {
  std::vector<std::string> items;
  ListBodyScanner scanner("list /p", [&items](std::string_view item) { items.emplace_back(item); });
  EXPECT_FALSE(scanner.Feed("[").ok());
  EXPECT_FALSE(scanner.Feed(R"({"items":[{}]})").ok());
  EXPECT_FALSE(scanner.Finish().ok());
  EXPECT_TRUE(items.empty());
}

}  // namespace
}  // namespace ksched::informer
