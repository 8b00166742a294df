#include "pkg/scheduler/plugins/defaultbinder/default_binder.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "pkg/scheduler/plugins/helper/fake_handle.h"

namespace ksched::scheduler::plugins::defaultbinder {
namespace {

using framework::Code;
using helper::testing::FakeHandle;

class FakeBindingClient final : public framework::BindingClient {
 public:
  util::Status Bind(const api::Pod& pod, std::string_view node_name) override {
    calls.emplace_back(api::KeyOf(pod.metadata), std::string(node_name));
    return result;
  }
  std::vector<std::pair<std::string, std::string>> calls;
  util::Status result;
};

api::Pod MakePod() {
  api::Pod p;
  p.metadata.namespace_ = "ns";
  p.metadata.name = "foo";
  p.metadata.uid = "foo-uid";
  return p;
}

TEST(DefaultBinderTest, Bind) {
  FakeBindingClient client;
  FakeHandle handle;
  handle.SetClient(&client);
  auto pl = New(handle);
  EXPECT_EQ(pl->Name(), "DefaultBinder");
  framework::CycleState state;
  framework::Status s = pl->Bind(state, MakePod(), "foohost.kubernetes.mydomain.com");
  EXPECT_TRUE(s.IsSuccess()) << s.ToString();
  ASSERT_EQ(client.calls.size(), 1u);
  EXPECT_EQ(client.calls[0].first, "ns/foo");
  EXPECT_EQ(client.calls[0].second, "foohost.kubernetes.mydomain.com");
}

TEST(DefaultBinderTest, BindErrorKeepsTheCause) {
  FakeBindingClient client;
  client.result = util::Status(util::StatusCode::kConflict, "pod ns/foo is already assigned to node \"other\"");
  FakeHandle handle;
  handle.SetClient(&client);
  auto pl = New(handle);
  framework::CycleState state;
  framework::Status s = pl->Bind(state, MakePod(), "node");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.error().code(), util::StatusCode::kConflict);
  EXPECT_NE(s.Message().find("already assigned"), std::string::npos) << s.Message();
}

TEST(DefaultBinderTest, NoClientIsError) {
  FakeHandle handle;
  auto pl = New(handle);
  framework::CycleState state;
  EXPECT_EQ(pl->Bind(state, MakePod(), "node").code(), Code::kError);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::defaultbinder
