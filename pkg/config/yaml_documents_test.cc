#include "pkg/config/yaml_documents.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksched::config {
namespace {

// yaml-cpp 0.7's LoadAll never returns on these; LoadDocuments throws.
TEST(YamlDocumentsTest, AStreamThatStopsTheParserIsAnError) {
  for (const std::string text : {"\"a\",", ",", "a: 1\n---\n'b' ,x\n"}) {
    SCOPED_TRACE(text);
    try {
      LoadDocuments(text);
      ADD_FAILURE() << "no error";
    } catch (const YAML::ParserException& e) {
      EXPECT_EQ(e.msg, "did not find expected <document start>");
    }
  }
}

TEST(YamlDocumentsTest, OtherwiseTheSameAsLoadAll) {
  for (const std::string text : {"", "a: 1\n", "a: 1\n---\nb: [1, 2]\n", "---\n---\n---\na: 1\n...\n",
                                 "- x\n- y\n", "~\n---\n~\n"}) {
    SCOPED_TRACE(text);
    const std::vector<YAML::Node> ours = LoadDocuments(text);
    const std::vector<YAML::Node> theirs = YAML::LoadAll(text);
    ASSERT_EQ(ours.size(), theirs.size());
    for (size_t i = 0; i < ours.size(); ++i) EXPECT_EQ(YAML::Dump(ours[i]), YAML::Dump(theirs[i]));
  }
  EXPECT_THROW(LoadDocuments("a: [1\n"), YAML::ParserException);
}

}  // namespace
}  // namespace ksched::config
