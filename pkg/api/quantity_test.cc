#include "pkg/api/quantity.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

using Format = Quantity::Format;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

Quantity Q(std::string_view s) { return Quantity::MustParse(s); }

struct CanonicalCase {
  const char* in;
  const char* canonical;
  Format format;
};

TEST(QuantityParseTest, CanonicalForms) {
  const CanonicalCase cases[] = {
      {"0", "0", Format::kDecimalSI},
      {"-0", "0", Format::kDecimalSI},
      {"0Ki", "0", Format::kBinarySI},
      {"0e5", "0", Format::kDecimalExponent},
      {"0.000", "0", Format::kDecimalSI},
      {"1", "1", Format::kDecimalSI},
      {"+1", "1", Format::kDecimalSI},
      {"-1", "-1", Format::kDecimalSI},
      {"00012", "12", Format::kDecimalSI},
      {"1.", "1", Format::kDecimalSI},
      {"1.G", "1G", Format::kDecimalSI},
      {"1.000", "1", Format::kDecimalSI},
      {"1.5", "1500m", Format::kDecimalSI},
      {".5", "500m", Format::kDecimalSI},
      {"0.5", "500m", Format::kDecimalSI},
      {"-.5", "-500m", Format::kDecimalSI},
      {"100m", "100m", Format::kDecimalSI},
      {"1000m", "1", Format::kDecimalSI},
      {"1500m", "1500m", Format::kDecimalSI},
      {"0.1m", "100u", Format::kDecimalSI},
      {"1u", "1u", Format::kDecimalSI},
      {"1n", "1n", Format::kDecimalSI},
      {"1080n", "1080n", Format::kDecimalSI},
      {"9.01", "9010m", Format::kDecimalSI},
      {"1.08", "1080m", Format::kDecimalSI},
      {"1k", "1k", Format::kDecimalSI},
      {"1000", "1k", Format::kDecimalSI},
      {"1024", "1024", Format::kDecimalSI},
      {"50k", "50k", Format::kDecimalSI},
      {"100.035k", "100035", Format::kDecimalSI},
      {"1M", "1M", Format::kDecimalSI},
      {"100M", "100M", Format::kDecimalSI},
      {"1000M", "1G", Format::kDecimalSI},
      {"0.001T", "1G", Format::kDecimalSI},
      {"1G", "1G", Format::kDecimalSI},
      {"1T", "1T", Format::kDecimalSI},
      {"1P", "1P", Format::kDecimalSI},
      {"1E", "1E", Format::kDecimalSI},
      {"12E", "12E", Format::kDecimalSI},
      {"1.01E", "1010P", Format::kDecimalSI},
      {"10.035M", "10035k", Format::kDecimalSI},
      {"7.123456M", "7123456", Format::kDecimalSI},
      {"1000E", "1e21", Format::kDecimalSI},  // kube would print a bare "1" here
      {"123456789012345678901234567890", "123456789012345678901234567890", Format::kDecimalSI},
      // Exponent forms.
      {"1e3", "1e3", Format::kDecimalExponent},
      {"1E3", "1e3", Format::kDecimalExponent},
      {"1e+3", "1e3", Format::kDecimalExponent},
      {"1e0", "1", Format::kDecimalExponent},
      {"10e0", "10", Format::kDecimalExponent},
      {"12e6", "12e6", Format::kDecimalExponent},
      {"300e6", "300e6", Format::kDecimalExponent},
      {"1.2e3", "1200", Format::kDecimalExponent},
      {"1.3E+6", "1300e3", Format::kDecimalExponent},
      {"1E-3", "1e-3", Format::kDecimalExponent},
      {"80e-3", "80e-3", Format::kDecimalExponent},
      {"1.5e-3", "1500e-6", Format::kDecimalExponent},
      {"0.001e0", "1e-3", Format::kDecimalExponent},
      {".001e12", "1e9", Format::kDecimalExponent},
      {"1000e-12", "1e-9", Format::kDecimalExponent},
      {"-1.5e3", "-1500", Format::kDecimalExponent},
      {"1e0000000003", "1e3", Format::kDecimalExponent},
      {"1e999999", "1e999999", Format::kDecimalExponent},
      // Binary forms.
      {"1Ki", "1Ki", Format::kBinarySI},
      {"8Ki", "8Ki", Format::kBinarySI},
      {"1Mi", "1Mi", Format::kBinarySI},
      {"1Gi", "1Gi", Format::kBinarySI},
      {"1Ti", "1Ti", Format::kBinarySI},
      {"1Pi", "1Pi", Format::kBinarySI},
      {"1Ei", "1Ei", Format::kBinarySI},
      {"7Ei", "7Ei", Format::kBinarySI},
      {"1024Mi", "1Gi", Format::kBinarySI},
      {"300Mi", "300Mi", Format::kBinarySI},
      {"307200Ki", "300Mi", Format::kBinarySI},
      {"1025024Mi", "1001Gi", Format::kBinarySI},
      {"1023Ki", "1023Ki", Format::kBinarySI},
      {"1.5Gi", "1536Mi", Format::kBinarySI},
      {"-1.5Gi", "-1536Mi", Format::kBinarySI},
      {"0.5Ki", "512", Format::kBinarySI},
      {"0.5Mi", "512Ki", Format::kBinarySI},
      {"1.5Ki", "1536", Format::kBinarySI},
      {"62.5Ki", "64000", Format::kBinarySI},  // reads back as DecimalSI "64k"
      {"1.1Ki", "1126400m", Format::kBinarySI},
      {"100.035Ki", "102435840m", Format::kBinarySI},
      {".001Ki", "1024m", Format::kBinarySI},
      {".000001Ki", "1024u", Format::kDecimalSI},
      {".000000001Ki", "1024n", Format::kDecimalSI},
      {"0.0001Ki", "102400u", Format::kDecimalSI},  // below one: kube switches to DecimalSI
      {".000000000001Ki", "2n", Format::kDecimalSI},
      // BinarySI saturates at 2^63-1 as in kube.
      {"8Ei", "9223372036854775807", Format::kBinarySI},
      {"9Ei", "9223372036854775807", Format::kBinarySI},
      {"-8Ei", "-9223372036854775807", Format::kBinarySI},
      {"9223372036854775807Ki", "9223372036854775807", Format::kBinarySI},
      // Precision below nano rounds away from zero.
      {"0.1n", "1n", Format::kDecimalSI},
      {"3.001n", "4n", Format::kDecimalSI},
      {"1.5n", "2n", Format::kDecimalSI},
      {"-1.5n", "-2n", Format::kDecimalSI},
      {"0.0000000001", "1n", Format::kDecimalSI},
      {"0.00000000050", "1n", Format::kDecimalSI},
      {"0.00000012345", "124n", Format::kDecimalSI},
      {"1.1E-9", "2e-9", Format::kDecimalExponent},
      {"1e-10", "1e-9", Format::kDecimalExponent},
      {"1e-2147483648", "1e-9", Format::kDecimalExponent},
  };
  for (const auto& c : cases) {
    auto q = Quantity::Parse(c.in);
    ASSERT_TRUE(q.ok()) << c.in << ": " << q.status().ToString();
    EXPECT_EQ(q->ToString(), c.canonical) << c.in;
    EXPECT_EQ(q->format(), c.format) << c.in;
    // The canonical form is a fixed point and denotes the same value.
    auto again = Quantity::Parse(q->ToString());
    ASSERT_TRUE(again.ok()) << c.in;
    EXPECT_EQ(*again, *q) << c.in;
    if (again->format() == q->format()) {
      EXPECT_EQ(again->ToString(), q->ToString()) << c.in;
    }
  }
}

