#include "pkg/config/errors.h"

#include <gtest/gtest.h>

namespace ksched::config {
namespace {

TEST(FieldErrorTest, ToStringNamesFileLineColumnAndPath) {
  FieldError e{ErrorType::kDecode, "profiles[0].plugins.score.enabled[1].weight", "expected an integer, got \"high\"",
               "scheduler.yaml", SourcePos{12, 7}};
  EXPECT_EQ(e.ToString(),
            "scheduler.yaml:12:7: profiles[0].plugins.score.enabled[1].weight: expected an integer, got \"high\"");
  e.pos = SourcePos{};
  EXPECT_EQ(e.ToString(),
            "scheduler.yaml: profiles[0].plugins.score.enabled[1].weight: expected an integer, got \"high\"");
  e.file.clear();
  e.field.clear();
  EXPECT_EQ(e.ToString(), "expected an integer, got \"high\"");
}

TEST(FieldErrorTest, KubeWording) {
  EXPECT_EQ(Invalid("parallelism", "0", "should be an integer value greater than zero").detail,
            "Invalid value: 0: should be an integer value greater than zero");
  EXPECT_EQ(Required("profiles[0].schedulerName").detail, "Required value");
  EXPECT_EQ(Required("x", "can not be empty").detail, "Required value: can not be empty");
  EXPECT_EQ(Duplicate("p", Quote("a")).detail, "Duplicate value: \"a\"");
  EXPECT_EQ(NotSupported("t", Quote("X"), {"A", "B"}).detail,
            "Unsupported value: \"X\": supported values: \"A\", \"B\"");
  EXPECT_EQ(NotSupported("t", Quote("X"), {}, "why").detail, "Unsupported value: \"X\": why");
  EXPECT_EQ(Forbidden("f", "no").detail, "Forbidden: no");
  EXPECT_EQ(Forbidden("f", "no").type, ErrorType::kForbidden);
  EXPECT_EQ(QuoteList({"a", "b\"c"}), "[\"a\", \"b\\\"c\"]");
}

TEST(FieldErrorTest, JoinErrorsOnePerLine) {
  ErrorList errs = {Required("a"), Required("b")};
  EXPECT_EQ(JoinErrors(errs), "a: Required value\nb: Required value");
  EXPECT_EQ(JoinErrors({}), "");
}

TEST(ParentPathTest, WalksUpFieldsAndIndexes) {
  EXPECT_EQ(ParentPath("profiles[0].plugins.score.enabled[1].weight"), "profiles[0].plugins.score.enabled[1]");
  EXPECT_EQ(ParentPath("profiles[0].plugins.score.enabled[1]"), "profiles[0].plugins.score.enabled");
  EXPECT_EQ(ParentPath("profiles[0]"), "profiles");
  EXPECT_EQ(ParentPath("profiles"), "");
  EXPECT_EQ(ParentPath(""), "");
  EXPECT_EQ(ParentPath("a.matchLabels[app.kubernetes.io/name]"), "a.matchLabels");
}

TEST(ConfigSourceTest, LookupFallsBackToNearestAncestor) {
  ConfigSource src("s.yaml");
  src.Record("", SourcePos{1, 1});
  src.Record("profiles", SourcePos{3, 1});
  src.Record("profiles[1]", SourcePos{7, 3});
  EXPECT_EQ(src.Lookup("profiles[1]").line, 7);
  EXPECT_EQ(src.Lookup("profiles[1].schedulerName").line, 7);
  EXPECT_EQ(src.Lookup("leaderElection.resourceLock").line, 1);
  EXPECT_TRUE(src.Has("profiles"));
  EXPECT_FALSE(src.Has("profiles[0]"));
  EXPECT_FALSE(ConfigSource().Lookup("x").known());

  FieldError e = Required("profiles[1].schedulerName");
  src.Locate(&e);
  EXPECT_EQ(e.ToString(), "s.yaml:7:3: profiles[1].schedulerName: Required value");
}

}  // namespace
}  // namespace ksched::config
