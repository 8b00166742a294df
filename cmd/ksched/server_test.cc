// Server's leader-election wiring, without a cluster: the routes are served
// in-process (Endpoints().Serve) and the elector is built but not started.
// The behaviour against a real API server (two processes, takeover,
// release, loss) is test/e2e/leader_election_test.sh.
#include "cmd/ksched/server.h"

#include <gtest/gtest.h>

#include "pkg/config/defaults.h"
#include "pkg/scheduler/plugins/registry.h"

namespace ksched::app {
namespace {

ServerOptions Options(bool leader_elect) {
  ServerOptions o;
  o.config = config::DefaultConfiguration(scheduler::plugins::InTreePlugins());
  o.config.leader_election.leader_elect = leader_elect;
  o.config.leader_election.resource_name = "ksched";
  o.config.leader_election.resource_namespace = "ksched-system";
  o.rest.host = "http://127.0.0.1:1";  // never contacted
  o.endpoints.secure_port = 0;
  o.endpoints.http_port = 0;
  o.leader_identity = "host-a_1234";
  return o;
}

metrics::HttpResponse Get(Server& s, const std::string& target) {
  util::StatusOr<metrics::HttpRequest> r = metrics::EndpointServer::ParseTarget("GET", target);
  EXPECT_TRUE(r.ok());
  return s.Endpoints().Serve(*r);
}

class ServerTest : public ::testing::Test {
 protected:
  std::unique_ptr<Server> New(ServerOptions o) {
    util::StatusOr<std::unique_ptr<Server>> s = Server::New(std::move(o), *registry_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  util::StatusOr<scheduler::framework::Registry> registry_ = scheduler::plugins::InTreeRegistry();
};

TEST_F(ServerTest, LeaderElectionOnStartsAsAStandbyThatSaysSo) {
  std::unique_ptr<Server> s = New(Options(true));
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->LeaderElectionEnabled());
  ASSERT_NE(s->Elector(), nullptr);
  EXPECT_EQ(s->Elector()->Identity(), "host-a_1234");
  EXPECT_FALSE(s->Scheduling());

  metrics::HttpResponse r = Get(*s, "/readyz/leader-election");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok: standby (no leader observed)");
  // Not ready overall until the informers synced (they never start here).
  EXPECT_EQ(Get(*s, "/readyz").status, 500);
  // The watchdog passes on a standby.
  EXPECT_EQ(Get(*s, "/livez/leaderElection").status, 200);
  EXPECT_EQ(Get(*s, "/healthz/leaderElection").status, 200);
  EXPECT_NE(Get(*s, "/metrics").body.find("leader_election_master_status{name=\"ksched\"} 0"), std::string::npos);
}

TEST_F(ServerTest, LeaderElectionOffSaysSoAndHasNoElector) {
  std::unique_ptr<Server> s = New(Options(false));
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->LeaderElectionEnabled());
  EXPECT_EQ(s->Elector(), nullptr);
  EXPECT_EQ(Get(*s, "/readyz/leader-election").body, "ok: leader election disabled");
  EXPECT_EQ(Get(*s, "/livez/leaderElection").status, 404);
  // StartLeaderElection without an elector does nothing.
  s->StartLeaderElection();
  EXPECT_FALSE(s->Scheduling());
}

TEST_F(ServerTest, InconsistentLeaderElectionDurationsFailNew) {
  ServerOptions o = Options(true);
  o.config.leader_election.lease_duration = std::chrono::seconds(5);  // <= renewDeadline 10s
  util::StatusOr<std::unique_ptr<Server>> s = Server::New(std::move(o), *registry_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("renewDeadline"), std::string::npos) << s.status().message();
}

}  // namespace
}  // namespace ksched::app
