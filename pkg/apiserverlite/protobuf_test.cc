#include "pkg/apiserverlite/protobuf.h"

#include <gtest/gtest.h>

namespace ksched::apiserver {
namespace {

using nlohmann::json;

// A minimal protobuf writer for building request bodies.
std::string Varint(uint64_t v) {
  std::string out;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if (v != 0) b |= 0x80;
    out.push_back(static_cast<char>(b));
  } while (v != 0);
  return out;
}
std::string Bytes(uint32_t field, const std::string& payload) {
  return Varint(field << 3 | 2) + Varint(payload.size()) + payload;
}
std::string Int(uint32_t field, uint64_t v) { return Varint(field << 3) + Varint(v); }
std::string Entry(const std::string& k, const std::string& v) {
  return Bytes(1, k) + Bytes(2, v);
}
std::string Envelope(const std::string& api_version, const std::string& kind,
                     const std::string& raw) {
  std::string type_meta = Bytes(1, api_version) + Bytes(2, kind);
  return std::string("k8s\0", 4) + Bytes(1, type_meta) + Bytes(2, raw) + Bytes(4, "application/vnd.kubernetes.protobuf");
}

TEST(ProtobufTest, ContentType) {
  EXPECT_TRUE(IsProtobufContentType("application/vnd.kubernetes.protobuf"));
  EXPECT_TRUE(IsProtobufContentType("application/vnd.kubernetes.protobuf;stream=watch"));
  EXPECT_FALSE(IsProtobufContentType("application/json"));
}

TEST(ProtobufTest, Namespace) {
  std::string meta = Bytes(1, "demo") + Bytes(11, Entry("team", "a")) +
                     Bytes(11, Entry("env", "dev")) + Bytes(14, "x/y") +
                     Bytes(8, Int(1, 1767225600)) + Bytes(17, "managed-fields-are-skipped");
  std::string raw = Bytes(1, meta) + Bytes(2, "") + Bytes(3, Bytes(1, "Active"));
  auto obj = DecodeProtobufObject(Envelope("v1", "Namespace", raw));
  ASSERT_TRUE(obj.ok()) << obj.error().message;
  EXPECT_EQ(obj.value(), json::parse(R"({"apiVersion":"v1","kind":"Namespace",
      "metadata":{"name":"demo","labels":{"team":"a","env":"dev"},"finalizers":["x/y"],
                  "creationTimestamp":"2026-01-01T00:00:00Z"},
      "spec":{}})"));
}

TEST(ProtobufTest, PriorityClassWithNegativeValue) {
  std::string raw = Bytes(1, Bytes(1, "low")) + Int(2, static_cast<uint64_t>(int64_t{-5})) +
                    Int(3, 1) + Bytes(5, "Never");
  auto obj = DecodeProtobufObject(Envelope("scheduling.k8s.io/v1", "PriorityClass", raw));
  ASSERT_TRUE(obj.ok()) << obj.error().message;
  EXPECT_EQ(obj.value()["value"], -5);
  EXPECT_EQ(obj.value()["globalDefault"], true);
  EXPECT_EQ(obj.value()["preemptionPolicy"], "Never");
}

TEST(ProtobufTest, PodDisruptionBudget) {
  std::string selector = Bytes(1, Entry("app", "web")) +
                         Bytes(2, Bytes(1, "tier") + Bytes(2, "In") + Bytes(3, "a") + Bytes(3, "b"));
  std::string min_available = Int(1, 0) + Int(2, 2);
  std::string max_unavailable = Int(1, 1) + Bytes(3, "10%");
  std::string spec = Bytes(1, min_available) + Bytes(2, selector) + Bytes(3, max_unavailable);
  std::string raw = Bytes(1, Bytes(1, "web") + Bytes(3, "default")) + Bytes(2, spec);
  auto obj = DecodeProtobufObject(Envelope("policy/v1", "PodDisruptionBudget", raw));
  ASSERT_TRUE(obj.ok()) << obj.error().message;
  EXPECT_EQ(obj.value()["spec"], json::parse(R"({"minAvailable":2,"maxUnavailable":"10%",
      "selector":{"matchLabels":{"app":"web"},
                  "matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]}})"));
  EXPECT_EQ(obj.value()["metadata"]["namespace"], "default");
}

TEST(ProtobufTest, Errors) {
  EXPECT_EQ(DecodeProtobufObject("{}").error().code, 400);
  EXPECT_EQ(DecodeProtobufObject(Envelope("v1", "Pod", "")).error().code, 415);
  EXPECT_EQ(DecodeProtobufObject(Envelope("v1", "Namespace", Bytes(1, "\x0a\x50"))).error().code,
            400);  // a truncated nested field
  std::string truncated = Envelope("v1", "Namespace", Bytes(1, Bytes(1, "demo")));
  truncated.pop_back();
  EXPECT_EQ(DecodeProtobufObject(truncated).error().code, 400);
  EXPECT_EQ(DecodeProtobufObject(std::string("k8s\0\xff", 5)).error().code, 400);
}

}  // namespace
}  // namespace ksched::apiserver
