#include "pkg/api/labels.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

LabelSelectorRequirement Expr(std::string key, std::string op, std::vector<std::string> values = {}) {
  return LabelSelectorRequirement{std::move(key), std::move(op), std::move(values)};
}

Selector MustParse(std::string_view s) {
  auto sel = Selector::Parse(s);
  EXPECT_TRUE(sel.ok()) << s << ": " << sel.status().ToString();
  return sel.ok() ? *sel : Selector::Nothing();
}

TEST(LabelKeyTest, Validation) {
  const std::vector<std::string> good = {"a",   "app", "A-b_c.d", "k8s.io/name", "app.kubernetes.io/component",
                                         "a/b", "topology.kubernetes.io/zone", "x1", std::string(63, 'n')};
  for (const std::string& key : good) EXPECT_TRUE(ValidateLabelKey(key).ok()) << key;
  const std::string long_name(64, 'n');
  const std::string long_prefix = std::string(254, 'p') + "/a";
  for (const std::string& bad : {std::string(""), std::string("-a"), std::string("a-"), std::string("/a"),
                                 std::string("a/"), std::string("a/b/c"), std::string("UP.io/a"),
                                 std::string("a b"), std::string("a=b"), std::string("_a"), long_name, long_prefix,
                                 std::string("-bad.io/a"), std::string("bad..io/a")}) {
    EXPECT_FALSE(ValidateLabelKey(bad).ok()) << bad;
  }
}

TEST(LabelValueTest, Validation) {
  for (const char* good : {"", "a", "v1.2-3_x", "A", "0"}) EXPECT_TRUE(ValidateLabelValue(good).ok()) << good;
  for (const std::string& bad :
       {std::string("-a"), std::string("a-"), std::string("a b"), std::string(64, 'v'), std::string("a/b"),
        std::string(".a")}) {
    EXPECT_FALSE(ValidateLabelValue(bad).ok()) << bad;
  }
}

TEST(LabelRequirementTest, CreateValidates) {
  EXPECT_TRUE(LabelRequirement::Create("a", SelectorOperator::kIn, {"x"}).ok());
  EXPECT_FALSE(LabelRequirement::Create("a", SelectorOperator::kIn, {}).ok());
  EXPECT_FALSE(LabelRequirement::Create("a", SelectorOperator::kNotIn, {}).ok());
  EXPECT_FALSE(LabelRequirement::Create("a", SelectorOperator::kEquals, {}).ok());
  EXPECT_FALSE(LabelRequirement::Create("a", SelectorOperator::kEquals, {"x", "y"}).ok());
  EXPECT_FALSE(LabelRequirement::Create("a", SelectorOperator::kExists, {"x"}).ok());
  EXPECT_FALSE(LabelRequirement::Create("a", SelectorOperator::kDoesNotExist, {"x"}).ok());
  EXPECT_FALSE(LabelRequirement::Create("a", SelectorOperator::kGreaterThan, {}).ok());
  EXPECT_FALSE(LabelRequirement::Create("a", SelectorOperator::kGreaterThan, {"x"}).ok());
  EXPECT_FALSE(LabelRequirement::Create("a", SelectorOperator::kLessThan, {"1", "2"}).ok());
  EXPECT_TRUE(LabelRequirement::Create("a", SelectorOperator::kLessThan, {"12"}).ok());
  EXPECT_FALSE(LabelRequirement::Create("bad key", SelectorOperator::kExists, {}).ok());
  EXPECT_FALSE(LabelRequirement::Create("a", SelectorOperator::kIn, {"bad value"}).ok());
  auto r = LabelRequirement::Create("a", SelectorOperator::kIn, {"z", "x", "z"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->values(), (std::vector<std::string>{"x", "z"}));
}

struct MatchCase {
  SelectorOperator op;
  std::vector<std::string> values;
  StringMap labels;
  bool match;
};

TEST(LabelRequirementTest, Matches) {
  using Op = SelectorOperator;
  const MatchCase cases[] = {
      {Op::kIn, {"x", "y"}, {{"a", "x"}}, true},
      {Op::kIn, {"x", "y"}, {{"a", "z"}}, false},
      {Op::kIn, {"x"}, {{"b", "x"}}, false},
      {Op::kIn, {""}, {{"a", ""}}, true},
      {Op::kNotIn, {"x"}, {{"a", "z"}}, true},
      {Op::kNotIn, {"x"}, {{"a", "x"}}, false},
      {Op::kNotIn, {"x"}, {}, true},  // a missing label is not in any set
      {Op::kEquals, {"x"}, {{"a", "x"}}, true},
      {Op::kDoubleEquals, {"x"}, {{"a", "x"}}, true},
      {Op::kEquals, {"x"}, {}, false},
      {Op::kNotEquals, {"x"}, {{"a", "y"}}, true},
      {Op::kNotEquals, {"x"}, {}, true},
      {Op::kNotEquals, {"x"}, {{"a", "x"}}, false},
      {Op::kExists, {}, {{"a", ""}}, true},
      {Op::kExists, {}, {{"b", "x"}}, false},
      {Op::kDoesNotExist, {}, {{"b", "x"}}, true},
      {Op::kDoesNotExist, {}, {{"a", "x"}}, false},
      {Op::kGreaterThan, {"5"}, {{"a", "6"}}, true},
      {Op::kGreaterThan, {"5"}, {{"a", "5"}}, false},
      {Op::kGreaterThan, {"5"}, {{"a", "x"}}, false},  // not an integer
      {Op::kGreaterThan, {"5"}, {}, false},
      {Op::kGreaterThan, {"5"}, {{"a", "+7"}}, true},
      {Op::kGreaterThan, {"5"}, {{"a", "99999999999999999999"}}, false},  // overflows int64
      {Op::kLessThan, {"5"}, {{"a", "-3"}}, true},
      {Op::kLessThan, {"5"}, {{"a", "5"}}, false},
      {Op::kLessThan, {"5"}, {{"a", ""}}, false},
  };
  for (const auto& c : cases) {
    auto r = LabelRequirement::Create("a", c.op, c.values);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->Matches(c.labels), c.match) << r->ToString();
  }
}