// Integers with a table suffix take Parse's fast path; the same number
// written with a ".0" fraction takes the general one. Both must agree on
// value, format and canonical form, across digit counts and at the 64-bit
// edges of the binary suffixes.
TEST(QuantityParseTest, IntegerFastPathMatchesTheGeneralPath) {
  std::mt19937_64 rng(7);
  const char* suffixes[] = {"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  std::vector<std::string> numbers = {"0", "00", "000000000000000000", "1", "10", "100", "999999999999999999",
                                      "100000000000000000", "8191", "8192", "8193", "9223372036854775807",
                                      "9223372036854775808", "18446744073709551616"};
  for (int i = 0; i < 20000; ++i) {
    std::string n;
    const int len = 1 + static_cast<int>(rng() % 20);
    for (int j = 0; j < len; ++j) n.push_back(static_cast<char>('0' + rng() % 10));
    if (rng() % 3 == 0) n.append(rng() % 6, '0');
    numbers.push_back(n);
  }
  for (const std::string& number : numbers) {
    for (const char* sign : {"", "-", "+"}) {
      for (const char* suffix : suffixes) {
        const std::string fast = sign + number + suffix;
        const std::string general = sign + number + ".0" + suffix;
        auto a = Quantity::Parse(fast);
        auto b = Quantity::Parse(general);
        ASSERT_EQ(a.ok(), b.ok()) << fast;
        if (!a.ok()) continue;
        ASSERT_EQ(a->ToString(), b->ToString()) << fast;
        ASSERT_EQ(a->format(), b->format()) << fast;
        ASSERT_EQ(a->Cmp(*b), 0) << fast;
        ASSERT_EQ(a->MilliValue(), b->MilliValue()) << fast;
      }
    }
  }
}

