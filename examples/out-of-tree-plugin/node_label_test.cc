// NodeLabel's args codec as configuration loading uses it (errors with
// file:line:column and field path), its encoding, and Score.
#include "examples/out-of-tree-plugin/node_label.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/config/decode.h"
#include "pkg/config/encode.h"
#include "pkg/config/load.h"
#include "pkg/scheduler/framework/test_objects.h"
#include "pkg/scheduler/plugins/registry.h"

namespace nodelabel {
namespace {

namespace config = ksched::config;
namespace framework = ksched::scheduler::framework;
namespace st = ksched::scheduler::framework::testing;

// The in-tree registry plus NodeLabel, as ksched-with-nodelabel builds it.
framework::Registry WithNodeLabel() {
  ksched::util::StatusOr<framework::Registry> r = ksched::scheduler::plugins::InTreeRegistry();
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r->Register(Registration()).ok());
  return std::move(r).value();
}

constexpr char kHeader[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: ksched
  plugins:
    multiPoint:
      enabled:
      - name: NodeLabel
        weight: 5
  pluginConfig:
  - name: NodeLabel
)";

config::LoadResult Load(const std::string& args) {
  return config::LoadConfig(std::string(kHeader) + args, "s.yaml", WithNodeLabel().Known());
}

std::vector<std::string> Errors(const std::string& args) {
  std::vector<std::string> out;
  for (const config::FieldError& e : Load(args).errors) out.push_back(e.ToString());
  return out;
}

TEST(NodeLabelArgsTest, DecodesTheWeightMap) {
  config::LoadResult r = Load("    args:\n      labelKey: example.com/tier\n      weights: {gold: 100, silver: 40}\n");
  ASSERT_TRUE(r.errors.empty()) << config::JoinErrors(r.errors);
  const NodeLabelArgs* a = config::GetPluginArgs<NodeLabelArgs>(r.config->profiles[0], "NodeLabel");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->label_key, "example.com/tier");
  EXPECT_EQ(a->weights, (std::map<std::string, int64_t>{{"gold", 100}, {"silver", 40}}));
}

// kHeader ends at line 11; args start at 12. A missing field is reported at
// the args mapping (its first key, 13:7).
TEST(NodeLabelArgsTest, ValidationErrorsPointIntoTheFile) {
  EXPECT_EQ(Errors("    args:\n      weights: {gold: 150}\n"),
            (std::vector<std::string>{
                "s.yaml:13:7: profiles[0].pluginConfig[0].args.labelKey: Required value: the label whose value "
                "picks the weight",
                "s.yaml:13:23: profiles[0].pluginConfig[0].args.weights.gold: Invalid value: 150: not in valid "
                "range [0, 100]"}));
  EXPECT_EQ(Errors("    args:\n      labelKey: \"bad key!\"\n      weights: {}\n"),
            (std::vector<std::string>{
                "s.yaml:13:17: profiles[0].pluginConfig[0].args.labelKey: Invalid value: \"bad key!\": name part "
                "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
                "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                "s.yaml:14:16: profiles[0].pluginConfig[0].args.weights: Required value: at least one label value "
                "and its weight"}));
}

TEST(NodeLabelArgsTest, DecodeErrorsPointIntoTheFile) {
  EXPECT_EQ(Errors("    args:\n      labelKey: tier\n      weights: {gold: high}\n      extra: 1\n"),
            (std::vector<std::string>{
                "s.yaml:14:23: profiles[0].pluginConfig[0].args.weights.gold: expected an integer, got \"high\"",
                "s.yaml:15:7: profiles[0].pluginConfig[0].args.extra: strict decoding error: unknown field \"extra\""}));
  EXPECT_EQ(Errors("    args:\n      kind: NodeAffinityArgs\n      labelKey: tier\n      weights: {gold: 1}\n"),
            (std::vector<std::string>{
                "s.yaml:13:13: profiles[0].pluginConfig[0].args.kind: Invalid value: \"NodeAffinityArgs\": args for "
                "plugin NodeLabel were not of type kubescheduler.config.k8s.io/NodeLabelArgs, got "
                "kubescheduler.config.k8s.io/NodeAffinityArgs"}));
}

TEST(NodeLabelArgsTest, WithoutTheRegistrationTheNameIsUnknown) {
  config::LoadResult r = config::LoadConfig(std::string(kHeader) + "    args: {labelKey: tier, weights: {a: 1}}\n",
                                            "s.yaml", ksched::scheduler::plugins::InTreePlugins());
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].ToString().find("\"NodeLabel\""), std::string::npos) << r.errors[0].ToString();
}

TEST(NodeLabelArgsTest, EncodesAndDecodesBack) {
  config::LoadResult r = Load("    args:\n      labelKey: tier\n      weights: {gold: 100, bronze: 0}\n");
  ASSERT_TRUE(r.errors.empty()) << config::JoinErrors(r.errors);
  const std::string yaml = config::EncodeYaml(*r.config);
  EXPECT_NE(yaml.find("kind: NodeLabelArgs"), std::string::npos) << yaml;
  config::DecodeResult back = config::DecodeConfig(yaml, "out.yaml", WithNodeLabel().Known());
  ASSERT_TRUE(back.ok()) << config::JoinErrors(back.errors);
  EXPECT_EQ(config::ToJson(back.config), config::ToJson(*r.config));
}

TEST(NodeLabelTest, ScoresByTheLabelsWeight) {
  NodeLabelArgs args;
  args.label_key = "tier";
  args.weights = {{"gold", 100}, {"silver", 40}};
  ksched::util::StatusOr<std::shared_ptr<NodeLabel>> p = New(args);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  framework::CycleState state;
  const ksched::api::Pod pod = *st::MakePod("p").Obj();
  auto score = [&](st::NodeWrapper node) {
    framework::NodeInfo info(node.Obj());
    auto [s, st] = (*p)->Score(state, pod, info);
    EXPECT_TRUE(st.IsSuccess());
    return s;
  };
  EXPECT_EQ(score(st::MakeNode("a").Label("tier", "gold")), 100);
  EXPECT_EQ(score(st::MakeNode("b").Label("tier", "silver")), 40);
  EXPECT_EQ(score(st::MakeNode("c").Label("tier", "bronze")), 0);
  EXPECT_EQ(score(st::MakeNode("d")), 0);
}

TEST(NodeLabelTest, FactoryRejectsInvalidOrMissingArgs) {
  ksched::util::StatusOr<std::shared_ptr<NodeLabel>> empty = New(config::PluginArgs());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(),
            "labelKey: Required value: the label whose value picks the weight\n"
            "weights: Required value: at least one label value and its weight");
}

}  // namespace
}  // namespace nodelabel
