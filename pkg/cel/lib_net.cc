// Kubernetes' CEL IP and CIDR libraries (kubernetes.net.ip and
// kubernetes.net.cidr, in DRA's environment since 1.30, so at every release
// ksched emulates), over evaluated arguments.
//
// ip() refuses what Go's netip.ParseAddr refuses, and also zoned and
// IPv4-mapped IPv6 addresses; cidr() refuses what netip.ParsePrefix refuses
// and IPv4-mapped addresses, but keeps address bits past the length
// (masked() clears them). The error texts are Kubernetes' (their doubled
// prefix on cidr() included). containsIP(string) answers "no such
// overload" for an unparsable string where containsCIDR(string) passes on
// the parse error, as Kubernetes does.
//
// Cost: Kubernetes' runtime prices: a tenth of the string's code points to
// parse one (a fifth for ip.isCanonical), 1 for an accessor, and a tenth of
// the CIDR's prefix bytes, twice, for containsIP (three times plus 1 for
// containsCIDR), plus the parse of a string argument.
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/eval.h"
#include "pkg/cel/go_quote.h"
#include "pkg/cel/utf8.h"

namespace ksched::cel {
namespace {

using K = Value::Kind;

// ceil(units * tenths / 10): Kubernetes' traversal factor is 0.1 per unit.
uint64_t Tenths(uint64_t units, uint64_t tenths) { return (units * tenths + 9) / 10; }

Value ParseIp(const std::string& s) {
  util::StatusOr<IpAddr> a = IpAddr::Parse(s);
  if (!a.ok()) {
    return Value::Error("IP Address " + GoQuote(s) + " parse error during conversion from string: " +
                        a.status().message());
  }
  if (!a->zone.empty()) return Value::Error("IP address " + GoQuote(s) + " with zone value is not allowed");
  if (a->Is4In6()) return Value::Error("IPv4-mapped IPv6 address " + GoQuote(s) + " is not allowed");
  return Value::Ip(*a);
}

Value ParseCidr(const std::string& s) {
  static const std::string kPrefix = "network address parse error during conversion from string: ";
  util::StatusOr<IpPrefix> p = IpPrefix::Parse(s);
  if (!p.ok()) return Value::Error(kPrefix + kPrefix + p.status().message());
  if (p->addr.Is4In6()) return Value::Error(kPrefix + "IPv4-mapped IPv6 address " + GoQuote(s) + " is not allowed");
  return Value::Cidr(*p);
}

// The ip's member accessors by name.
struct IpAccessor {
  std::string_view name;
  Value (*get)(const IpAddr&);
};
const IpAccessor kIpAccessors[] = {
    {"family", [](const IpAddr& a) { return Value::Int(a.is4 ? 4 : 6); }},
    {"isUnspecified", [](const IpAddr& a) { return Value::Bool(a.IsUnspecified()); }},
    {"isLoopback", [](const IpAddr& a) { return Value::Bool(a.IsLoopback()); }},
    {"isLinkLocalMulticast", [](const IpAddr& a) { return Value::Bool(a.IsLinkLocalMulticast()); }},
    {"isLinkLocalUnicast", [](const IpAddr& a) { return Value::Bool(a.IsLinkLocalUnicast()); }},
    {"isGlobalUnicast", [](const IpAddr& a) { return Value::Bool(a.IsGlobalUnicast()); }},
};

// The accessor named `n`, or nullptr.
const IpAccessor* FindIpAccessor(std::string_view n) {
  for (const IpAccessor& a : kIpAccessors) {
    if (a.name == n) return &a;
  }
  return nullptr;
}

// The prefix's size in Kubernetes' cost model: its length in bytes.
uint64_t PrefixBytes(const IpPrefix& p) { return static_cast<uint64_t>(p.bits + 7) / 8; }

Value Contains(const std::string& n, const std::vector<Value>& a, CostBudget* budget) {
  const IpPrefix& p = *a[0].cidr;
  const uint64_t size = PrefixBytes(p);
  uint64_t cost = Tenths(2 * size, 1) + (n == "containsCIDR" ? Tenths(size, 1) + 1 : 0);
  if (a[1].kind == K::kString) cost += Tenths(CountRunes(a[1].s), 1);
  if (!budget->Charge(cost)) return Value::Error(kCostLimitExceeded);
  if (n == "containsIP") {
    if (a[1].kind == K::kIP) return Value::Bool(p.Contains(*a[1].ip));
    if (a[1].kind != K::kString) return Value::NoSuchOverload("containsIP");
    Value ip = ParseIp(a[1].s);
    // Kubernetes reports the receiver, not the parse error, here.
    if (ip.is_error()) return Value::Error("no such overload");
    return Value::Bool(p.Contains(*ip.ip));
  }
  Value other = a[1];
  if (other.kind == K::kString) other = ParseCidr(other.s);
  if (other.is_error()) return other;
  if (other.kind != K::kCIDR) return Value::NoSuchOverload("containsCIDR");
  return Value::Bool(p.Overlaps(*other.cidr) && p.bits <= other.cidr->bits);
}

}  // namespace

bool IsNetFunction(const std::string& n, const std::vector<Value>& a) {
  if (n == "string") return a.size() == 1 && (a[0].kind == K::kIP || a[0].kind == K::kCIDR);
  return n == "ip" || n == "cidr" || n == "isIP" || n == "isCIDR" || n == "ip.isCanonical" || FindIpAccessor(n) != nullptr ||
         n == "containsIP" || n == "containsCIDR" || n == "prefixLength" || n == "masked";
}

Value CallNetFunction(const std::string& n, bool member, const std::vector<Value>& a, CostBudget* budget) {
  auto no = [&] { return Value::NoSuchOverload(n.c_str()); };
  auto charge = [&](uint64_t units) { return budget->Charge(units); };
  if (!member) {
    if (n == "string") return Value::String(a[0].kind == K::kIP ? a[0].ip->String() : a[0].cidr->String());
    if (!KindsAre(a, {K::kString})) return no();
    const std::string& s = a[0].s;
    const uint64_t runes = CountRunes(s);
    if (!charge(Tenths(runes, n == "ip.isCanonical" ? 2 : 1))) return Value::Error(kCostLimitExceeded);
    if (n == "ip") return ParseIp(s);
    if (n == "cidr") return ParseCidr(s);
    if (n == "isIP") return Value::Bool(!ParseIp(s).is_error());
    if (n == "isCIDR") return Value::Bool(!ParseCidr(s).is_error());
    if (n == "ip.isCanonical") {
      Value ip = ParseIp(s);
      if (ip.is_error()) return ip;
      return Value::Bool(ip.ip->String() == s);
    }
    return no();
  }
  const Value& r = a[0];
  if (const IpAccessor* accessor = FindIpAccessor(n); r.kind == K::kIP && a.size() == 1 && accessor != nullptr) {
    if (!charge(1)) return Value::Error(kCostLimitExceeded);
    return accessor->get(*r.ip);
  }
  if (r.kind != K::kCIDR) return no();
  if (a.size() == 2 && (n == "containsIP" || n == "containsCIDR")) return Contains(n, a, budget);
  if (a.size() != 1) return no();
  if (!charge(1)) return Value::Error(kCostLimitExceeded);
  if (n == "ip") return Value::Ip(r.cidr->addr);
  if (n == "prefixLength") return Value::Int(r.cidr->bits);
  if (n == "masked") return Value::Cidr(r.cidr->Masked());
  return no();
}

}  // namespace ksched::cel
