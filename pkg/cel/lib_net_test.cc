// Kubernetes' IP and CIDR libraries: Go's netip acceptance and printing
// (the expected texts are what Go 1.26's netip answers), the library's own
// refusals and messages, the checker's types, and that every release ksched
// emulates has them.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "pkg/cel/go_quote.h"
#include "pkg/cel/net_addr.h"
#include "pkg/cel/cel_test_util.h"
#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

using test::CompileError;
using test::EvalError;
using test::Has;
using test::kEmulatedMinors;
using test::Match;
using test::ReleaseOptions;
using test::TestGpu;

TEST(NetAddrTest, ParsesAndPrintsAsGo) {
  const std::vector<std::pair<std::string, std::string>> ok = {
      {"1.2.3.4", "1.2.3.4"},
      {"::", "::"},
      {"2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"},  // the first longest run
      {"1:0:0:1:0:0:0:1", "1:0:0:1::1"},
      {"0:0:1:0:0:0:0:0", "0:0:1::"},
      {"1:0:0:0:0:0:0:0", "1::"},
      {"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"},
      {"::1.2.3.4", "::102:304"},
      {"1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"},
      {"::ffff:1.2.3.4", "::ffff:1.2.3.4"},
      {"::ffff:0:0", "::ffff:0.0.0.0"},
      {"fe80::1%eth0", "fe80::1%eth0"},
  };
  for (const auto& [in, want] : ok) {
    auto a = IpAddr::Parse(in);
    ASSERT_TRUE(a.ok()) << in << ": " << a.status().message();
    EXPECT_EQ(a->String(), want) << in;
  }
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"01.2.3.4", R"(ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero)"},
      {"1.2.3.256", R"(ParseAddr("1.2.3.256"): IPv4 field has value >255)"},
      {"1.2.3", R"(ParseAddr("1.2.3"): IPv4 address too short)"},
      {"1.2.3.4.5", R"(ParseAddr("1.2.3.4.5"): IPv4 address too long)"},
      {"1..2.3", R"(ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3"))"},
      {"1.2.3.4%eth0", R"(ParseAddr("1.2.3.4%eth0"): unexpected character (at "%eth0"))"},
      {"", R"(ParseAddr(""): unable to parse IP)"},
      {"%x", R"(ParseAddr("%x"): missing IPv6 address)"},
      {"fe80::1%", R"(ParseAddr("fe80::1%"): zone must be a non-empty string)"},
      {"12345::", R"(ParseAddr("12345::"): each group must have 4 or less digits (at "12345::"))"},
      {"1:2:3:4:5:6:7:8:9", R"(ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9"))"},
      {"1:2:3:4::5:6:7:8", R"(ParseAddr("1:2:3:4::5:6:7:8"): the :: must expand to at least one field of zeros)"},
      {"1::2::3", R"(ParseAddr("1::2::3"): multiple :: in address (at ":3"))"},
      {"1:", R"(ParseAddr("1:"): colon must be followed by more characters (at ":"))"},
      {":1", R"(ParseAddr(":1"): each colon-separated field must have at least one digit (at ":1"))"},
      {"1:2:3:4:5:1.2.3.4",
       R"(ParseAddr("1:2:3:4:5:1.2.3.4"): embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4"))"},
      {"::01.2.3.4", R"(ParseAddr("::01.2.3.4"): IPv4 field has octet with leading zero)"},
      {"1.2.3.-4", R"(ParseAddr("1.2.3.-4"): unexpected character (at "-4"))"},
      {"1:2::3\n", R"(ParseAddr("1:2::3\n"): unexpected character, want colon (at "\n"))"},
  };
  for (const auto& [in, want] : bad) {
    auto a = IpAddr::Parse(in);
    ASSERT_FALSE(a.ok()) << in;
    EXPECT_EQ(a.status().message(), want);
  }
}

