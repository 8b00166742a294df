// Kubernetes' URL library: what Go 1.26's url.ParseRequestURI accepts and
// url.Parse keeps, Go's messages, the accessors, equality by the URL's
// reassembled text, map keys by identity, the checker's types, and that
// every release ksched emulates has it. Every expected value is Kubernetes'
// answer (celcompare's probe).
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "pkg/cel/cel_test_util.h"
#include "pkg/cel/go_url.h"
#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

using test::CompileError;
using test::EvalError;
using test::Has;
using test::kEmulatedMinors;
using test::Match;
using test::ReleaseOptions;

TEST(GoUrlTest, RequestUriRefusalsAreGos) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", R"(parse "": empty url)"},
      {"example.com", R"(parse "example.com": invalid URI for request)"},
      {"1a:x", R"(parse "1a:x": invalid URI for request)"},
      {":", R"(parse ":": missing protocol scheme)"},
      {"a\tb", R"(parse "a\tb": net/url: invalid control character in URL)"},
      {"http://[x]/", R"(parse "http://[x]/": invalid host: ParseAddr("x"): unable to parse IP)"},
      {"http://a[/", R"(parse "http://a[/": invalid IP-literal)"},
      {"http://[1.2.3.4]/", R"(parse "http://[1.2.3.4]/": invalid IP-literal)"},
      {"http://[::1/", R"(parse "http://[::1/": missing ']' in host)"},
      {"http://[::1]x/", R"(parse "http://[::1]x/": invalid port "x" after host)"},
      {"http://a b/", R"(parse "http://a b/": invalid character " " in host name)"},
      {"http://%41/", R"(parse "http://%41/": invalid URL escape "%41")"},
      {"http://a:b/", R"(parse "http://a:b/": invalid port ":b" after host)"},
      // http and https read the port from the first colon, other schemes
      // from the last.
      {"http://a:8080:90/", R"(parse "http://a:8080:90/": invalid port ":8080:90" after host)"},
      {"http://a b@c/", R"(parse "http://a b@c/": net/url: invalid userinfo)"},
      {"http://a%zz@c/", R"(parse "http://a%zz@c/": invalid URL escape "%zz")"},
      {"http://x/ab%", R"(parse "http://x/ab%": invalid URL escape "%")"},
      {"http://[::1%25a%2fb]/", R"(parse "http://[::1%25a%2fb]/": invalid URL escape "%2f")"},
      {"http://[::1%25]/", R"(parse "http://[::1%25]/": invalid host: ParseAddr("::1%"): zone must be a non-empty string)"},
      // An escape cut inside a UTF-8 sequence quotes its bytes.
      {"http://a/%a\xc3\xa9", R"(parse "http://a/%aé": invalid URL escape "%a\xc3")"},
  };
  for (const auto& [in, want] : bad) {
    auto u = GoUrl::ParseRequestUri(in);
    ASSERT_FALSE(u.ok()) << in;
    EXPECT_EQ(u.status().message(), want) << in;
  }
}

TEST(GoUrlTest, ParseKeepsTheFragmentAndReadsAuthoritiesWithoutScheme) {
  // ParseRequestURI keeps '#' in the path or query; Parse splits it off.
  auto u = GoUrl::Parse("http://x/a?q=1#f%20g");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->path, "/a");
  EXPECT_EQ(u->raw_query, "q=1");
  EXPECT_EQ(u->fragment, "f g");
  EXPECT_EQ(u->String(), "http://x/a?q=1#f%20g");
  auto bad = GoUrl::Parse("//a b/");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), R"(parse "//a b/": invalid character " " in host name)");
  auto frag = GoUrl::Parse("http://x/?#%zz");
  ASSERT_FALSE(frag.ok());
  EXPECT_EQ(frag.status().message(), R"(parse "http://x/?#%zz": invalid URL escape "%zz")");
}

TEST(UrlLibraryTest, IsUrl) {
  EXPECT_TRUE(Match("isURL('https://example.com') && isURL('/path') && isURL('http://a:/') && isURL('ftp://a:b:80/')"));
  EXPECT_TRUE(Match("isURL('http://[fe80::1%25en0]/') && isURL('http://a/#x') && isURL('mailto:x@y.com')"));
  EXPECT_TRUE(Match("!isURL('') && !isURL('example.com') && !isURL('http://a:b:80/') && !isURL('http://[::1]:b/')"));
  EXPECT_TRUE(Match("!isURL('http://[1.2.3.4]/') && !isURL('http://[fe80::1%en0]/') && !isURL('1http://a/')"));
  EXPECT_TRUE(Match("!isURL(':foo') && !isURL('http://%41/') && !isURL('http://a%zz/') && !isURL('http://[::1')"));
}

TEST(UrlLibraryTest, Accessors) {
  EXPECT_TRUE(Match("url('HTTP://EXAMPLE.com:80/p').getScheme() == 'http' && "
                    "url('HTTP://EXAMPLE.com:80/p').getHost() == 'EXAMPLE.com:80'"));
  EXPECT_TRUE(Match("url('https://[::1]:80/p').getHostname() == '::1' && url('https://[::1]:80/p').getHost() == '[::1]:80' && "
                    "url('https://[::1]:80/p').getPort() == '80' && url('http://[::1]').getPort() == ''"));
  EXPECT_TRUE(Match("url('http://[fe80::1%25en0]:8/').getHostname() == 'fe80::1%en0' && "
                    "url('http://[fe80::1%25en0]:8/').getHost() == '[fe80::1%en0]:8'"));
  EXPECT_TRUE(Match("url('http://x:/').getPort() == '' && url('http://x:/').getHost() == 'x:' && "
                    "url('http://a:0080/').getPort() == '0080' && url('http://%c3%a9/').getHost() == 'é'"));
  EXPECT_TRUE(Match("url('ftp://a:8080:90/').getPort() == '90' && url('ftp://a:8080:90/').getHostname() == 'a:8080'"));
  EXPECT_TRUE(Match("url('http://user:pass@example.com/').getHost() == 'example.com' && url('http://a@b@c/').getHost() == 'c'"));
  EXPECT_TRUE(Match("url('mailto:x@y.com').getScheme() == 'mailto' && url('mailto:a').getHost() == '' && "
                    "url('mailto:a').getEscapedPath() == ''"));
  EXPECT_TRUE(Match("url('//a/b').getHost() == 'a' && url('///a/b').getHost() == '' && url('*').getEscapedPath() == '*'"));
  EXPECT_TRUE(Match("url('h-t+t.p://a/').getScheme() == 'h-t+t.p' && url('http:/a/b').getEscapedPath() == '/a/b'"));
}

TEST(UrlLibraryTest, EscapedPath) {
  EXPECT_TRUE(Match("url('/a b').getEscapedPath() == '/a%20b' && url('http://x/a%20b').getEscapedPath() == '/a%20b'"));
  EXPECT_TRUE(Match("url('http://x/a%41b').getEscapedPath() == '/a%41b' && url('http://x/a[b').getEscapedPath() == '/a[b'"));
  EXPECT_TRUE(Match("url('http://x/a{b').getEscapedPath() == '/a%7Bb' && "
                    "url('http://x/a%7Bb%20{').getEscapedPath() == '/a%7Bb%20%7B'"));
  EXPECT_TRUE(Match("url('http://x/a%7c|').getEscapedPath() == '/a%7C%7C' && url('http://a/é').getEscapedPath() == '/%C3%A9'"));
  EXPECT_TRUE(Match("url('http://x/%c3').getEscapedPath() == '/%c3' && url('http://x/a%3fb').getEscapedPath() == '/a%3fb'"));
  EXPECT_TRUE(Match("url('http://a/b#c#d').getEscapedPath() == '/b' && url('http://a').getEscapedPath() == ''"));
}

TEST(UrlLibraryTest, Query) {
  EXPECT_TRUE(Match("url('https://example.com/p?a=1&a=2&b').getQuery() == {'a': ['1', '2'], 'b': ['']}"));
  EXPECT_TRUE(Match("url('http://x/?a+b=c%20d').getQuery() == {'a b': ['c d']} && url('http://a/?=x').getQuery() == {'': ['x']}"));
  // Pairs that do not unescape, or hold ';', are dropped.
  EXPECT_TRUE(Match("url('http://x/?a=%zz&b=1').getQuery() == {'b': ['1']} && "
                    "url('http://x/?a=1;&b=2').getQuery() == {'b': ['2']} && url('http://a/p?%').getQuery() == {}"));
  EXPECT_TRUE(Match("url('http://x/a?b?').getQuery() == {'b?': ['']} && url('http://a/b?c#d?').getQuery() == {'c': ['']}"));
  EXPECT_TRUE(Match("url('http://a/?&&a').getQuery() == {'a': ['']} && url('http://a/?a=b=c').getQuery() == {'a': ['b=c']}"));
  EXPECT_TRUE(Match("url('mailto:?a=1').getQuery() == {'a': ['1']} && url('http://a/?x=1').getQuery()['x'][0] == '1'"));
}

TEST(UrlLibraryTest, Errors) {
  EXPECT_EQ(EvalError("url('example.com').getScheme() == ''"),
            R"(CEL expression "url('example.com').getScheme() == ''": evaluation failed: URL parse error during )"
            R"(conversion from string: parse "example.com": invalid URI for request)");
  EXPECT_TRUE(Has(EvalError("url('http://a/#x%zz') == url('http://a/#x')"),
                  R"(URL parse error during conversion from string: parse "http://a/#x%zz": invalid URL escape "%zz")"));
  EXPECT_TRUE(Has(EvalError("dyn(1).getScheme() == ''"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("url(dyn(1)) == url('/a')"), "no such overload"));
  EXPECT_TRUE(Has(EvalError("isURL(dyn(1))"), "no such overload"));
}

TEST(UrlLibraryTest, EqualityAndMapKeys) {
  // Equal when the reassembled URLs are.
  EXPECT_TRUE(Match("url('http://a/b') == url('HTTP://a/b') && url('http://a/b%20c') == url('http://a/b c') && "
                    "url('http://%c3%a9/') == url('http://é/') && url('http://a/#x%20y') == url('http://a/#x y')"));
  EXPECT_TRUE(Match("url('http://a/b#x') != url('http://a/b') && url('http://a/%41') != url('http://a/A') && "
                    "url('http://a/b?') != url('http://a/b') && url('http://u:@a/') != url('http://u@a/')"));
  EXPECT_TRUE(Match("url('http:/a') != url('http:///a') && url('http://a/?q') != url('http://a?q') && "
                    "url('http://a/#x%41') != url('http://a/#xA') && url('http://a:80') != url('http://a:80/')"));
  EXPECT_TRUE(Match("url('https://example.com') in [url('https://example.com')] && "
                    "[url('http://a')] == [url('http://a')] && !(1 == dyn(url('http://a')))"));
  EXPECT_TRUE(Has(EvalError("dyn(url('http://a')) == 1"), "no such overload"));
  // Go hashes a URL key by its pointer: each url() call is another key.
  EXPECT_TRUE(Match("{url('http://a'): 1, url('http://a'): 2}.size() == 2 && !(url('http://a') in {url('http://a'): 1})"));
  EXPECT_TRUE(Has(EvalError("{url('http://a'): 1}[url('http://a')] == 1"), "invalid qualifier type: cel.URL"));
}

TEST(UrlLibraryTest, CheckerTypes) {
  EXPECT_TRUE(Match("type(url('https://example.com')) != type(1) && type(url('http://a').getQuery()) == map"));
  EXPECT_TRUE(Has(CompileError("string(type(url('https://example.com'))) == 'x'"),
                  "found no matching overload for 'string' applied to '(type(kubernetes.URL))'"));
  EXPECT_TRUE(Has(CompileError("url(1) == url(2)"), "found no matching overload for 'url' applied to '(int)'"));
  EXPECT_TRUE(Has(CompileError("url('/a') < url('/b')"),
                  "found no matching overload for '_<_' applied to '(kubernetes.URL, kubernetes.URL)'"));
  EXPECT_TRUE(Has(CompileError("url('/a') in ['/a']"),
                  "found no matching overload for '@in' applied to '(kubernetes.URL, list(string))'"));
  EXPECT_TRUE(Has(CompileError("getHost(url('/a')) == ''"), "found no matching overload for 'getHost'"));
  EXPECT_TRUE(Has(CompileError("'/a'.url() == url('/a')"), "found no matching overload for 'url'"));
  EXPECT_TRUE(Match("dyn(url('https://example.com')).getScheme() == 'https'"));
}

// s16 bound to 655,360 bytes, around `body`.
std::string Doubled(const std::string& body) {
  std::string e = body;
  for (int i = 16; i >= 1; --i) {
    const std::string prev = i == 1 ? "'/aaaaaaaaa'" : "s" + std::to_string(i - 1);
    e = "cel.bind(s" + std::to_string(i) + ", " + prev + " + " + prev + ", " + e + ")";
  }
  return e;
}

TEST(UrlLibraryTest, CostIsATenthOfTheString) {
  // url() of s16 costs 65,536: 13 calls fit the limit, 14 do not; isURL()
  // costs 1 whatever the string.
  EXPECT_TRUE(Match(Doubled("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].all(i, url(s16).getPort() == '')")));
  EXPECT_TRUE(Has(EvalError(Doubled("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13].all(i, url(s16).getPort() == '')")),
                  "cost limit exceeded"));
  std::string many = "0";
  for (int i = 1; i < 200; ++i) many += ", " + std::to_string(i);
  EXPECT_TRUE(Match(Doubled("[" + many + "].all(i, isURL(s16))")));
}

TEST(UrlLibraryTest, ColonsBeforeGo126) {
  // Kubernetes 1.35 (Go 1.25 semantics) reads every scheme's port after the
  // last colon.
  CompileOptions lenient;
  lenient.url_lenient_colons = true;
  EXPECT_TRUE(Match("url('http://a:8080:90/').getPort() == '90' && isURL('http://a:b:80/') && "
                    "url('ftp://a:8080:90/').getHostname() == 'a:8080'", lenient));
  EXPECT_TRUE(Has(EvalError("url('http://a:b/').getPort() == ''", lenient), R"(invalid port ":b" after host)"));
  EXPECT_TRUE(Match("!isURL('http://a:b:80/')"));
}

TEST(UrlLibraryTest, EveryEmulatedRelease) {
  for (int minor : kEmulatedMinors) {
    const CompileOptions o = ReleaseOptions(minor);
    EXPECT_TRUE(Match("isURL('http://a/') && url('http://a:1/').getPort() == '1'", o));
  }
}

}  // namespace
}  // namespace ksched::cel
