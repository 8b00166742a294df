#include "pkg/log/formatter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/ostream_sink.h>

#include <sstream>
#include <string>
#include <vector>

namespace ksched::log {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class FormatterTest : public ::testing::Test {
 protected:
  void Configure(Format format, int v, std::string vmodule = "") {
    Options o;
    o.format = format;
    o.verbosity = v;
    o.vmodule = std::move(vmodule);
    ConfigureForTest(o, std::make_shared<spdlog::sinks::ostream_sink_mt>(out_));
  }
  void TearDown() override { Init(0); }
  std::ostringstream out_;
};

TEST_F(FormatterTest, JsonLinesHaveKubeSchedulersKeys) {
  Configure(Format::kJson, 2);
  // clang-format off
  const int line = __LINE__; KLOG_INFOS(2, "Successfully bound pod to node", {"pod", ObjectRef{"default", "web-1"}}, {"node", "node-a"}, {"evaluatedNodes", 3}, {"feasibleNodes", 2});
  // clang-format on
  KLOG_INFOS(3, "Attempting to schedule pod", {"pod", ObjectRef{"default", "web-1"}});  // above --v
  KLOG_ERRORS("0/3 nodes are available", "Error scheduling pod; retrying", {"pod", ObjectRef{"ns", "p"}});
  KLOG_V(1, "plain {} \"quoted\"\n{}", "text", 7);
  spdlog::warn("a warning");
  std::vector<std::string> lines = Lines(out_.str());
  ASSERT_EQ(lines.size(), 4u) << out_.str();
  std::vector<nlohmann::json> j;
  for (const std::string& l : lines) {
    ASSERT_TRUE(nlohmann::json::accept(l)) << l;
    j.push_back(nlohmann::json::parse(l));
  }
  EXPECT_TRUE(j[0]["ts"].is_number());
  EXPECT_GT(j[0]["ts"].get<double>(), 1.6e12) << "milliseconds since the epoch";
  EXPECT_EQ(j[0]["caller"], "log/formatter_test.cc:" + std::to_string(line));
  EXPECT_EQ(j[0]["msg"], "Successfully bound pod to node");
  EXPECT_EQ(j[0]["v"], 2);
  EXPECT_EQ(j[0]["pod"], (nlohmann::json{{"name", "web-1"}, {"namespace", "default"}}));
  EXPECT_EQ(j[0]["node"], "node-a");
  EXPECT_EQ(j[0]["evaluatedNodes"], 3);
  EXPECT_EQ(j[0]["feasibleNodes"], 2);
  // Key order is kube's: ts, caller, msg, v, then the pairs.
  EXPECT_EQ(lines[0].rfind("{\"ts\":", 0), 0u);
  EXPECT_LT(lines[0].find("\"caller\""), lines[0].find("\"msg\""));
  EXPECT_LT(lines[0].find("\"v\""), lines[0].find("\"pod\""));

  EXPECT_EQ(j[1]["msg"], "Error scheduling pod; retrying");
  EXPECT_FALSE(j[1].contains("v")) << "errors carry no verbosity, as zapr's";
  EXPECT_EQ(j[1]["err"], "0/3 nodes are available");

  EXPECT_EQ(j[2]["msg"], "plain text \"quoted\"\n7");
  EXPECT_EQ(j[2]["v"], 1);
  EXPECT_TRUE(j[2].contains("caller"));
  EXPECT_EQ(j[3]["msg"], "a warning");
  EXPECT_EQ(j[3]["v"], 0);
  EXPECT_FALSE(j[3].contains("caller")) << "a plain spdlog call has no source location";
}

TEST_F(FormatterTest, JsonEscapesControlBytes) {
  Configure(Format::kJson, 0);
  KLOG_INFOS(0, "m", {"k", std::string("a\x01" "b\\c")}, {"ok", true}, {"ratio", 0.5});
  std::vector<std::string> lines = Lines(out_.str());
  ASSERT_EQ(lines.size(), 1u);
  nlohmann::json j = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(j["k"], "a\x01" "b\\c");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["ratio"], 0.5);
}

TEST_F(FormatterTest, TextIsKlogs) {
  Configure(Format::kText, 2);
  KLOG_INFOS(2, "Unable to schedule pod; no fit; waiting", {"pod", ObjectRef{"default", "big"}},
             {"err", "0/2 nodes are available"});
  KLOG_ERRORS("boom", "Error scheduling pod; retrying", {"pod", ObjectRef{"ns", "p"}});
  spdlog::info("plain line");
  std::vector<std::string> lines = Lines(out_.str());
  ASSERT_EQ(lines.size(), 3u);
  // I1126 10:52:27.123456   12345 formatter_test.cc:88] "msg" pod="default/big" ...
  EXPECT_EQ(lines[0][0], 'I');
  EXPECT_NE(lines[0].find(" formatter_test.cc:"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("] \"Unable to schedule pod; no fit; waiting\" pod=\"default/big\" "
                          "err=\"0/2 nodes are available\""),
            std::string::npos)
      << lines[0];
  EXPECT_EQ(lines[1][0], 'E');
  EXPECT_NE(lines[1].find("] \"Error scheduling pod; retrying\" err=\"boom\" pod=\"ns/p\""), std::string::npos)
      << lines[1];
  EXPECT_NE(lines[2].find("] plain line"), std::string::npos) << lines[2];
}

TEST_F(FormatterTest, VModuleRaisesOneFile) {
  Configure(Format::kText, 0, "formatter_test=4");
  KLOG_V(4, "shown by vmodule");
  KLOG_V(5, "above the file's level");
  std::vector<std::string> lines = Lines(out_.str());
  ASSERT_EQ(lines.size(), 1u) << out_.str();
  EXPECT_NE(lines[0].find("shown by vmodule"), std::string::npos);
}

}  // namespace
}  // namespace ksched::log