TEST(NetAddrTest, PrefixesParseAsGo) {
  const std::vector<std::pair<std::string, std::string>> ok = {
      {"1.2.3.4/24", "1.2.3.0/24"}, {"1.2.3.4/0", "0.0.0.0/0"}, {"::/128", "::/128"},
      {"::ffff:1.2.3.4/120", "::ffff:1.2.3.0/120"}, {"2001:db8:ffff::/33", "2001:db8:8000::/33"}};
  for (const auto& [in, masked] : ok) {
    auto p = IpPrefix::Parse(in);
    ASSERT_TRUE(p.ok()) << in << ": " << p.status().message();
    EXPECT_EQ(p->String(), in);
    EXPECT_EQ(p->Masked().String(), masked);
  }
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"1.2.3.4/00", R"(bad bits after slash: "00")"},
      {"1.2.3.4/01", R"(bad bits after slash: "01")"},
      {"1.2.3.4/33", "prefix length out of range"},
      {"::/129", "prefix length out of range"},
      {"1.2.3.4/-1", R"(bad bits after slash: "-1")"},
      {"1.2.3.4/+1", R"(bad bits after slash: "+1")"},
      {"1.2.3.4/", R"(bad bits after slash: "")"},
      {"1.2.3.4/99999999999999999999", R"(bad bits after slash: "99999999999999999999")"},
      {"1.2.3.4", "no '/'"},
      {"fe80::1%eth0/64", "IPv6 zones cannot be present in a prefix"},
      {"1.2.3/8", R"(ParseAddr("1.2.3"): IPv4 address too short)"},
      {"1.2.3.4/8/8", R"(ParseAddr("1.2.3.4/8"): unexpected character (at "/8"))"},
  };
  for (const auto& [in, want] : bad) {
    auto p = IpPrefix::Parse(in);
    ASSERT_FALSE(p.ok()) << in;
    EXPECT_EQ(p.status().message(), "netip.ParsePrefix(" + GoQuote(in) + "): " + want);
  }
}

TEST(NetLibraryTest, IpRefusesZonesAndMappedAddresses) {
  EXPECT_TRUE(Match("isIP('1.2.3.4') && isIP('2001:db8::1') && !isIP('01.2.3.4') && !isIP('1.2.3.4 ')"));
  EXPECT_TRUE(Match("!isIP('fe80::1%eth0') && !isIP('::ffff:1.2.3.4') && !isIP('') && isIP('::1.2.3.4')"));
  EXPECT_EQ(EvalError("ip('01.2.3.4').family() == 4"),
            R"(CEL expression "ip('01.2.3.4').family() == 4": evaluation failed: IP Address "01.2.3.4" parse error during conversion from )"
            R"(string: ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero)");
  EXPECT_TRUE(Has(EvalError("ip('fe80::1%eth0').isLinkLocalUnicast()"),
                  R"(IP address "fe80::1%eth0" with zone value is not allowed)"));
  EXPECT_TRUE(Has(EvalError("ip('::ffff:1.2.3.4').family() == 6"),
                  R"(IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed)"));
}