TEST(QuantityParseTest, RejectsMalformed) {
  const char* bad[] = {
      "",      "1.1.1", "1Ki2", "Ki",    "m",    "e3",          ".",     "-",      "+",      "-.",
      "1 Ki",  " 1",    "1 ",    "1mi",   "0.1mi", "1ki",         "1KI",   "1i",     ".5i",    "--1",
      "+-1",   "1e",    "1e-",   "1e+",   "1e3.5", "1EE3",        "1e+-3", "-3.01e-", "1.1.M", "1+1.0M",
      "0.1am", "aoeu",  "0x10",  "1_000", "1,5",   "1e2147483648", "1e99999999999999999999", "1Gi ", "1\n",
      "1e1.5", "\xff",  "1k1",   "1E18E", "1Mi-", "١",
  };
  for (const char* s : bad) {
    auto q = Quantity::Parse(s);
    EXPECT_FALSE(q.ok()) << '"' << s << "\" parsed as " << (q.ok() ? q->ToString() : "");
    if (!q.ok()) {
      EXPECT_EQ(q.status().code(), util::StatusCode::kInvalidArgument);
      EXPECT_NE(q.status().message().find(s), std::string::npos) << "error names the input";
    }
  }
  EXPECT_FALSE(Quantity::Parse(std::string_view("1\0", 2)).ok());
}

TEST(QuantityParseTest, ExponentLimits) {
  EXPECT_FALSE(Quantity::Parse("1e2147483647").ok()) << "beyond the representable scale";
  EXPECT_TRUE(Quantity::Parse("1e999999999").ok());
  EXPECT_TRUE(Quantity::Parse("1e-2147483648").ok());
  // Values at the largest scale print in a form that parses back, even
  // after arithmetic pushed them past the parse limit (the scale saturates).
  const Quantity edge = Q("95e2147483580");
  EXPECT_EQ(Quantity::MustParse((edge + edge).ToString()), edge + edge);
  Quantity grown = edge;
  for (int i = 0; i < 10; ++i) grown += grown;
  EXPECT_GE(grown, edge);
  EXPECT_EQ(Quantity::MustParse(grown.ToString()), grown);
  EXPECT_FALSE(Quantity::Parse("1e-2147483649").ok());
}

TEST(QuantityParseTest, ManyDigitsRoundAwayFromZero) {
  // 42 significant digits keep 38 and round the rest up.
  const Quantity q = Q("123456789012345678901234567890123456789012");
  EXPECT_EQ(q.ToString(), "123456789012345678901234567890123456790k");
  const Quantity neg = Q("-123456789012345678901234567890123456789012");
  EXPECT_EQ(neg.ToString(), "-123456789012345678901234567890123456790k");
  // A long run of fractional digits still rounds only at nano precision.
  const std::string long_frac = "0." + std::string(5000, '0') + "1";
  EXPECT_EQ(Q(long_frac).ToString(), "1n");
  EXPECT_EQ(Q(std::string(3000, '9') + "Ki").Value(), kInt64Max);
  EXPECT_EQ(Q("1." + std::string(3000, '0') + "Ki").ToString(), "1Ki");
}