TEST(LabelSelectorTest, FromLabelSelector) {
  LabelSelector ls;
  ls.match_labels = {{"app", "web"}};
  ls.match_expressions = {Expr("tier", "In", {"fe", "be"}), Expr("env", "NotIn", {"dev"}), Expr("track", "Exists"),
                          Expr("legacy", "DoesNotExist")};
  auto sel = Selector::FromLabelSelector(ls);
  ASSERT_TRUE(sel.ok()) << sel.status().ToString();
  EXPECT_FALSE(sel->Empty());
  EXPECT_TRUE(sel->Matches({{"app", "web"}, {"tier", "fe"}, {"track", "stable"}}));
  EXPECT_TRUE(sel->Matches({{"app", "web"}, {"tier", "be"}, {"env", "prod"}, {"track", ""}}));
  EXPECT_FALSE(sel->Matches({{"app", "web"}, {"tier", "fe"}, {"track", "x"}, {"env", "dev"}}));
  EXPECT_FALSE(sel->Matches({{"app", "web"}, {"tier", "fe"}}));
  EXPECT_FALSE(sel->Matches({{"app", "web"}, {"tier", "fe"}, {"track", "x"}, {"legacy", "1"}}));
  EXPECT_FALSE(sel->Matches({{"app", "db"}, {"tier", "fe"}, {"track", "x"}}));
  EXPECT_EQ(sel->ToString(), "app=web,env notin (dev),!legacy,tier in (be,fe),track");
}

TEST(LabelSelectorTest, FromLabelSelectorErrors) {
  const std::vector<LabelSelectorRequirement> bad = {
      Expr("a", "Gt", {"1"}),        // not a label selector operator
      Expr("a", "in", {"x"}),        // operators are case-sensitive
      Expr("a", "In", {}),           // In needs values
      Expr("a", "NotIn", {}),        // NotIn needs values
      Expr("a", "Exists", {"x"}),    // Exists takes none
      Expr("a", "DoesNotExist", {"x"}),
      Expr("bad key", "Exists"),
      Expr("a", "In", {"bad value"}),
  };
  for (const auto& e : bad) {
    LabelSelector ls;
    ls.match_expressions = {e};
    EXPECT_FALSE(Selector::FromLabelSelector(ls).ok()) << e.key << " " << e.operator_;
  }
  LabelSelector bad_labels;
  bad_labels.match_labels = {{"a", "bad value"}};
  EXPECT_FALSE(Selector::FromLabelSelector(bad_labels).ok());
}

TEST(LabelSelectorTest, EmptyNilAndNothing) {
  auto empty = Selector::FromLabelSelector(LabelSelector{});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->Empty());
  EXPECT_TRUE(empty->Matches({}));
  EXPECT_TRUE(empty->Matches({{"a", "b"}}));

  auto nil = Selector::FromLabelSelector(std::optional<LabelSelector>());
  ASSERT_TRUE(nil.ok());
  EXPECT_TRUE(nil->IsNothing());
  EXPECT_FALSE(nil->Empty());
  EXPECT_FALSE(nil->Matches({}));
  EXPECT_FALSE(nil->Matches({{"a", "b"}}));
  EXPECT_EQ(nil->ToString(), "");

  auto set = Selector::FromLabelSelector(std::optional<LabelSelector>(LabelSelector{}));
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set->Matches({{"a", "b"}}));

  EXPECT_TRUE(Selector::Everything().Matches({}));
  EXPECT_TRUE(Selector().Empty());
  EXPECT_FALSE(Selector::Nothing().Matches({}));
}

