// Kubernetes' CEL URL library (k8s.io/apiserver/pkg/cel/library/urls.go,
// in DRA's environment at every release ksched emulates), over evaluated
// arguments.
//
// url() accepts what Go's url.ParseRequestURI accepts (an absolute URI or
// an absolute path, not a relative reference), and keeps what url.Parse
// makes of the string, whose error then is the one reported; isURL() is
// whether ParseRequestURI accepts it. The accessors are Go's URL fields and
// methods: Scheme, Host, Hostname(), Port(), EscapedPath() and Query().
// How a host's colons are read varies by release (CostBudget's
// url_lenient_colons, options.h).
//
// Cost: Kubernetes' runtime prices: a tenth of the string's code points to
// parse it with url(), 1 for isURL() and for each accessor.
#include <string>
#include <vector>

#include "pkg/cel/eval.h"
#include "pkg/cel/go_url.h"
#include "pkg/cel/utf8.h"

namespace ksched::cel {
namespace {

using K = Value::Kind;

const std::string kParseError = "URL parse error during conversion from string: ";

Value ParseUrl(const std::string& s, bool lenient_colons) {
  // ParseRequestURI decides what is a URL; Parse (which splits off the
  // fragment that ParseRequestURI leaves in the path or query) what it holds.
  util::StatusOr<GoUrl> checked = GoUrl::ParseRequestUri(s, lenient_colons);
  if (!checked.ok()) return Value::Error(kParseError + checked.status().message());
  util::StatusOr<GoUrl> u = GoUrl::Parse(s, lenient_colons);
  if (!u.ok()) return Value::Error(kParseError + u.status().message());
  return Value::Url(*std::move(u));
}

Value Query(const GoUrl& u) {
  auto m = std::make_shared<MapValue>();
  for (auto& [key, values] : u.Query()) {
    ValueList list;
    for (std::string& v : values) list.push_back(Value::String(std::move(v)));
    m->entries.emplace_back(Value::String(key), Value::List(std::move(list)));
  }
  return Value::Map(std::move(m));
}

}  // namespace

bool IsUrlFunction(const std::string& n) {
  return n == "url" || n == "isURL" || n == "getScheme" || n == "getHost" || n == "getHostname" || n == "getPort" ||
         n == "getEscapedPath" || n == "getQuery";
}

Value CallUrlFunction(const std::string& n, bool member, const std::vector<Value>& a, CostBudget* budget) {
  if (a.size() != 1) return Value::NoSuchOverload(n.c_str());
  if (!member) {
    if ((n != "url" && n != "isURL") || a[0].kind != K::kString) return Value::NoSuchOverload(n.c_str());
    const uint64_t cost = n == "url" ? (CountRunes(a[0].s) + 9) / 10 : 1;
    if (!budget->Charge(cost)) return Value::Error(kCostLimitExceeded);
    if (n == "isURL") return Value::Bool(GoUrl::ParseRequestUri(a[0].s, budget->url_lenient_colons).ok());
    return ParseUrl(a[0].s, budget->url_lenient_colons);
  }
  if (a[0].kind != K::kURL || n == "url" || n == "isURL") return Value::NoSuchOverload(n.c_str());
  if (!budget->Charge(1)) return Value::Error(kCostLimitExceeded);
  const GoUrl& u = *a[0].url;
  if (n == "getScheme") return Value::String(u.scheme);
  if (n == "getHost") return Value::String(u.host);
  if (n == "getHostname") return Value::String(u.Hostname());
  if (n == "getPort") return Value::String(u.Port());
  if (n == "getEscapedPath") return Value::String(u.EscapedPath());
  return Query(u);
}

}  // namespace ksched::cel
