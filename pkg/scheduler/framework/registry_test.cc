#include "pkg/scheduler/framework/registry.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::framework {
namespace {

class Named final : public Plugin {
 public:
  explicit Named(std::string n) : name_(std::move(n)) {}
  std::string_view Name() const override { return name_; }

 private:
  std::string name_;
};

PluginFactory FactoryFor(std::string name) {
  return [name](const config::PluginArgs&, Handle&) -> util::StatusOr<std::shared_ptr<Plugin>> {
    return std::shared_ptr<Plugin>(std::make_shared<Named>(name));
  };
}

TEST(RegistryTest, RegisterFindUnregister) {
  Registry r;
  ASSERT_TRUE(r.Register("B", FactoryFor("B")).ok());
  ASSERT_TRUE(r.Register("A", FactoryFor("A")).ok());
  util::Status dup = r.Register("A", FactoryFor("A"));
  EXPECT_EQ(dup.code(), util::StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.message(), "a plugin named A already exists");
  EXPECT_EQ(r.Names(), (std::vector<std::string>{"A", "B"}));
  EXPECT_TRUE(r.Has("A"));
  EXPECT_EQ(r.Find("C"), nullptr);

  EXPECT_TRUE(r.Unregister("A").ok());
  EXPECT_EQ(r.Unregister("A").code(), util::StatusCode::kNotFound);
  EXPECT_EQ(r.size(), 1u);
}

TEST(RegistryTest, MergeIsAllOrNothing) {
  Registry a;
  ASSERT_TRUE(a.Register("A", FactoryFor("A")).ok());
  Registry b;
  ASSERT_TRUE(b.Register("B", FactoryFor("B")).ok());
  ASSERT_TRUE(b.Register("A", FactoryFor("A")).ok());
  EXPECT_EQ(a.Merge(b).code(), util::StatusCode::kAlreadyExists);
  EXPECT_EQ(a.Names(), (std::vector<std::string>{"A"}));
  ASSERT_TRUE(b.Unregister("A").ok());
  EXPECT_TRUE(a.Merge(b).ok());
  EXPECT_EQ(a.Names(), (std::vector<std::string>{"A", "B"}));
}

}  // namespace
}  // namespace ksched::scheduler::framework
