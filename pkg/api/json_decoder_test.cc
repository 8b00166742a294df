#include "pkg/api/json_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksched::api {
namespace {

using nlohmann::json;

const json kDoc = json::parse(R"({
  "spec": {"containers": [{"name": "a"}, {"name": "b", "port": 80}], "gone": null},
  "labels": {"app": "web", "tier": "db"},
  "big": 9223372036854775807, "neg": -5, "flag": true, "ratio": 0.5
})");

TEST(DecoderTest, PathsAreBuiltOnDemand) {
  Decoder root(kDoc);
  EXPECT_EQ(root.Path(), "");
  Decoder spec = root.Field("spec");
  Decoder containers = spec.Field("containers");
  Decoder second = containers.Index(1);
  Decoder port = second.Field("port");
  EXPECT_EQ(port.Path(), "spec.containers[1].port");
  EXPECT_EQ(port.Error("boom").message(), "spec.containers[1].port: boom");
  EXPECT_EQ(root.Error("at root").message(), "at root");
  EXPECT_EQ(containers.Index(0).Index(3).Path(), "spec.containers[0][3]");
}

TEST(DecoderTest, MissingAndNullAreAbsent) {
  Decoder root(kDoc);
  EXPECT_FALSE(root.Field("spec").IsAbsent());
  EXPECT_TRUE(root.Field("nope").IsAbsent());
  EXPECT_TRUE(root.Field("spec").Field("gone").IsAbsent());
  EXPECT_TRUE(root.Field("neg").Field("x").IsAbsent());  // a member of a non-object
  EXPECT_TRUE(root.Field("spec").Field("containers").Index(2).IsAbsent());  // out of range
  EXPECT_TRUE(root.Field("nope").Field("deeper").IsAbsent());
  EXPECT_EQ(root.Field("nope").Field("deeper").Path(), "nope.deeper");

  std::string s = "unchanged";
  EXPECT_TRUE(root.Field("nope").GetString(&s).ok());
  EXPECT_EQ(s, "unchanged");
  EXPECT_TRUE(root.Field("nope").RequireObject().ok());
  EXPECT_TRUE(root.Field("nope").RequireArray().ok());
}

TEST(DecoderTest, TypedGetters) {
  Decoder root(kDoc);
  std::string s;
  ASSERT_TRUE(root.Field("labels").Field("app").GetString(&s).ok());
  EXPECT_EQ(s, "web");
  bool b = false;
  ASSERT_TRUE(root.Field("flag").GetBool(&b).ok());
  EXPECT_TRUE(b);
  int64_t i64 = 0;
  ASSERT_TRUE(root.Field("big").GetInt64(&i64).ok());
  EXPECT_EQ(i64, 9223372036854775807);
  int32_t i32 = 0;
  ASSERT_TRUE(root.Field("neg").GetInt32(&i32).ok());
  EXPECT_EQ(i32, -5);

  EXPECT_EQ(root.Field("big").GetInt32(&i32).message(),
            "big: value 9223372036854775807 out of range for int32");
  EXPECT_EQ(root.Field("ratio").GetInt64(&i64).message(), "ratio: expected int64, got number 0.5");
  EXPECT_EQ(root.Field("flag").GetString(&s).message(), "flag: expected string, got boolean");
  EXPECT_EQ(root.Field("neg").GetBool(&b).message(), "neg: expected boolean, got number");
  EXPECT_EQ(root.Field("labels").RequireArray().message(), "labels: expected array, got object");
  EXPECT_EQ(root.Field("spec").Field("containers").RequireObject().message(),
            "spec.containers: expected object, got array");
}

TEST(DecoderTest, ForEachElementStopsAtFirstError) {
  // Parents must outlive their children, so each level is named.
  const Decoder root(kDoc);
  const Decoder spec = root.Field("spec");
  const Decoder containers = spec.Field("containers");
  std::vector<std::string> names;
  auto status = containers.ForEachElement([&](const Decoder& element) {
    std::string name;
    KSCHED_API_RETURN_IF_ERROR(element.Field("name").GetString(&name));
    names.push_back(name);
    return element.Field("port").IsAbsent() ? util::Status::Ok() : element.Error("has a port");
  });
  EXPECT_EQ(status.message(), "spec.containers[1]: has a port");
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));

  int calls = 0;
  EXPECT_TRUE(root.Field("nope").ForEachElement([&](const Decoder&) {
    ++calls;
    return util::Status::Ok();
  }).ok());
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(root.Field("labels").ForEachElement([&](const Decoder&) {
    return util::Status::Ok();
  }).ok());
}

TEST(DecoderTest, ForEachMemberVisitsInKeyOrder) {
  const Decoder root(kDoc);
  const Decoder labels = root.Field("labels");
  std::vector<std::string> seen;
  ASSERT_TRUE(labels.ForEachMember([&](const std::string& key, const Decoder& value) {
    std::string v;
    KSCHED_API_RETURN_IF_ERROR(value.GetString(&v));
    seen.push_back(key + "=" + v);
    return util::Status::Ok();
  }).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"app=web", "tier=db"}));

  auto status = labels.ForEachMember([](const std::string&, const Decoder& value) {
    return value.Error("no");
  });
  EXPECT_EQ(status.message(), "labels.app: no");
  EXPECT_EQ(root.Field("neg").ForEachMember([](const std::string&, const Decoder&) {
    return util::Status::Ok();
  }).message(), "neg: expected object, got number");
}

}  // namespace
}  // namespace ksched::api