TEST(LabelSelectorTest, FromSetAndAdd) {
  const Selector s = Selector::FromSet({{"zone", "a"}, {"disk", "ssd"}});
  EXPECT_TRUE(s.Matches({{"zone", "a"}, {"disk", "ssd"}, {"extra", "1"}}));
  EXPECT_FALSE(s.Matches({{"zone", "a"}}));
  EXPECT_FALSE(s.Matches({{"zone", "b"}, {"disk", "ssd"}}));
  EXPECT_EQ(s.ToString(), "disk=ssd,zone=a");
  EXPECT_TRUE(Selector::FromSet({}).Empty());

  auto r = LabelRequirement::Create("b", SelectorOperator::kExists, {});
  ASSERT_TRUE(r.ok());
  const Selector added = s.Add(*r);
  EXPECT_EQ(added.ToString(), "b,disk=ssd,zone=a");
  EXPECT_EQ(s.requirements().size(), 2u);  // Add returns a copy
  EXPECT_FALSE(added.Matches({{"zone", "a"}, {"disk", "ssd"}}));
}

struct ParseCase {
  const char* in;
  const char* canonical;
};

TEST(LabelSelectorParseTest, ValidStrings) {
  const ParseCase cases[] = {
      {"", ""},
      {"   ", ""},
      {"a=b", "a=b"},
      {"a==b", "a==b"},
      {"a!=b", "a!=b"},
      {"a = b", "a=b"},
      {"a=", "a="},
      {"a=,b=c", "a=,b=c"},
      {"x=a,y=b,z=c", "x=a,y=b,z=c"},
      {"z=c,x=a", "x=a,z=c"},
      {"a in (x,y)", "a in (x,y)"},
      {"a in (y, x, y)", "a in (x,y)"},
      {"a notin (z)", "a notin (z)"},
      {"a in ()", "a in ()"},
      {"a in (,x)", "a in (,x)"},
      {"a in (x,)", "a in (,x)"},
      {"a in (x,,y)", "a in (,x,y)"},
      {"a in (,)", "a in ()"},
      {"g", "g"},
      {"!h", "!h"},
      {" ! h ", "!h"},
      {"i>3", "i>3"},
      {"in=notin", "in=notin"},
      {"in in (in)", "in in (in)"},
      {"k8s.io/app=web,!k8s.io/legacy", "k8s.io/app=web,!k8s.io/legacy"},
      {"a=b,c!=d,e in (x,y),f notin (z),g,!h", "a=b,c!=d,e in (x,y),f notin (z),g,!h"},
      {"x\t=\ny", "x=y"},
  };
  for (const auto& c : cases) {
    const Selector s = MustParse(c.in);
    EXPECT_EQ(s.ToString(), c.canonical) << c.in;
    // The printed form parses to the same requirements.
    const Selector again = MustParse(s.ToString());
    EXPECT_EQ(again.requirements(), s.requirements()) << c.in;
  }
  EXPECT_FALSE(Selector::Parse("i<-3").ok()) << "\"-3\" is not a valid label value";
  EXPECT_EQ(MustParse("a==").ToString(), "a==");  // an empty value
  EXPECT_TRUE(MustParse("").Empty());
}

TEST(LabelSelectorParseTest, MatchesLikeKube) {
  const Selector s = MustParse("a=b,c!=d,e in (x,y),f notin (z),g,!h");
  EXPECT_TRUE(s.Matches({{"a", "b"}, {"e", "x"}, {"g", ""}}));
  EXPECT_TRUE(s.Matches({{"a", "b"}, {"c", "q"}, {"e", "y"}, {"f", "w"}, {"g", "1"}}));
  EXPECT_FALSE(s.Matches({{"a", "b"}, {"c", "d"}, {"e", "x"}, {"g", ""}}));
  EXPECT_FALSE(s.Matches({{"a", "b"}, {"e", "x"}, {"f", "z"}, {"g", ""}}));
  EXPECT_FALSE(s.Matches({{"a", "b"}, {"e", "x"}}));
  EXPECT_FALSE(s.Matches({{"a", "b"}, {"e", "x"}, {"g", ""}, {"h", ""}}));
  EXPECT_FALSE(s.Matches({{"a", "b"}, {"e", "w"}, {"g", ""}}));
  EXPECT_TRUE(MustParse("a=").Matches({{"a", ""}}));
  EXPECT_FALSE(MustParse("a=").Matches({}));
  EXPECT_TRUE(MustParse("n>10").Matches({{"n", "11"}}));
  EXPECT_FALSE(MustParse("n>10").Matches({{"n", "9"}}));
}