TEST(QuantityValueTest, RoundsAwayFromZero) {
  struct Case {
    const char* in;
    int64_t value;
    int64_t milli;
  };
  const Case cases[] = {
      {"0", 0, 0},
      {"1", 1, 1000},
      {"1.2", 2, 1200},
      {"-1.2", -2, -1200},
      {"100m", 1, 100},
      {"0.1m", 1, 1},
      {"1.5n", 1, 1},
      {"-1n", -1, -1},
      {"1Ki", 1024, 1024000},
      {"1Gi", 1073741824, 1073741824000},
      {"1.5Gi", 1610612736, 1610612736000},
      {"1k", 1000, 1000000},
      {"1e3", 1000, 1000000},
      {"2.5e-3", 1, 3},
      {"9223372036854775807", kInt64Max, kInt64Max},
      {"9223372036854775808", kInt64Max, kInt64Max},
      {"-9223372036854775808", kInt64Min, kInt64Min},
      {"-9223372036854775809", kInt64Min, kInt64Min},
      {"9223372036854775.807", 9223372036854776, kInt64Max},
      {"9223372036854775.808", 9223372036854776, kInt64Max},
      {"-9223372036854775.808", -9223372036854776, kInt64Min},
      {"8Ei", kInt64Max, kInt64Max},
      {"1e1000000", kInt64Max, kInt64Max},
      {"-1e1000000", kInt64Min, kInt64Min},
      {"1e-9", 1, 1},
      {"100e30", kInt64Max, kInt64Max},
  };
  for (const auto& c : cases) {
    const Quantity q = Q(c.in);
    EXPECT_EQ(q.Value(), c.value) << c.in;
    EXPECT_EQ(q.MilliValue(), c.milli) << c.in;
  }
}

TEST(QuantityValueTest, SignAndZero) {
  EXPECT_TRUE(Quantity().IsZero());
  EXPECT_EQ(Quantity().Sign(), 0);
  EXPECT_EQ(Quantity().format(), Format::kDecimalSI);
  EXPECT_EQ(Quantity().ToString(), "0");
  EXPECT_EQ(Q("-1n").Sign(), -1);
  EXPECT_EQ(Q("1e999").Sign(), 1);
  EXPECT_FALSE(Q("1n").IsZero());
  EXPECT_TRUE(Q("0Gi").IsZero());
}

TEST(QuantityValueTest, ApproximateDouble) {
  EXPECT_DOUBLE_EQ(Q("1.1Ki").AsApproximateDouble(), 1126.4);
  EXPECT_DOUBLE_EQ(Q("2Gi").AsApproximateDouble(), 2147483648.0);
  EXPECT_DOUBLE_EQ(Q("-250m").AsApproximateDouble(), -0.25);
  EXPECT_DOUBLE_EQ(Q("0").AsApproximateDouble(), 0.0);
  EXPECT_TRUE(std::isinf(Q("1e999999").AsApproximateDouble()));
}

TEST(QuantityCompareTest, ByValueRegardlessOfFormat) {
  EXPECT_EQ(Q("1"), Q("1000m"));
  EXPECT_EQ(Q("0.1"), Q("100m"));
  EXPECT_EQ(Q("1Ki"), Q("1024"));
  EXPECT_EQ(Q("1k"), Q("1e3"));
  EXPECT_EQ(Q("1k"), Q("1000"));
  EXPECT_EQ(Q("1.5"), Q("1500m"));
  EXPECT_EQ(Q("0"), Q("0Gi"));
  EXPECT_EQ(Q("15"), Q("1.5e1"));
  EXPECT_NE(Q("1Gi"), Q("1G"));
  EXPECT_GT(Q("1Gi"), Q("1G"));
  EXPECT_GT(Q("10000T"), Q("100Gi"));
  EXPECT_GT(Q("100m"), Q("50m"));
  EXPECT_LT(Q("-1"), Q("0"));
  EXPECT_LT(Q("0"), Q("1n"));
  EXPECT_LT(Q("-2"), Q("-1"));
  EXPECT_LT(Q("-1e1000000"), Q("-1"));
  EXPECT_GT(Q("1e1000000"), Q("9Ei"));
  EXPECT_GT(Q("1e1000000"), Q("9e999999"));
  EXPECT_LT(Q("999999999999999999999999999999999999e2"), Q("1e38"));
  EXPECT_GT(Q("9.01"), Q("9"));
  EXPECT_GT(Q("800m"), Q("79e-2"));
  EXPECT_LT(Q("800m"), Q("1"));
  EXPECT_EQ(Q("1").Cmp(Q("2")), -1);
  EXPECT_EQ(Q("2").Cmp(Q("1")), 1);
  EXPECT_EQ(Q("2").Cmp(Q("2000m")), 0);
  EXPECT_TRUE((Q("1") <=> Q("2")) == std::strong_ordering::less);
}

