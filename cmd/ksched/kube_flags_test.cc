// Every flag of the real kube-scheduler's --help is one ksched handles
// (implemented or accepted-and-ignored), with the same kind (boolean or
// valued), and parses with a value of its type. The flag list is read from
// the binary at test time (KUBE_SCHEDULER=path, set by the k8s/flags ctest
// entry from build/k8s/bin), never kept in the repository, so a flag a
// new kube-scheduler adds fails this test until ksched handles it.
#include <stdio.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cmd/ksched/flags.h"

namespace ksched::app {
namespace {

struct KubeFlag {
  std::string name;
  std::string shorthand;
  std::string type;  // pflag's type name; "" for booleans
};

std::string RunHelp(const std::string& binary) {
  std::string out;
  FILE* p = popen(("'" + binary + "' --help 2>&1").c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// pflag prints a flag's type name after it unless the flag is a boolean;
// these are the type names pflag and component-base use.
const std::set<std::string>& TypeNames() {
  static const std::set<std::string> t = {"string",   "strings", "int",      "int32",   "float32",
                                          "duration", "ip",      "Level",    "quantity", "namedCertKey",
                                          "stringToString",      "colonSeparatedMultimapStringString",
                                          "pattern=N,...",       "version[=true]", "int32Slice"};
  return t;
}

std::vector<KubeFlag> ParseHelp(const std::string& help) {
  std::vector<KubeFlag> flags;
  const std::regex line(R"(^\s+(?:-([A-Za-z]), )?--([a-z0-9][a-z0-9-]*)(?: (\S+))?)");
  size_t start = 0;
  while (start < help.size()) {
    size_t nl = help.find('\n', start);
    std::string l = help.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    start = nl == std::string::npos ? help.size() : nl + 1;
    std::smatch m;
    if (!std::regex_search(l, m, line)) continue;
    KubeFlag f{m[2], m[1], m[3]};
    if (!TypeNames().count(f.type)) f.type = "";
    flags.push_back(f);
  }
  return flags;
}

// A value of the flag's type that kube-scheduler would accept too.
std::string Sample(const KubeFlag& f) {
  static const std::map<std::string, std::string> by_name = {
      {"logging-format", "json"},
      {"tls-min-version", "VersionTLS12"},
      {"tls-cipher-suites", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"},
      {"leader-elect-resource-lock", "leases"},
      {"kube-api-content-type", "application/json"},
      {"show-hidden-metrics-for-version", "1.33"},
      {"emulated-version", "kube=1.34"},
      {"min-compatibility-version", "kube=1.34"},
  };
  if (auto it = by_name.find(f.name); it != by_name.end()) return it->second;
  static const std::map<std::string, std::string> by_type = {
      {"string", "/tmp/x"},      {"strings", "a,b"},    {"int", "7"},          {"int32", "7"},
      {"float32", "12.5"},       {"duration", "90s"},   {"ip", "127.0.0.1"},   {"Level", "2"},
      {"quantity", "1Ki"},       {"namedCertKey", "a.crt,a.key"},
      {"stringToString", "scheduler_foo,result=a"},     {"colonSeparatedMultimapStringString", "kube:SchedulerQueueingHints=true"},
      {"pattern=N,...", "schedule_one=3"},               {"version[=true]", "raw"},
      {"int32Slice", "23,29"},
  };
  return by_type.at(f.type);
}

TEST(KubeSchedulerFlags, EveryFlagOfTheRealBinaryIsHandled) {
  const char* binary = std::getenv("KUBE_SCHEDULER");
  if (binary == nullptr) GTEST_SKIP() << "KUBE_SCHEDULER is not set (the k8s/flags ctest entry sets it)";
  std::vector<KubeFlag> kube = ParseHelp(RunHelp(binary));
  ASSERT_GE(kube.size(), 50u) << "could not read the flags of " << binary << " --help";

  std::map<std::string, FlagInfo> ours;
  for (const FlagInfo& f : KnownFlags()) ours[f.name] = f;
  for (const KubeFlag& k : kube) {
    SCOPED_TRACE("--" + k.name + (k.type.empty() ? "" : " " + k.type));
    auto it = ours.find(k.name);
    ASSERT_NE(it, ours.end()) << "kube-scheduler has --" << k.name << "; ksched does not handle it";
    const FlagInfo& f = it->second;
    EXPECT_NE(f.support, FlagSupport::kKschedOnly);
    if (f.support == FlagSupport::kIgnored) {
      EXPECT_FALSE(f.ignored_because.empty());
    }
    EXPECT_EQ(f.is_bool, k.type.empty() || k.type == "version[=true]") << "boolean in one, valued in the other";
    if (k.type.empty()) {
      auto bare = ParseFlags({"--" + k.name});
      EXPECT_TRUE(bare.ok()) << bare.status().message();
      EXPECT_TRUE(ParseFlags({"--" + k.name + "=false"}).ok());
    } else {
      const std::string v = Sample(k);
      auto eq = ParseFlags({"--" + k.name + "=" + v});
      EXPECT_TRUE(eq.ok()) << v << ": " << eq.status().message();
      if (!f.optional_value) {
        auto sep = ParseFlags({"--" + k.name, v});
        EXPECT_TRUE(sep.ok()) << v << ": " << sep.status().message();
      }
    }
    if (!k.shorthand.empty()) {
      auto s = k.type.empty() ? ParseFlags({"-" + k.shorthand}) : ParseFlags({"-" + k.shorthand, Sample(k)});
      EXPECT_TRUE(s.ok()) << "-" << k.shorthand << ": " << s.status().message();
    }
  }
}

// The help parser itself, on pflag's layout, so a change in kube's --help
// format shows up as a parse failure here rather than as a vacuous pass.
TEST(KubeSchedulerFlags, HelpParser) {
  std::vector<KubeFlag> f = ParseHelp(
      "Misc flags:\n\n      --config string            The path.\n"
      "      --permit-port-sharing                    If true, SO_REUSEPORT\n"
      "  -v, --v Level                              number for the log level verbosity\n"
      "      --feature-gates colonSeparatedMultimapStringString   Comma-separated\n"
      "                                                           kube:APIResponseCompression=true|false\n"
      "      --version version[=true]   --version, --version=raw prints\n");
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0].name, "config");
  EXPECT_EQ(f[0].type, "string");
  EXPECT_EQ(f[1].name, "permit-port-sharing");
  EXPECT_EQ(f[1].type, "");
  EXPECT_EQ(f[2].shorthand, "v");
  EXPECT_EQ(f[2].type, "Level");
  EXPECT_EQ(f[3].type, "colonSeparatedMultimapStringString");
  EXPECT_EQ(f[4].type, "version[=true]");
}

}  // namespace
}  // namespace ksched::app
