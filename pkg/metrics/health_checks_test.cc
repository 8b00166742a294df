#include "pkg/metrics/health_checks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

namespace ksched::metrics {
namespace {

class HealthChecksTest : public ::testing::Test {
 protected:
  HealthChecksTest() : readyz_("readyz") {
    readyz_.Add("informer-sync", [this] {
      return synced_ ? util::Status::Ok() : util::Status(util::StatusCode::kUnavailable, "caches not synced");
    });
    readyz_.Add("leader-election", [this] {
      return leading_ ? util::Status::Ok() : util::Internal("lease lost 20s ago");
    });
  }
  HealthChecks readyz_;
  std::atomic<bool> synced_{true};
  std::atomic<bool> leading_{true};
};

TEST_F(HealthChecksTest, AllPassing) {
  EXPECT_EQ(readyz_.Names(), (std::vector<std::string>{"ping", "informer-sync", "leader-election"}));
  auto r = readyz_.RenderRoot(false, {});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  r = readyz_.RenderRoot(true, {});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "[+]ping ok\n[+]informer-sync ok\n[+]leader-election ok\nreadyz check passed\n");
}

TEST_F(HealthChecksTest, FailureListsEveryCheckAndWithholdsReasons) {
  leading_ = false;
  for (bool verbose : {false, true}) {
    auto r = readyz_.RenderRoot(verbose, {});
    EXPECT_EQ(r.status, 500);
    EXPECT_EQ(r.body,
              "[+]ping ok\n[+]informer-sync ok\n[-]leader-election failed: reason withheld\n"
              "readyz check failed\n");
  }
  auto single = readyz_.RenderSingle("leader-election");
  ASSERT_TRUE(single);
  EXPECT_EQ(single->status, 500);
  EXPECT_EQ(single->body, "internal server error: lease lost 20s ago\n");
  single = readyz_.RenderSingle("informer-sync");
  ASSERT_TRUE(single);
  EXPECT_EQ(single->status, 200);
  EXPECT_EQ(single->body, "ok");
  EXPECT_FALSE(readyz_.RenderSingle("nope"));
}

TEST_F(HealthChecksTest, ExcludeSkipsChecksAndWarnsAboutUnknownOnes) {
  leading_ = false;
  auto r = readyz_.RenderRoot(true, {"leader-election", "bogus"});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "[+]ping ok\n[+]informer-sync ok\n[+]leader-election excluded: ok\n"
            "warn: some health checks cannot be excluded: no matches for \"bogus\"\n"
            "readyz check passed\n");
}

TEST_F(HealthChecksTest, ThrowingCheckFailsAndAddReplacesByName) {
  readyz_.Add("informer-sync", []() -> util::Status { throw std::runtime_error("boom"); });
  auto r = readyz_.RenderRoot(false, {});
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("[-]informer-sync failed: reason withheld\n"), std::string::npos);
  EXPECT_EQ(readyz_.Names().size(), 3u);
  auto single = readyz_.RenderSingle("informer-sync");
  ASSERT_TRUE(single);
  EXPECT_EQ(single->body, "internal server error: check threw: boom\n");
}

TEST(HealthChecksDetailTest, PassingCheckShowsItsDetailOnlyInVerboseAndSingleAnswers) {
  HealthChecks readyz("readyz");
  std::atomic<bool> leading{false};
  readyz.Add("leader-election", [] { return util::Status::Ok(); },
             [&] { return std::string(leading ? "leader" : "standby"); });
  EXPECT_EQ(readyz.RenderRoot(false, {}).body, "ok");
  EXPECT_EQ(readyz.RenderRoot(true, {}).body, "[+]ping ok\n[+]leader-election ok: standby\nreadyz check passed\n");
  leading = true;
  EXPECT_EQ(readyz.RenderSingle("leader-election")->body, "ok: leader");
  // Replacing it without a detail drops the detail.
  readyz.Add("leader-election", [] { return util::Internal("lost"); });
  auto r = readyz.RenderRoot(true, {});
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("[-]leader-election failed: reason withheld"), std::string::npos);
  EXPECT_EQ(readyz.RenderSingle("leader-election")->body, "internal server error: lost\n");
}

}  // namespace
}  // namespace ksched::metrics
