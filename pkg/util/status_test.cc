#include "pkg/util/status.h"

#include <gtest/gtest.h>

#include <memory>

namespace ksched::util {
namespace {

TEST(StatusTest, OkAndErrors) {
  EXPECT_TRUE(Status().ok());
  EXPECT_EQ(Status().ToString(), "OK");
  Status s = InvalidArgument("spec.priority: expected integer");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString(), "InvalidArgument: spec.priority: expected integer");
}

TEST(StatusOrTest, HoldsValueOrError) {
  StatusOr<std::unique_ptr<int>> v(std::make_unique<int>(7));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(**v, 7);
  std::unique_ptr<int> moved = std::move(v).value();
  EXPECT_EQ(*moved, 7);

  StatusOr<int> e(NotFound("pod default/a"));
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ksched::util
