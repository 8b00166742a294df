#include "pkg/scheduler/plugins/registry.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/cache/snapshot.h"
#include "pkg/scheduler/framework/runtime/framework.h"
#include "pkg/scheduler/framework/test_objects.h"

namespace ksched::scheduler::plugins {
namespace {

// The in-tree DefaultBinder arrives with its own folder; this stand-in makes
// a profile complete.
class TestBinder final : public framework::BindPlugin {
 public:
  std::string_view Name() const override { return "TestBinder"; }
  framework::Status Bind(framework::CycleState&, const api::Pod&, std::string_view) override {
    return framework::Status();
  }
};

TEST(InTreeRegistryTest, BuildsAProfileFromRegisteredPlugins) {
  util::StatusOr<framework::Registry> reg = InTreeRegistry();
  ASSERT_TRUE(reg.ok()) << reg.status().ToString();
  EXPECT_TRUE(reg->Has("PrioritySort"));
  EXPECT_TRUE(reg->Has("SchedulingGates"));
  ASSERT_TRUE(reg->Register("TestBinder", [](const config::PluginArgs&, framework::Handle&)
                                              -> util::StatusOr<std::shared_ptr<framework::Plugin>> {
                   return std::shared_ptr<framework::Plugin>(std::make_shared<TestBinder>());
                 }).ok());

  config::KubeSchedulerProfile profile;
  profile.scheduler_name = "ksched";
  profile.plugins.multi_point.enabled = {config::Plugin{"SchedulingGates", std::nullopt, ""},
                                         config::Plugin{"PrioritySort", std::nullopt, ""},
                                         config::Plugin{"TestBinder", std::nullopt, ""}};
  auto snapshot = cache::Snapshot::FromObjects({}, {});
  util::Parallelizer parallelizer(1);
  framework::runtime::FrameworkOptions opts;
  opts.snapshot_lister = snapshot.get();
  opts.parallelizer = &parallelizer;
  util::StatusOr<std::unique_ptr<framework::runtime::Framework>> f =
      framework::runtime::Framework::New(*reg, profile, opts);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ((*f)->QueueSort().Name(), "PrioritySort");
  ASSERT_EQ((*f)->PreEnqueuePlugins().size(), 1u);

  auto gated = framework::testing::MakePod("p");
  gated.pod().spec.scheduling_gates.push_back(api::PodSchedulingGate{"example.com/wait"});
  framework::Status s = (*f)->RunPreEnqueuePlugins(*gated.Obj());
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.plugin(), "SchedulingGates");
  EXPECT_TRUE((*f)->RunPreEnqueuePlugins(*framework::testing::MakePod("q").Obj()).IsSuccess());
}

// kube v1.37 runs NodeName before NodeUnschedulable (so a pod that fails
// both is reported by NodeName); earlier minors the other way round.
TEST(InTreeRegistryTest, DefaultOrderFollowsTheMinor) {
  auto position = [](const config::Plugins& p, std::string_view name) {
    for (size_t i = 0; i < p.multi_point.enabled.size(); ++i) {
      if (p.multi_point.enabled[i].name == name) return static_cast<int>(i);
    }
    return -1;
  };
  for (int minor : {34, 35, 36, 37}) {
    SCOPED_TRACE(minor);
    util::StatusOr<framework::Registry> reg = InTreeRegistry(framework::FeatureGates::ForMinor(minor));
    ASSERT_TRUE(reg.ok());
    const config::Plugins& p = reg->DefaultPlugins();
    EXPECT_EQ(position(p, "NodeName") < position(p, "NodeUnschedulable"), minor >= 37);
    EXPECT_EQ(position(p, "NodeName"), minor >= 37 ? 2 : 3);
    // NodeDeclaredFeatures is appended from v1.36, after DefaultBinder.
    EXPECT_EQ(position(p, "NodeDeclaredFeatures"), minor >= 36 ? position(p, "DefaultBinder") + 1 : -1);
  }
}

// What configuration loading sees: every in-tree plugin, the nine with args
// with their own codec, and kube v1.37's default set naming every registered
// plugin but Coscheduling (scheduler-plugins', enabled by configuration only).
TEST(InTreeRegistryTest, KnownCarriesEveryPluginWithItsArgsCodec) {
  util::StatusOr<framework::Registry> reg = InTreeRegistry(framework::FeatureGates::ForMinor(37));
  ASSERT_TRUE(reg.ok()) << reg.status().ToString();
  const config::KnownPlugins known = reg->Known();
  EXPECT_EQ(known.Names(), reg->Names());
  EXPECT_EQ(InTreePlugins().Names(), reg->Names());
  EXPECT_EQ(InTreePlugins().default_plugins().multi_point.enabled.size() + 1,
            known.default_plugins().multi_point.enabled.size())
      << "v1.34's default set lacks NodeDeclaredFeatures only";
  std::vector<std::string> with_args;
  for (const std::string& name : known.Names()) {
    if (const config::ArgsCodec* codec = known.Codec(name)) {
      with_args.push_back(name);
      EXPECT_EQ(codec->Kind(), name + "Args");
      EXPECT_EQ(codec->Default().codec(), codec) << name;
    }
  }
  EXPECT_EQ(with_args, (std::vector<std::string>{"Coscheduling", "DefaultPreemption", "DynamicResources",
                                                 "InterPodAffinity", "NodeAffinity", "NodeResourcesBalancedAllocation",
                                                 "NodeResourcesFit", "PodTopologySpread", "VolumeBinding"}));
  const std::vector<config::Plugin>& defaults = known.default_plugins().multi_point.enabled;
  EXPECT_EQ(defaults.size() + 1, reg->size());
  for (const config::Plugin& p : defaults) {
    EXPECT_TRUE(reg->Has(p.name)) << p.name;
    EXPECT_NE(p.name, "Coscheduling");
  }
}

// A registration from outside the tree: its codec reaches Known(); a taken
// name is refused.
TEST(InTreeRegistryTest, ExtraRegistrationJoinsKnown) {
  util::StatusOr<framework::Registry> reg = InTreeRegistry();
  ASSERT_TRUE(reg.ok());
  const config::ArgsCodec* fit_codec = reg->ArgsCodecOf("NodeResourcesFit");
  ASSERT_NE(fit_codec, nullptr);
  auto factory = [](const config::PluginArgs&, framework::Handle&)
      -> util::StatusOr<std::shared_ptr<framework::Plugin>> { return util::InvalidArgument("unused"); };
  EXPECT_TRUE(reg->Register(framework::PluginRegistration{"Extra", factory, fit_codec}).ok());
  EXPECT_EQ(reg->Known().Codec("Extra"), fit_codec);
  util::Status dup = reg->Register(framework::PluginRegistration{"NodeName", factory, nullptr});
  EXPECT_EQ(dup.code(), util::StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.message(), "a plugin named NodeName already exists");
}

}  // namespace
}  // namespace ksched::scheduler::plugins
