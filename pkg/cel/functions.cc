#include "pkg/cel/functions.h"

#include <map>
#include <set>

namespace ksched::cel {
namespace {

using TypeKind = Type::Kind;

Type T(TypeKind k) { return Type::Of(k); }

Overload G(std::vector<Type> params, Type result) { return Overload{false, std::move(params), std::move(result)}; }
Overload M(std::vector<Type> params, Type result) { return Overload{true, std::move(params), std::move(result)}; }

const std::map<std::string, std::vector<Overload>, std::less<>>& Table() {
  static const auto* table = [] {
    auto* t = new std::map<std::string, std::vector<Overload>, std::less<>>();
    const Type b = T(TypeKind::kBool), i = T(TypeKind::kInt), u = T(TypeKind::kUint), d = T(TypeKind::kDouble);
    const Type s = T(TypeKind::kString), by = T(TypeKind::kBytes);
    const Type du = T(TypeKind::kDuration), ts = T(TypeKind::kTimestamp);
    const Type q = T(TypeKind::kQuantity), v = T(TypeKind::kSemver), dyn = Type::Dyn();
    const Type ip = T(TypeKind::kIP), cidr = T(TypeKind::kCIDR), url = T(TypeKind::kURL);
    const Type ls = Type::List(s);
    auto& tab = *t;
    tab["!_"] = {G({b}, b)};
    tab["-_"] = {G({i}, i), G({d}, d)};
    for (const char* op : {"_-_", "_*_", "_/_"}) tab[op] = {G({i, i}, i), G({u, u}, u), G({d, d}, d)};
    tab["_-_"].insert(tab["_-_"].end(), {G({du, du}, du), G({ts, du}, ts), G({ts, ts}, du)});
    tab["_%_"] = {G({i, i}, i), G({u, u}, u)};
    tab["_+_"] = {G({i, i}, i),     G({u, u}, u),     G({d, d}, d),       G({s, s}, s),
                  G({by, by}, by), G({du, du}, du), G({ts, du}, ts), G({du, ts}, ts)};
    for (const char* op : {"_<_", "_<=_", "_>_", "_>=_"}) {
      tab[op] = {G({b, b}, b), G({s, s}, b), G({by, by}, b), G({du, du}, b), G({ts, ts}, b)};
      for (const Type& x : {i, u, d}) {
        for (const Type& y : {i, u, d}) tab[op].push_back(G({x, y}, b));
      }
    }
    tab["size"] = {G({s}, i), M({s}, i), G({by}, i), M({by}, i), G({Type::List(dyn)}, i), M({Type::List(dyn)}, i),
                   G({Type::Map(dyn, dyn)}, i), M({Type::Map(dyn, dyn)}, i)};
    for (const char* f : {"contains", "startsWith", "endsWith"}) tab[f] = {M({s, s}, b)};
    tab["matches"] = {G({s, s}, b), M({s, s}, b)};
    tab["int"] = {G({i}, i), G({u}, i), G({d}, i), G({s}, i), G({du}, i), G({ts}, i)};
    tab["uint"] = {G({i}, u), G({u}, u), G({d}, u), G({s}, u)};
    tab["double"] = {G({i}, d), G({u}, d), G({d}, d), G({s}, d)};
    tab["string"] = {G({i}, s),  G({u}, s),  G({d}, s),  G({s}, s),  G({b}, s),
                     G({by}, s), G({du}, s), G({ts}, s), G({ip}, s), G({cidr}, s)};
    tab["bytes"] = {G({by}, by), G({s}, by)};
    // cel-go 0.26 (Kubernetes 1.34-1.36) also declares duration(int), which
    // fails at run time: the checker's, behind CompileOptions'
    // duration_of_int.
    tab["duration"] = {G({du}, du), G({s}, du)};
    tab["timestamp"] = {G({ts}, ts), G({i}, ts), G({s}, ts)};
    // In UTC, or in the time zone the string names.
    for (const char* f : {"getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
                          "getHours", "getMinutes", "getSeconds", "getMilliseconds"}) {
      tab[f] = {M({ts}, i), M({ts, s}, i)};
    }
    for (const char* f : {"getHours", "getMinutes", "getSeconds", "getMilliseconds"}) tab[f].push_back(M({du}, i));
    tab["bool"] = {G({b}, b), G({s}, b)};
    tab["dyn"] = {G({dyn}, dyn)};
    // Strings extension, version 2.
    tab["charAt"] = {M({s, i}, s)};
    tab["indexOf"] = {M({s, s}, i), M({s, s, i}, i)};
    tab["lastIndexOf"] = {M({s, s}, i), M({s, s, i}, i)};
    tab["lowerAscii"] = {M({s}, s)};
    tab["upperAscii"] = {M({s}, s)};
    tab["replace"] = {M({s, s, s}, s), M({s, s, s, i}, s)};
    tab["split"] = {M({s, s}, ls), M({s, s, i}, ls)};
    tab["substring"] = {M({s, i}, s), M({s, i, i}, s)};
    tab["trim"] = {M({s}, s)};
    tab["join"] = {M({ls}, s), M({ls, s}, s)};
    tab["strings.quote"] = {G({s}, s)};
    tab["format"] = {M({s, Type::List(dyn)}, s)};
    // Kubernetes' regex library.
    tab["find"] = {M({s, s}, s)};
    tab["findAll"] = {M({s, s}, ls), M({s, s, i}, ls)};
    // cel-go's lists extension (the generic rest: GenericListCall).
    tab["lists.range"] = {G({i}, Type::List(i))};
    // Kubernetes' quantity library.
    tab["quantity"] = {G({s}, q)};
    tab["isQuantity"] = {G({s}, b)};
    tab["sign"] = {G({q}, i)};
    tab["asApproximateFloat"] = {M({q}, d)};
    tab["asInteger"] = {M({q}, i)};
    tab["isInteger"] = {M({q}, b)};
    tab["add"] = {M({q, q}, q), M({q, i}, q)};
    tab["sub"] = {M({q, q}, q), M({q, i}, q)};
    // Shared by the quantity and semver libraries.
    tab["isGreaterThan"] = {M({q, q}, b), M({v, v}, b)};
    tab["isLessThan"] = {M({q, q}, b), M({v, v}, b)};
    tab["compareTo"] = {M({q, q}, i), M({v, v}, i)};
    // Kubernetes' semver library, version 1.
    tab["semver"] = {G({s}, v), G({s, b}, v)};
    tab["isSemver"] = {G({s}, b), G({s, b}, b)};
    tab["major"] = {M({v}, i)};
    tab["minor"] = {M({v}, i)};
    tab["patch"] = {M({v}, i)};
    // Kubernetes' IP and CIDR libraries (string() of each is above).
    tab["ip"] = {G({s}, ip), M({cidr}, ip)};
    tab["ip.isCanonical"] = {G({s}, b)};
    tab["isIP"] = {G({s}, b)};
    tab["family"] = {M({ip}, i)};
    for (const char* f : {"isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast"}) {
      tab[f] = {M({ip}, b)};
    }
    tab["cidr"] = {G({s}, cidr)};
    tab["isCIDR"] = {G({s}, b)};
    tab["containsIP"] = {M({cidr, s}, b), M({cidr, ip}, b)};
    tab["containsCIDR"] = {M({cidr, s}, b), M({cidr, cidr}, b)};
    tab["prefixLength"] = {M({cidr}, i)};
    tab["masked"] = {M({cidr}, cidr)};
    // Kubernetes' URL library.
    tab["url"] = {G({s}, url)};
    tab["isURL"] = {G({s}, b)};
    for (const char* f : {"getScheme", "getHost", "getHostname", "getPort", "getEscapedPath"}) tab[f] = {M({url}, s)};
    tab["getQuery"] = {M({url}, Type::Map(s, ls))};
    // Kubernetes' format library.
    const Type fm = T(TypeKind::kFormat);
    tab["format.named"] = {G({s}, Type::Optional(fm))};
    for (const char* f : {"dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
                          "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date",
                          "datetime"}) {
      tab[std::string("format.") + f] = {G({}, fm)};
    }
    tab["validate"] = {M({fm, s}, Type::Optional(ls))};
    // Kubernetes' authz library and its selectors (AuthzSelectors). DRA has
    // no authorizer variable, so these compile only on dyn receivers (or on
    // what such calls return) and always fail at run time (eval.cc).
    const Type az = T(TypeKind::kAuthorizer), pc = T(TypeKind::kPathCheck), gc = T(TypeKind::kGroupCheck);
    const Type rc = T(TypeKind::kResourceCheck), dec = T(TypeKind::kDecision);
    tab["path"] = {M({az, s}, pc)};
    tab["group"] = {M({az, s}, gc)};
    tab["serviceAccount"] = {M({az, s, s}, az)};
    tab["resource"] = {M({gc, s}, rc)};
    for (const char* f : {"subresource", "namespace", "name", "fieldSelector", "labelSelector"}) tab[f] = {M({rc, s}, rc)};
    tab["check"] = {M({pc, s}, dec), M({rc, s}, dec)};
    tab["allowed"] = {M({dec}, b)};
    tab["errored"] = {M({dec}, b)};
    tab["reason"] = {M({dec}, s)};
    tab["error"] = {M({dec}, s)};
    return t;
  }();
  return *table;
}

}  // namespace

const std::vector<Overload>* FindOverloads(std::string_view name) {
  const auto& t = Table();
  auto it = t.find(name);
  return it == t.end() ? nullptr : &it->second;
}

bool GenericListCall(const std::string& name, const std::vector<Type>& t, std::optional<Type>* result) {
  const Type& r = t[0];
  const size_t args = t.size() - 1;
  *result = std::nullopt;
  if (name == "indexOf" || name == "lastIndexOf") {
    // The string overloads are in the table; list(A).indexOf(A) is here.
    // A dyn receiver may be either; both give int.
    if (r.is_dyn() && args == 1) {
      *result = T(TypeKind::kInt);
      return true;
    }
    if (r.kind != TypeKind::kList) return false;
    if (args == 1 && Compatible(*r.elem, t[1])) *result = T(TypeKind::kInt);
    return true;
  }
  static const std::set<std::string, std::less<>> kNames = {
      "isSorted", "sum", "min", "max", "slice", "flatten", "sort", "@sortByAssociatedKeys", "reverse", "distinct"};
  if (!kNames.count(name)) return false;
  if (r.kind != TypeKind::kList && !r.is_dyn()) return true;
  // The element type: not yet known (free) when the receiver is dyn.
  const Type elem = r.kind == TypeKind::kList ? *r.elem : T(TypeKind::kFree);
  // A free element type is bound to the first overload's (int) by the
  // functions templated over comparable types, whose results are that
  // type's (a list of wrapper(int)'s max() is an int).
  Type bound = elem.kind == TypeKind::kFree ? T(TypeKind::kInt) : elem;
  bound.wrapper = false;
  auto comparable = [](const Type& x) {
    return x.kind == TypeKind::kInt || x.kind == TypeKind::kUint || x.kind == TypeKind::kDouble ||
           x.kind == TypeKind::kBool || x.kind == TypeKind::kString || x.kind == TypeKind::kBytes ||
           x.kind == TypeKind::kDuration || x.kind == TypeKind::kTimestamp;
  };
  const bool unknown = elem.is_dyn() && elem.kind != TypeKind::kFree;
  // Several overloads match with different results: dyn. Over a dyn
  // receiver that is every templated function.
  const bool several = unknown || r.is_dyn();
  if (name == "isSorted") {
    if (args == 0 && (comparable(bound) || unknown)) *result = T(TypeKind::kBool);
  } else if (name == "sum") {
    const bool summable = bound.kind == TypeKind::kInt || bound.kind == TypeKind::kUint ||
                          bound.kind == TypeKind::kDouble || bound.kind == TypeKind::kDuration;
    if (args == 0 && (summable || unknown)) *result = several ? Type::Dyn() : bound;
  } else if (name == "min" || name == "max") {
    if (args == 0 && (comparable(bound) || unknown)) *result = several ? Type::Dyn() : bound;
  } else if (name == "sort") {
    if (args == 0 && (comparable(bound) || unknown)) *result = several ? Type::Dyn() : Type::List(bound);
  } else if (name == "slice") {
    if (args == 2 && Compatible(T(TypeKind::kInt), t[1]) && Compatible(T(TypeKind::kInt), t[2])) {
      *result = Type::List(elem);
    }
  } else if (name == "flatten") {
    if (args == 0 && (elem.kind == TypeKind::kList || elem.is_dyn())) {
      // list(list(T)) gives list(T); a dyn element leaves T unbound (free),
      // for the next generic function to bind, as in cel-go.
      Type flat = Type::Dyn();
      if (elem.kind == TypeKind::kList) {
        flat = *elem.elem;
      } else if (elem.kind == TypeKind::kDyn || elem.kind == TypeKind::kFree) {
        flat = T(TypeKind::kFree);
      }
      *result = Type::List(flat);
    } else if (args == 1 && Compatible(T(TypeKind::kInt), t[1])) {
      *result = Type::List(Type::Dyn());
    }
  } else if (name == "reverse" || name == "distinct") {
    if (args == 0) *result = Type::List(elem);
  } else if (name == "@sortByAssociatedKeys") {
    const Type& keys = t.size() == 2 ? t[1] : r;
    const Type key = keys.kind == TypeKind::kList ? *keys.elem : Type::Dyn();
    const bool ok = keys.is_dyn() || comparable(key) || key.is_dyn();
    // Keys of a free type (the receiver's own, sortBy(x, x)) bind it to int;
    // keys of one comparable type choose one overload, so a dyn receiver's
    // list(T) stays list(free); keys of dyn match several overloads, whose
    // list(T) over a dyn receiver are different types: dyn.
    if (args == 1 && ok) {
      if (key.kind == TypeKind::kFree) {
        *result = Type::List(elem.kind == TypeKind::kFree ? T(TypeKind::kInt) : elem);
      } else if (r.is_dyn() && (keys.is_dyn() || key.is_dyn())) {
        *result = Type::Dyn();
      } else {
        *result = Type::List(elem);
      }
    }
  }
  return true;
}

}  // namespace ksched::cel