TEST(NetLibraryTest, IpAccessorsAndStrings) {
  EXPECT_TRUE(Match("ip('127.0.0.1').family() == 4 && ip('::1').family() == 6"));
  EXPECT_TRUE(Match("string(ip('2001:DB8::0:1')) == '2001:db8::1'"));
  EXPECT_TRUE(Match("ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1') && ip.isCanonical('1.2.3.4')"));
  EXPECT_TRUE(Has(EvalError("ip.isCanonical('1.2.3')"), "IPv4 address too short"));
  // The namespaced function wins over a variable named ip.
  EXPECT_TRUE(Match("[1].all(ip, ip.isCanonical('::1'))"));
  EXPECT_TRUE(Match("ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified() && !ip('::1').isUnspecified()"));
  EXPECT_TRUE(Match("ip('127.9.9.9').isLoopback() && ip('::1').isLoopback() && !ip('::2').isLoopback()"));
  EXPECT_TRUE(Match("ip('224.0.0.9').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast() && "
                    "ip('ff02::1').isLinkLocalMulticast() && ip('ff12::1').isLinkLocalMulticast() && "
                    "!ip('ff05::1').isLinkLocalMulticast()"));
  EXPECT_TRUE(Match("ip('169.254.1.1').isLinkLocalUnicast() && ip('febf::1').isLinkLocalUnicast() && "
                    "!ip('fec0::1').isLinkLocalUnicast()"));
  EXPECT_TRUE(Match("ip('10.0.0.1').isGlobalUnicast() && ip('fd00::1').isGlobalUnicast() && "
                    "!ip('255.255.255.255').isGlobalUnicast() && !ip('0.0.0.0').isGlobalUnicast() && "
                    "!ip('239.0.0.1').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast() && "
                    "!ip('::').isGlobalUnicast() && !ip('fe80::1').isGlobalUnicast()"));
  // An attribute of the device, as DRA selectors use them.
  EXPECT_TRUE(Match("ip(device.attributes['gpu.example.com'].address).isGlobalUnicast()"));
}

TEST(NetLibraryTest, Cidrs) {
  EXPECT_TRUE(Match("cidr('192.168.0.1/24').prefixLength() == 24 && string(cidr('192.168.0.1/24')) == '192.168.0.1/24'"));
  EXPECT_TRUE(Match("cidr('192.168.0.1/24').ip() == ip('192.168.0.1') && "
                    "string(cidr('192.168.0.1/24').masked()) == '192.168.0.0/24'"));
  EXPECT_TRUE(Match("cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked() && "
                    "cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked() && cidr('::/0') != cidr('::/1')"));
  EXPECT_TRUE(Match("isCIDR('::/128') && !isCIDR('1.2.3.4/33') && !isCIDR('1.2.3.4/01') && !isCIDR('1.2.3.4') && "
                    "!isCIDR('::ffff:1.2.3.4/120') && !isCIDR('fe80::1%eth0/64') && isCIDR('1.2.3.4/0')"));
  EXPECT_EQ(EvalError("cidr('1.2.3.4/33').prefixLength() == 1"),
            R"(CEL expression "cidr('1.2.3.4/33').prefixLength() == 1": evaluation failed: network address )"
            R"(parse error during )"
            R"(conversion from string: network address parse error during conversion from string: )"
            R"(netip.ParsePrefix("1.2.3.4/33"): prefix length out of range)");
  EXPECT_TRUE(Has(EvalError("cidr('::ffff:1.2.3.4/120').prefixLength() == 1"),
                  R"(: network address parse error during conversion from string: IPv4-mapped IPv6 address )"
                  R"("::ffff:1.2.3.4/120" is not allowed)"));
}

TEST(NetLibraryTest, Containment) {
  EXPECT_TRUE(Match("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && "
                    "!cidr('192.168.0.0/24').containsIP('192.168.1.1') && cidr('192.168.0.9/24').containsIP('192.168.0.1')"));
  // Families never mix; /0 holds every address of its own family.
  EXPECT_TRUE(Match("!cidr('0.0.0.0/0').containsIP('::1') && cidr('::/0').containsIP('::1') && "
                    "!cidr('::/0').containsIP('1.2.3.4') && !cidr('0.0.0.0/0').containsCIDR('::/0')"));
  EXPECT_TRUE(Match("cidr('10.0.0.0/8').containsCIDR(cidr('10.1.0.0/16')) && !cidr('10.1.0.0/16').containsCIDR('10.0.0.0/8') && "
                    "cidr('10.0.0.0/8').containsCIDR('10.0.0.0/8') && !cidr('10.0.0.0/8').containsCIDR('11.0.0.0/16') && "
                    "cidr('10.9.9.9/8').containsCIDR('10.200.0.0/32') && cidr('2001:db8::/32').containsCIDR('2001:db8:1::/48')"));
  // An unparsable string: containsIP reports no overload, containsCIDR the
  // parse error (Kubernetes' library passes on different values).
  EXPECT_TRUE(Has(EvalError("cidr('10.0.0.0/8').containsIP('10.0.0.01')"), ": no such overload"));
  EXPECT_TRUE(Has(EvalError("cidr('10.0.0.0/8').containsCIDR('10.0.0.0/33')"), "prefix length out of range"));
}

