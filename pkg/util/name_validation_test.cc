#include "pkg/util/name_validation.h"

#include <gtest/gtest.h>

namespace ksched::util {
namespace {

TEST(IsQualifiedNameTest, AcceptsLabelKeys) {
  const std::vector<std::string> names = {
      "cpu", "memory",  "nvidia.com/gpu",    "kubernetes.io/hostname", "topology.kubernetes.io/zone",
      "a",   "A_b-c.d", std::string(63, 'x')};
  for (const std::string& ok : names) {
    EXPECT_TRUE(IsQualifiedName(ok).empty()) << ok;
  }
}

TEST(IsQualifiedNameTest, RejectsWithApimachineryMessages) {
  EXPECT_EQ(IsQualifiedName(""), (std::vector<std::string>{
                                     "name part must be non-empty",
                                     "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
                                     "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
                                     "or '123-abc', regex used for validation is "
                                     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                                 }));
  EXPECT_EQ(IsQualifiedName(std::string(64, 'x')),
            (std::vector<std::string>{"name part must be no more than 63 characters"}));
  EXPECT_EQ(IsQualifiedName("/x"), (std::vector<std::string>{"prefix part must be non-empty"}));
  std::vector<std::string> bad_prefix = IsQualifiedName("Example.com/x");
  ASSERT_EQ(bad_prefix.size(), 1u);
  EXPECT_EQ(bad_prefix[0].rfind("prefix part a lowercase RFC 1123 subdomain must consist of", 0), 0u);
  std::vector<std::string> two_slashes = IsQualifiedName("a/b/c");
  ASSERT_EQ(two_slashes.size(), 1u);
  EXPECT_EQ(two_slashes[0].rfind("a qualified name must consist of", 0), 0u);
  EXPECT_EQ(IsQualifiedName("-x").size(), 1u);
}

TEST(IsValidLabelValueTest, EmptyOrNameAlphabet) {
  EXPECT_TRUE(IsValidLabelValue("").empty());
  EXPECT_TRUE(IsValidLabelValue("my_value-1.2").empty());
  EXPECT_EQ(IsValidLabelValue("bad value").size(), 1u);
  for (const char* bad : {"-a", "a-", "_", ".", "a/b"}) EXPECT_EQ(IsValidLabelValue(bad).size(), 1u) << bad;
  for (const char* ok : {"a", "1", "a.b_c-d", "A9"}) EXPECT_TRUE(IsValidLabelValue(ok).empty()) << ok;
  EXPECT_EQ(IsValidLabelValue(std::string(64, 'x')), (std::vector<std::string>{"must be no more than 63 characters"}));
}

TEST(IsDNS1123SubdomainTest, Lowercase) {
  EXPECT_TRUE(IsDNS1123Subdomain("example.com").empty());
  EXPECT_TRUE(IsDNS1123Subdomain("a").empty());
  EXPECT_TRUE(IsDNS1123Subdomain("a-1.b--2.c").empty());
  for (const char* bad : {"", "a..b", "-a", "a-", "a.-b", ".a", "a.", "a_b"}) {
    EXPECT_EQ(IsDNS1123Subdomain(bad).size(), 1u) << bad;
  }
  EXPECT_EQ(IsDNS1123Subdomain("Example.com").size(), 1u);
  EXPECT_EQ(IsDNS1123Subdomain(std::string(254, 'a')).size(), 1u);
}

// The content package's wording, which CEL's format library uses from 1.35.
TEST(NameWordingTest, ContentPackageSaysBytesAndLabelKey) {
  EXPECT_EQ(IsQualifiedName(std::string(64, 'x'), NameWording::kContent),
            (std::vector<std::string>{"name part must be no more than 63 bytes"}));
  EXPECT_EQ(IsValidLabelValue(std::string(64, 'x'), NameWording::kContent),
            (std::vector<std::string>{"must be no more than 63 bytes"}));
  std::vector<std::string> two_slashes = IsQualifiedName("a/b/c", NameWording::kContent);
  ASSERT_EQ(two_slashes.size(), 1u);
  EXPECT_EQ(two_slashes[0].rfind("a valid label key must consist of", 0), 0u);
  std::vector<std::string> long_prefix = IsQualifiedName(std::string(254, 'a') + "/x", NameWording::kContent);
  ASSERT_EQ(long_prefix.size(), 1u);
  EXPECT_EQ(long_prefix[0], "prefix part must be no more than 253 bytes");
}

TEST(DnsLabelTest, Messages) {
  EXPECT_TRUE(IsDNS1123Label("my-name").empty());
  EXPECT_EQ(IsDNS1123Label("a.b"), (std::vector<std::string>{"must not contain dots"}));
  EXPECT_EQ(IsDNS1123Label(std::string(64, 'a')), (std::vector<std::string>{"must be no more than 63 characters"}));
  EXPECT_TRUE(IsDNS1035Label("abc-123").empty());
  ASSERT_EQ(IsDNS1035Label("1abc").size(), 1u);
  EXPECT_EQ(IsDNS1035Label("1abc")[0].rfind("a DNS-1035 label must consist of", 0), 0u);
}

}  // namespace
}  // namespace ksched::util
