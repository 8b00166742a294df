// Kubernetes' format library: format.named(), the constant formats,
// validate()'s verdicts and messages for each format, format equality and
// hashing, the checker's types and validate()'s cost. Every expected value
// is Kubernetes' answer (celcompare's probe, at 1.37 and 1.35).
#include <string>

#include <gtest/gtest.h>

#include "pkg/cel/cel_test_util.h"
#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

using test::CompileError;
using test::EvalError;
using test::Has;
using test::Match;

// Whether format.<f>() accepts s.
bool Valid(const std::string& f, const std::string& s) {
  return Match("!format." + f + "().validate(" + s + ").hasValue()");
}

TEST(KubeFormatTest, NamedFormats) {
  EXPECT_TRUE(Match(R"(format.named("uuid").hasValue() && !format.named("nope").hasValue())"));
  EXPECT_TRUE(Match(R"(format.named("uuid").value() == format.uuid() && format.uuid() != format.byte())"));
  EXPECT_TRUE(Match(R"(format.named("d" + "ate").value().validate("2021-01-01") == optional.none())"));
  EXPECT_TRUE(Match(R"(type(format.uuid()) == type(format.byte()) && type(format.uuid()) != string)"));
  EXPECT_TRUE(Has(CompileError(R"(string(type(format.uuid())) == "")"), "(type(kubernetes.NamedFormat))"));
  EXPECT_TRUE(Has(EvalError("dyn(format.uuid()) == 1"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("{format.uuid(): 1}.size() == 1"), "hash of unhashable type cel.Format"));
  EXPECT_TRUE(Has(CompileError(R"(format.named("uuid").validate("x").hasValue())"), "found no matching overload"));
  EXPECT_TRUE(Has(CompileError(R"(format.uuid().validate(1).hasValue())"), "found no matching overload"));
}

TEST(KubeFormatTest, DnsNames) {
  EXPECT_TRUE(Valid("dns1123Label", R"("my-name")"));
  EXPECT_FALSE(Valid("dns1123Label", R"("a-")"));
  EXPECT_TRUE(Match(R"(format.dns1123Label().validate("a.b").value() == ["must not contain dots"])"));
  EXPECT_TRUE(Match(
      R"x(format.dns1123Label().validate("A_B").value() == ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])x"));
  EXPECT_TRUE(Match("format.dns1123Label().validate(\"" + std::string(64, 'a') +
                    "\").value() == [\"must be no more than 63 characters\"]"));
  EXPECT_TRUE(Valid("dns1123Subdomain", R"("a.b")"));
  EXPECT_FALSE(Valid("dns1123Subdomain", R"("a..b")"));
  EXPECT_TRUE(Valid("dns1035Label", R"("a1")"));
  EXPECT_FALSE(Valid("dns1035Label", R"("1a")"));
  // The prefix forms forgive a trailing dash by dropping the last two
  // characters and appending an 'a'.
  EXPECT_TRUE(Valid("dns1123LabelPrefix", R"("ab-")"));
  EXPECT_TRUE(Valid("dns1035LabelPrefix", R"("a-")"));
  EXPECT_TRUE(Valid("dns1123SubdomainPrefix", R"("a.-")"));
  EXPECT_FALSE(Valid("dns1123SubdomainPrefix", R"("a..b-")"));
}

TEST(KubeFormatTest, QualifiedNamesAndLabelValues) {
  EXPECT_TRUE(Valid("qualifiedName", R"("example.com/MyName")"));
  EXPECT_TRUE(Match(R"(format.qualifiedName().validate("/b").value() == ["prefix part must be non-empty"])"));
  EXPECT_TRUE(Match(R"(format.qualifiedName().validate("a/").value()[0] == "name part must be non-empty")"));
  EXPECT_TRUE(Match(R"(format.qualifiedName().validate("a/b/c").value()[0].startsWith("a valid label key must consist"))"));
  EXPECT_TRUE(Valid("labelValue", R"("")"));
  EXPECT_TRUE(Valid("labelValue", R"("a_b.c")"));
  EXPECT_FALSE(Valid("labelValue", R"("-a")"));
}

TEST(KubeFormatTest, Kube134WordsLabelKeysAsQualifiedNames) {
  // apimachinery 0.34's util/validation, read from its source (celcompare
  // cannot link 1.34's library).
  CompileOptions v134;
  v134.legacy_label_key_messages = true;
  const std::string long_name = "\"a/" + std::string(64, 'b') + "\"";
  EXPECT_TRUE(Match("format.qualifiedName().validate(" + long_name +
                        ").value() == [\"name part must be no more than 63 characters\"]",
                    v134));
  EXPECT_TRUE(Match("format.qualifiedName().validate(" + long_name +
                    ").value() == [\"name part must be no more than 63 bytes\"]"));
  EXPECT_TRUE(Match(R"(format.qualifiedName().validate("a/b/c").value()[0].startsWith("a qualified name must consist"))",
                    v134));
  EXPECT_TRUE(Match("format.labelValue().validate(\"" + std::string(64, 'c') +
                        "\").value() == [\"must be no more than 63 characters\"]",
                    v134));
}

TEST(KubeFormatTest, UriUuidByteDateDatetime) {
  EXPECT_TRUE(Valid("uri", R"("http://example.com")"));
  EXPECT_TRUE(Match(R"(format.uri().validate("a b").value() == ["parse \"a b\": invalid URI for request"])"));
  EXPECT_TRUE(Valid("uuid", R"("123E4567E89B12D3A456426614174000")"));
  EXPECT_TRUE(Valid("uuid", R"("123e4567-e89b12d3-a456-426614174000")"));
  EXPECT_TRUE(Match(R"(format.uuid().validate("x").value() == ["does not match the UUID format"])"));
  EXPECT_TRUE(Valid("byte", R"("aGVsbA==")"));
  EXPECT_FALSE(Valid("byte", R"("aGVsbG8")"));
  EXPECT_FALSE(Valid("byte", R"("")"));
  EXPECT_TRUE(Valid("date", R"("2000-02-29")"));
  EXPECT_FALSE(Valid("date", R"("1900-02-29")"));
  EXPECT_TRUE(Valid("date", R"("0000-02-29")"));
  EXPECT_TRUE(Valid("datetime", R"("2021-01-01t23:59:59.123+05:30")"));
  // Only the text up to a second 't' counts; any character may open the
  // fraction.
  EXPECT_TRUE(Valid("datetime", R"("2021-01-01T00:00:00ZTxyz")"));
  EXPECT_TRUE(Valid("datetime", R"("2021-01-01T00:00:00é1Z")"));
  EXPECT_FALSE(Valid("datetime", R"("2021-01-01T24:00:00Z")"));
  EXPECT_FALSE(Valid("datetime", R"("2021-01-01T00:00:00")"));
  EXPECT_TRUE(Match(R"(format.datetime().validate("x").value() == ["invalid datetime"])"));
}

TEST(KubeFormatTest, ValidateCostsTheStringTimesTheRegex) {
  // format.uri(): a quarter of 1,103 rounded up (276) times a tenth of the
  // string's length plus one, rounded up: 69 characters cost 7 × 276, 70
  // cost 8 × 276; ksched's few units per node fit in between.
  CompileOptions o;
  o.cost_limit = 7 * 276 + 50;
  auto call = [](int n) { return "format.uri().validate(\"" + std::string(n, 'a') + "\").hasValue()"; };
  EXPECT_TRUE(Match(call(69), o));
  EXPECT_TRUE(Has(EvalError(call(70), o), "cost limit exceeded"));
}

}  // namespace
}  // namespace ksched::cel
