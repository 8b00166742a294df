#include "pkg/scheduler/framework/queueing_hint.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::framework {
namespace {

TEST(EventObjectTest, EmptyByDefault) {
  EventObject o;
  EXPECT_TRUE(o.empty());
  EXPECT_FALSE(o);
  EXPECT_EQ(o.As<api::Pod>(), nullptr);
  EXPECT_EQ(o.meta(), nullptr);
  EventObject null_pod(std::shared_ptr<const api::Pod>(nullptr));
  EXPECT_TRUE(null_pod.empty());
}

TEST(EventObjectTest, TypedAccess) {
  auto pod = std::make_shared<api::Pod>();
  pod->metadata.name = "p";
  EventObject o(pod);
  ASSERT_NE(o.As<api::Pod>(), nullptr);
  EXPECT_EQ(o.As<api::Pod>()->metadata.name, "p");
  EXPECT_EQ(o.As<api::Node>(), nullptr);
  EXPECT_EQ(o.meta()->name, "p");
  EXPECT_EQ(o.Shared<api::Pod>().get(), pod.get());
  EXPECT_EQ(o.Shared<api::Node>(), nullptr);
  EventObject copy = o;
  EXPECT_EQ(copy.As<api::Pod>(), o.As<api::Pod>());
}

TEST(EventObjectTest, TypesWithoutMetadata) {
  struct Custom {
    int x = 7;
  };
  EventObject o(std::make_shared<const Custom>());
  ASSERT_NE(o.As<Custom>(), nullptr);
  EXPECT_EQ(o.As<Custom>()->x, 7);
  EXPECT_EQ(o.meta(), nullptr);
}

TEST(QueueingHintTest, Strings) {
  EXPECT_EQ(QueueingHintString(QueueingHint::kQueue), "Queue");
  EXPECT_EQ(QueueingHintString(QueueingHint::kQueueSkip), "QueueSkip");
  EXPECT_EQ(static_cast<int>(QueueingHint::kQueueSkip), 0);
}

}  // namespace
}  // namespace ksched::scheduler::framework
