#include "pkg/api/shared_box.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace ksched::api {
namespace {

using Box = SharedBox<std::string>;

TEST(SharedBoxTest, ReadsAsAnOptional) {
  Box unset;
  EXPECT_FALSE(unset.has_value());
  EXPECT_FALSE(unset);
  EXPECT_THROW((void)unset.value(), std::bad_optional_access);
  EXPECT_TRUE(unset == std::nullopt);

  Box set = std::string("v");
  EXPECT_TRUE(set);
  EXPECT_EQ(*set, "v");
  EXPECT_EQ(set->size(), 1u);
  EXPECT_EQ(set.value(), "v");
  set = std::nullopt;
  EXPECT_FALSE(set);
}

TEST(SharedBoxTest, ACopySharesUntilOneIsWritten) {
  Box a = std::string("x");
  Box b = a;
  EXPECT_TRUE(b.SharesWith(a));
  b.Mutable() = "y";
  EXPECT_FALSE(b.SharesWith(a));
  EXPECT_EQ(*a, "x");
  EXPECT_EQ(*b, "y");
  // Equal values compare equal whether shared or not.
  Box c = std::string("x");
  EXPECT_TRUE(c == a);
  EXPECT_FALSE(c == b);
}

TEST(SharedBoxTest, ASoleOwnerWritesInPlace) {
  Box a;
  a.emplace() = "x";
  const std::string* value = &*a;
  a.Mutable() += "y";
  EXPECT_EQ(&*a, value);
  EXPECT_EQ(*a, "xy");
  a.reset();
  EXPECT_FALSE(a);
}

TEST(SharedBoxTest, EqualValuesInternToOneCopyThatWritesDoNotChange) {
  Box a = Box::Interned(5, "shared value past the small-string buffer");
  Box b = Box::Interned(5, "shared value past the small-string buffer");
  EXPECT_TRUE(a.SharesWith(b));
  EXPECT_FALSE(Box::Interned(5, "another").SharesWith(a));
  b = Box();
  // `a` is now the only holder, yet the table may hand the value out again.
  a.Mutable() = "changed";
  EXPECT_EQ(*Box::Interned(5, "shared value past the small-string buffer"),
            "shared value past the small-string buffer");
}

}  // namespace
}  // namespace ksched::api
