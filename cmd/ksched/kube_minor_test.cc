#include "cmd/ksched/kube_minor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "pkg/client/test_server.h"
#include "pkg/util/clock.h"

namespace ksched::app {
namespace {

TEST(KubeMinorTest, ServerMinorReadsTheLeadingDigits) {
  EXPECT_EQ(ServerMinor({{"major", "1"}, {"minor", "37"}, {"gitVersion", "v1.37.2"}}).value(), 37);
  EXPECT_EQ(ServerMinor({{"major", "1"}, {"minor", "35+"}}).value(), 35);
  EXPECT_FALSE(ServerMinor({{"major", "2"}, {"minor", "1"}}).ok());
  EXPECT_FALSE(ServerMinor({{"major", "1"}, {"minor", "x"}}).ok());
  EXPECT_FALSE(ServerMinor(nlohmann::json::array()).ok());
}

TEST(KubeMinorTest, EmulatedVersionWinsAndTheServerIsClamped) {
  MinorChoice e = ChooseMinor(35, 37, "v1.37.2");
  EXPECT_EQ(e.minor, 35);
  EXPECT_EQ(e.source, "--emulated-version");
  EXPECT_FALSE(e.warning);

  MinorChoice same = ChooseMinor(std::nullopt, 36, "v1.36.3");
  EXPECT_EQ(same.minor, 36);
  EXPECT_EQ(same.source, "API server v1.36.3");
  EXPECT_FALSE(same.warning);

  MinorChoice newer = ChooseMinor(std::nullopt, 40, "v1.40.0");
  EXPECT_EQ(newer.minor, 37);
  ASSERT_TRUE(newer.warning);
  EXPECT_NE(newer.warning->find("Kubernetes 1.40"), std::string::npos);
  EXPECT_EQ(ChooseMinor(std::nullopt, 30, "v1.30.1").minor, 34);
}

std::unique_ptr<client::RestClient> ClientOf(const client::testing::TestServer& server, const util::Clock& clock) {
  client::RestConfig config;
  config.host = server.url();
  client::RestClientOptions options;
  options.retry.max_retries = 0;
  return client::RestClient::Create(config, clock, options).value();
}

TEST(KubeMinorTest, AskServerMinorWaitsForAnAnswer) {
  std::atomic<int> calls{0};
  client::testing::TestServer server([&](const client::testing::RecordedRequest& r) {
    if (r.path != "/version" || ++calls < 3) return client::testing::Reply{503, "{}"};
    return client::testing::Reply{200, R"({"major": "1", "minor": "36", "gitVersion": "v1.36.3"})"};
  });
  util::RealClock clock;
  auto client = ClientOf(server, clock);
  util::StatusOr<MinorChoice> c = AskServerMinor(*client, clock, {}, std::chrono::milliseconds(1));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->minor, 36);
  EXPECT_EQ(c->source, "API server v1.36.3");
  EXPECT_EQ(calls.load(), 3);
}

TEST(KubeMinorTest, AskServerMinorStopsOnRequestAndRefusesANonKubernetesAnswer) {
  client::testing::TestServer down([](const client::testing::RecordedRequest&) {
    return client::testing::Reply{500, "{}"};
  });
  util::RealClock clock;
  auto client = ClientOf(down, clock);
  std::stop_source stop;
  stop.request_stop();
  EXPECT_EQ(AskServerMinor(*client, clock, stop.get_token()).status().code(), util::StatusCode::kCancelled);
  // A stop while waiting out the backoff ends the wait at once: the server
  // keeps failing and the backoff is an hour.
  std::stop_source later;
  std::thread stopper([&] {
    while (down.request_count() == 0) std::this_thread::yield();
    later.request_stop();
  });
  EXPECT_EQ(AskServerMinor(*client, clock, later.get_token(), std::chrono::hours(1)).status().code(),
            util::StatusCode::kCancelled);
  stopper.join();

  client::testing::TestServer other([](const client::testing::RecordedRequest&) {
    return client::testing::Reply{200, R"({"major": "2", "minor": "0"})"};
  });
  auto other_client = ClientOf(other, clock);
  EXPECT_EQ(AskServerMinor(*other_client, clock, {}).status().code(), util::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ksched::app
