#include "pkg/util/change_log.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksched::util {
namespace {

std::vector<std::string> Since(const ChangeLog& log, uint64_t revision, bool* known) {
  std::vector<std::string> keys;
  *known = log.ChangedSince(revision, &keys);
  return keys;
}

TEST(ChangeLogTest, NamesTheKeysChangedAfterARevision) {
  ChangeLog log(3);
  bool known = false;
  EXPECT_TRUE(Since(log, 0, &known).empty());
  EXPECT_TRUE(known);
  log.Record("a");
  const uint64_t after_a = log.revision();
  log.Record("b");
  log.Record("a");
  EXPECT_EQ(Since(log, after_a, &known), (std::vector<std::string>{"b", "a"}));
  EXPECT_TRUE(known);
  EXPECT_EQ(Since(log, 0, &known), (std::vector<std::string>{"a", "b", "a"}));
  EXPECT_TRUE(Since(log, log.revision(), &known).empty());
  EXPECT_TRUE(known);

  log.Record("c");  // the first "a" falls out of the log
  EXPECT_TRUE(Since(log, 0, &known).empty());
  EXPECT_FALSE(known);
  EXPECT_EQ(Since(log, after_a, &known), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_TRUE(known);
  Since(log, log.revision() + 1, &known);
  EXPECT_FALSE(known) << "a revision the log has not reached";
}

TEST(ChangeLogTest, AResetSendsEarlierReadersBackToTheStart) {
  ChangeLog log(8);
  log.Record("a");
  const uint64_t before = log.revision();
  log.Reset();
  bool known = true;
  EXPECT_TRUE(Since(log, before, &known).empty());
  EXPECT_FALSE(known);
  const uint64_t after = log.revision();
  log.Record("b");
  EXPECT_EQ(Since(log, after, &known), std::vector<std::string>{"b"});
  EXPECT_TRUE(known);
}

TEST(ChangeLogTest, KeepsNoKeysUntilAsked) {
  ChangeLog log;
  log.Record("a");
  bool known = false;
  EXPECT_TRUE(Since(log, log.revision(), &known).empty());
  EXPECT_TRUE(known) << "nothing changed since now";
  Since(log, 0, &known);
  EXPECT_FALSE(known);
  const uint64_t from = log.revision();
  log.KeepLast(2);
  log.Record("b");
  EXPECT_EQ(Since(log, from, &known), std::vector<std::string>{"b"});
  EXPECT_TRUE(known);
}

}  // namespace
}  // namespace ksched::util