TEST(LabelSelectorParseTest, Errors) {
  const char* bad[] = {
      "a b",        "a=b c",   ",a",        "a,",         "a,,b",      "=b",       "!",          "!!a",
      "!a=b",       "a in",    "a in x",    "a in (x",    "a in (x y)", "a in (,,)", "a in (x,=)", "a notin",
      "a=(",        "a=b=c",   "a>b",       "a>",         "a<",         "a in (x))", "-a=b",       "a=-b",
      "a=b,!",      "(a)",     "a!",        "a=b,,c=d",   "a in ((x))",
  };
  for (const char* s : bad) {
    auto sel = Selector::Parse(s);
    EXPECT_FALSE(sel.ok()) << '"' << s << "\" parsed as " << (sel.ok() ? sel->ToString() : "");
  }
  auto err = Selector::Parse("a in x");
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("'('"), std::string::npos) << err.status().message();
}

TEST(SelectorFieldTest, ParseAndMatch) {
  auto s = FieldSelector::Parse("spec.nodeName=node-1,status.phase!=Succeeded,metadata.namespace==kube-system");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->requirements().size(), 3u);
  EXPECT_EQ(s->requirements()[0], (FieldRequirement{"spec.nodeName", true, "node-1"}));
  EXPECT_EQ(s->requirements()[1], (FieldRequirement{"status.phase", false, "Succeeded"}));
  EXPECT_EQ(s->requirements()[2], (FieldRequirement{"metadata.namespace", true, "kube-system"}));
  EXPECT_TRUE(s->Matches({{"spec.nodeName", "node-1"}, {"status.phase", "Running"}, {"metadata.namespace", "kube-system"}}));
  EXPECT_FALSE(s->Matches({{"spec.nodeName", "node-1"}, {"status.phase", "Succeeded"}, {"metadata.namespace", "kube-system"}}));
  EXPECT_FALSE(s->Matches({{"spec.nodeName", "node-2"}, {"metadata.namespace", "kube-system"}}));
  EXPECT_EQ(s->RequiresExactMatch("spec.nodeName"), "node-1");
  EXPECT_EQ(s->RequiresExactMatch("status.phase"), std::nullopt);
  EXPECT_EQ(s->ToString(), "spec.nodeName=node-1,status.phase!=Succeeded,metadata.namespace=kube-system");
}

TEST(SelectorFieldTest, MissingFieldsReadAsEmpty) {
  auto unscheduled = FieldSelector::Parse("spec.nodeName=");
  ASSERT_TRUE(unscheduled.ok());
  EXPECT_TRUE(unscheduled->Matches({}));
  EXPECT_FALSE(unscheduled->Matches({{"spec.nodeName", "n1"}}));
  auto scheduled = FieldSelector::Parse("spec.nodeName!=");
  ASSERT_TRUE(scheduled.ok());
  EXPECT_FALSE(scheduled->Matches({}));
  EXPECT_TRUE(scheduled->Matches({{"spec.nodeName", "n1"}}));
}

TEST(SelectorFieldTest, EmptyAndEscapes) {
  auto empty = FieldSelector::Parse("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->Empty());
  EXPECT_TRUE(empty->Matches({{"a", "b"}}));
  auto commas = FieldSelector::Parse(",a=b,");
  ASSERT_TRUE(commas.ok());
  EXPECT_EQ(commas->requirements().size(), 1u);

  auto escaped = FieldSelector::Parse(R"(a=x\,y\=z\\w,b!=q)");
  ASSERT_TRUE(escaped.ok()) << escaped.status().ToString();
  ASSERT_EQ(escaped->requirements().size(), 2u);
  EXPECT_EQ(escaped->requirements()[0].value, R"(x,y=z\w)");
  EXPECT_EQ(escaped->ToString(), R"(a=x\,y\=z\\w,b!=q)");
  auto round = FieldSelector::Parse(escaped->ToString());
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(round->requirements(), escaped->requirements());

  for (const char* bad : {"a", "a=b=c", R"(a=b\)", R"(a=\q)", "abc,d=e", "a=b,c"}) {
    EXPECT_FALSE(FieldSelector::Parse(bad).ok()) << bad;
  }
  // "!=" wins over "=" at the same position; the first operator position wins.
  auto ne = FieldSelector::Parse("a!=b");
  ASSERT_TRUE(ne.ok());
  EXPECT_FALSE(ne->requirements()[0].equals);
  auto first = FieldSelector::Parse("a=!b");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->requirements()[0].value, "!b");
}

}  // namespace
}  // namespace ksched::api