TEST(QuantityArithmeticTest, ExactSumsKeepLeftFormat) {
  struct Case {
    const char* a;
    const char* b;
    const char* sum;
    const char* difference;
  };
  const Case cases[] = {
      {"1Gi", "512Mi", "1536Mi", "512Mi"},
      {"100m", "900m", "1", "-800m"},
      {"1", "1.5", "2500m", "-500m"},
      {"1", "1Ki", "1025", "-1023"},
      {"1Ki", "1", "1025", "1023"},
      {"2Ki", "1Ki", "3Ki", "1Ki"},
      {"1e3", "1", "1001", "999"},
      {"1k", "1e3", "2k", "0"},
      {"1n", "1", "1000000001n", "-999999999n"},
      {"9223372036854775807", "9223372036854775807", "18446744073709551614", "0"},
      {"-5", "5", "0", "-10"},
      {"100Mi", "100M", "204857600", "4857600"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ((Q(c.a) + Q(c.b)).ToString(), c.sum) << c.a << " + " << c.b;
    EXPECT_EQ((Q(c.a) - Q(c.b)).ToString(), c.difference) << c.a << " - " << c.b;
    EXPECT_EQ((Q(c.a) + Q(c.b)).format(), Q(c.a).format());
    Quantity acc = Q(c.a);
    acc += Q(c.b);
    EXPECT_EQ(acc, Q(c.sum));
    acc -= Q(c.b);
    EXPECT_EQ(acc, Q(c.a));
  }
}

TEST(QuantityArithmeticTest, ZeroTakesTheOtherFormat) {
  EXPECT_EQ((Quantity() + Q("1Gi")).ToString(), "1Gi");
  EXPECT_EQ((Q("1Gi") + Quantity()).ToString(), "1Gi");
  EXPECT_EQ((Q("0") + Q("100m")).ToString(), "100m");
  EXPECT_EQ((Quantity() - Q("1Gi")).ToString(), "-1Gi");
  EXPECT_EQ((Q("1Gi") - Quantity()).ToString(), "1Gi");
  Quantity total;
  for (const char* s : {"1Gi", "1Gi", "512Mi"}) total += Q(s);
  EXPECT_EQ(total.ToString(), "2560Mi");
  EXPECT_EQ(total.format(), Format::kBinarySI);
  EXPECT_EQ((-Q("1Gi")).ToString(), "-1Gi");
  EXPECT_EQ((-Q("9.01")).ToString(), "-9010m");
}

TEST(QuantityArithmeticTest, HugeMagnitudesSaturateSanely) {
  const Quantity huge = Q("1e1000000");
  const Quantity sum = huge + Q("1");
  EXPECT_GE(sum, huge);
  EXPECT_EQ(sum.Value(), kInt64Max);
  EXPECT_EQ(Quantity::MustParse(sum.ToString()), sum);
  EXPECT_EQ(huge - huge, Quantity());
  const Quantity mixed = Q("1Ki") + huge;  // BinarySI too large for binary units
  EXPECT_EQ(mixed.format(), Format::kBinarySI);
  EXPECT_EQ(Quantity::MustParse(mixed.ToString()), mixed);
  EXPECT_EQ((Q("1") + Q("1e-9")).ToString(), "1000000001n");
  // Differences of 38-digit values stay near-exact.
  const Quantity big = Q("99999999999999999999999999999999999999");
  EXPECT_GE(big + big, Q("199999999999999999999999999999999999998"));
  EXPECT_EQ(Quantity::MustParse((big + big).ToString()), big + big);
  EXPECT_EQ((Q("1E") + Q("999E")).ToString(), "1e21");
  // Binary sums past the parse cap print in decimal so they read back equal.
  EXPECT_EQ((Q("4Ei") + Q("4Ei")).ToString(), "9223372036854775808");
  EXPECT_EQ((Q("8Ei") + Q("1")).ToString(), "9223372036854775808");
  EXPECT_EQ((Q("-4Ei") - Q("4Ei")).ToString(), "-9223372036854775808");
  EXPECT_EQ((Q("4Ei") + Q("3Ei")).ToString(), "7Ei");
}

TEST(QuantityConstructTest, FromIntAndMilli) {
  EXPECT_EQ(Quantity::FromInt(1).ToString(), "1");
  EXPECT_EQ(Quantity::FromInt(1000).ToString(), "1k");
  EXPECT_EQ(Quantity::FromInt(1234000).ToString(), "1234k");
  EXPECT_EQ(Quantity::FromInt(1024, Format::kBinarySI).ToString(), "1Ki");
  EXPECT_EQ(Quantity::FromInt(1024 * 1024, Format::kBinarySI).ToString(), "1Mi");
  EXPECT_EQ(Quantity::FromInt(1000000, Format::kDecimalExponent).ToString(), "1e6");
  EXPECT_EQ(Quantity::FromInt(kInt64Min).Value(), kInt64Min);
  EXPECT_EQ(Quantity::FromInt(kInt64Max).Value(), kInt64Max);
  EXPECT_EQ(Quantity::FromMilli(1).ToString(), "1m");
  EXPECT_EQ(Quantity::FromMilli(1000).ToString(), "1");
  EXPECT_EQ(Quantity::FromMilli(1234000).ToString(), "1234");
  EXPECT_EQ(Quantity::FromMilli(1024, Format::kBinarySI).ToString(), "1024m");
  EXPECT_EQ(Quantity::FromMilli(1024 * 1024, Format::kBinarySI).ToString(), "1048576m");
  EXPECT_EQ(Quantity::FromMilli(1000000, Format::kDecimalExponent).ToString(), "1e3");
  EXPECT_EQ(Quantity::FromMilli(1500).MilliValue(), 1500);
  EXPECT_EQ(Quantity::FromMilli(kInt64Min).MilliValue(), kInt64Min);
}

// Deterministic pseudo-fuzzing: every accepted string has a canonical form
// that re-parses to the same value and is its own canonical form.
TEST(QuantityRoundTripTest, RandomStrings) {
  std::mt19937 rng(12345);
  const std::string alphabet = "0123456789.+-eEinumkKMGTP";
  const char* suffixes[] = {"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi",
                            "Ti", "Pi", "Ei", "e3", "e-7", "E+12", "e40"};
  int accepted = 0;
  for (int i = 0; i < 40000; ++i) {
    std::string s;
    if (i % 2 == 0) {
      const int len = 1 + static_cast<int>(rng() % 12);
      for (int j = 0; j < len; ++j) s.push_back(alphabet[rng() % alphabet.size()]);
    } else {
      if (rng() % 4 == 0) s.push_back('-');
      const int int_len = static_cast<int>(rng() % 25);
      for (int j = 0; j < int_len; ++j) s.push_back(static_cast<char>('0' + rng() % 10));
      if (rng() % 2 == 0) {
        s.push_back('.');
        const int frac_len = static_cast<int>(rng() % 15);
        for (int j = 0; j < frac_len; ++j) s.push_back(static_cast<char>('0' + rng() % 10));
      }
      s += suffixes[rng() % (sizeof(suffixes) / sizeof(suffixes[0]))];
    }
    auto q = Quantity::Parse(s);
    if (!q.ok()) continue;
    ++accepted;
    const std::string canonical = q->ToString();
    auto again = Quantity::Parse(canonical);
    ASSERT_TRUE(again.ok()) << s << " -> " << canonical;
    ASSERT_EQ(*again, *q) << s << " -> " << canonical;
    if (again->format() == q->format()) {
      ASSERT_EQ(again->ToString(), canonical) << s;
    }
    auto third = Quantity::Parse(again->ToString());
    ASSERT_TRUE(third.ok()) << s;
    ASSERT_EQ(third->ToString(), again->ToString()) << s;
    ASSERT_EQ((*q - *q), Quantity()) << s;
    // Sums are exact while the digits fit the 128-bit mantissa.
    if (canonical.size() < 25) {
      ASSERT_EQ((*q + *q) - *q, *q) << s;
    }
  }
  EXPECT_GT(accepted, 15000);
}

}  // namespace
}  // namespace ksched::api