TEST(NetLibraryTest, EqualityMembershipAndMapKeys) {
  EXPECT_TRUE(Match("ip('::1') == ip('0::1') && ip('1.2.3.4') != ip('1.2.3.5') && ip('1.2.3.4') in [ip('1.2.3.4')]"));
  EXPECT_TRUE(Match("ip('1.2.3.4') in {ip('1.2.3.4'): 1, ip('::'): 2} && cidr('::/0') in {cidr('::/0'): 2} && "
                    "!(cidr('::/0') in {cidr('::/1'): 2}) && {ip('::'): 1, ip('::'): 2}.size() == 1"));
  EXPECT_TRUE(Match("!(dyn(1) == dyn(ip('1.2.3.4'))) && !(dyn(ip('1.2.3.4')) in [1, 2])"));
  EXPECT_TRUE(Has(EvalError("dyn(ip('1.2.3.4')) == dyn('1.2.3.4')"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("dyn(cidr('::/0')) == dyn(ip('::'))"), "no such overload"));
  // Maps are indexed by primitive keys only, though `in` finds any key.
  EXPECT_TRUE(Has(EvalError("{ip('1.2.3.4'): 1}[ip('1.2.3.4')] == 1"), "invalid qualifier type: cel.IP"));
  EXPECT_TRUE(Has(EvalError("{'a': 1}[dyn(cidr('::/0'))] == 1"), "invalid qualifier type: cel.CIDR"));
  EXPECT_TRUE(Has(EvalError("size(dyn(ip('::'))) == 16"), "no such overload"));
}

TEST(NetLibraryTest, CheckerTypes) {
  EXPECT_TRUE(Has(CompileError("ip(1).family() == 4"), "found no matching overload for 'ip' applied to '(int)'"));
  EXPECT_TRUE(Has(CompileError("ip('1.2.3.4') == '1.2.3.4'"),
                  "found no matching overload for '_==_' applied to '(net.IP, string)'"));
  EXPECT_TRUE(Has(CompileError("cidr('::/0').containsIP(1)"),
                  "found no matching overload for 'containsIP' applied to 'net.CIDR.(int)'"));
  EXPECT_TRUE(Has(CompileError("'1.2.3.4'.family() == 4"),
                  "found no matching overload for 'family' applied to 'string.()'"));
  EXPECT_TRUE(Has(CompileError("ip('::1').prefixLength() == 1"),
                  "found no matching overload for 'prefixLength' applied to 'net.IP.()'"));
  EXPECT_TRUE(Has(CompileError("[ip('::1'), cidr('::/0')].size() == 2"), "expected type 'net.IP' but found 'net.CIDR'"));
  EXPECT_TRUE(Has(CompileError("ip('::1')"), "net.IP"));
  EXPECT_TRUE(Has(CompileError("[ip('::1')].sort().size() == 1"), "found no matching overload for 'sort'"));
  // A dyn receiver defers the choice to run time.
  EXPECT_TRUE(Match("dyn(cidr('10.0.0.0/8')).containsIP(dyn('10.1.1.1')) && string(dyn(ip('::1'))) == '::1'"));
  EXPECT_TRUE(Has(EvalError("device.attributes['gpu.example.com'].address.family() == 4"), "no such overload"));
}

TEST(NetLibraryTest, EveryEmulatedRelease) {
  for (int minor : kEmulatedMinors) {
    const CompileOptions o = ReleaseOptions(minor);
    EXPECT_TRUE(Match("cidr('10.0.0.0/8').containsIP(ip('10.0.0.1')) && ip.isCanonical('::1') && isCIDR('::/0')", o));
  }
}

}  // namespace
}  // namespace ksched::cel
