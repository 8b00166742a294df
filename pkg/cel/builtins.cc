// The functions of DRA's CEL environment over evaluated arguments: CEL's
// standard library (its bytes, duration and timestamp functions from
// lib_bytes.cc and lib_time.cc), the strings extension (version 2, which counts in code
// points), and Kubernetes' quantity and semver libraries. Each mirrors the
// Go implementation's edge cases (index ranges, parse rules, overflow).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "pkg/cel/double_format.h"
#include "pkg/cel/eval.h"
#include "pkg/cel/utf8.h"

namespace ksched::cel {
namespace {

using K = Value::Kind;

Value IndexError(int64_t i) { return Value::Error("index out of range: " + std::to_string(i)); }

bool ParseInt64(const std::string& s, int64_t* out) {
  // Go's strconv.ParseInt(s, 10, 64): optional sign, digits, nothing else.
  if (s.empty()) return false;
  size_t k = 0;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    k = 1;
  }
  uint64_t v = 0;
  if (!ParseGoDecimalUint(std::string_view(s).substr(k), &v)) return false;
  if (neg) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

Value ToInt(const Value& v) {
  switch (v.kind) {
    case K::kInt: return v;
    case K::kUint:
      if (v.u > static_cast<uint64_t>(INT64_MAX)) return Value::Error("range error converting " + std::to_string(v.u) + " to int");
      return Value::Int(static_cast<int64_t>(v.u));
    case K::kDouble:
      if (!(v.d > -9223372036854775808.0 && v.d < 9223372036854775808.0)) {
        return Value::Error("range error converting double to int");
      }
      return Value::Int(static_cast<int64_t>(v.d));
    case K::kString: {
      int64_t out = 0;
      if (!ParseInt64(v.s, &out)) return Value::Error("cannot convert string \"" + v.s + "\" to int");
      return Value::Int(out);
    }
    default: return Value::NoSuchOverload("int");
  }
}

Value ToUint(const Value& v) {
  switch (v.kind) {
    case K::kUint: return v;
    case K::kInt:
      if (v.i < 0) return Value::Error("range error converting " + std::to_string(v.i) + " to uint");
      return Value::Uint(static_cast<uint64_t>(v.i));
    case K::kDouble:
      if (!(v.d >= 0 && v.d < 18446744073709551616.0)) return Value::Error("range error converting double to uint");
      return Value::Uint(static_cast<uint64_t>(v.d));
    case K::kString: {
      uint64_t out = 0;
      if (!ParseGoDecimalUint(v.s, &out)) return Value::Error("cannot convert string \"" + v.s + "\" to uint");
      return Value::Uint(out);
    }
    default: return Value::NoSuchOverload("uint");
  }
}

Value ToDouble(const Value& v) {
  switch (v.kind) {
    case K::kDouble: return v;
    case K::kInt: return Value::Double(static_cast<double>(v.i));
    case K::kUint: return Value::Double(static_cast<double>(v.u));
    case K::kString: {
      double d = 0;
      if (!ParseGoFloat(v.s, &d)) return Value::Error("cannot convert string \"" + v.s + "\" to double");
      return Value::Double(d);
    }
    default: return Value::NoSuchOverload("double");
  }
}

Value ToString(const Value& v) {
  switch (v.kind) {
    case K::kString: return v;
    case K::kInt: return Value::String(std::to_string(v.i));
    case K::kUint: return Value::String(std::to_string(v.u));
    case K::kDouble: return Value::String(FormatGoDouble(v.d));
    case K::kBool: return Value::String(v.b ? "true" : "false");
    default: return Value::NoSuchOverload("string");
  }
}

Value ToBool(const Value& v) {
  if (v.kind == K::kBool) return v;
  if (v.kind != K::kString) return Value::NoSuchOverload("bool");
  const std::string& s = v.s;
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return Value::Bool(true);
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") return Value::Bool(false);
  return Value::Error("type conversion error from 'string' to 'bool'");
}

Value Size(const Value& v) {
  switch (v.kind) {
    case K::kString: return Value::Int(static_cast<int64_t>(CountRunes(v.s)));
    case K::kList: return Value::Int(static_cast<int64_t>(v.list->size()));
    case K::kMap: return Value::Int(static_cast<int64_t>(v.map->entries.size()));
    default: return Value::NoSuchOverload("size");
  }
}

// Strings extension. Positions count code points.
Value CharAt(const std::string& s, int64_t i) {
  std::vector<uint32_t> r = DecodeRunes(s);
  if (i < 0 || i > static_cast<int64_t>(r.size())) return IndexError(i);
  if (i == static_cast<int64_t>(r.size())) return Value::String("");
  return Value::String(EncodeRunes(r, static_cast<size_t>(i), static_cast<size_t>(i) + 1));
}

bool RunesMatch(const std::vector<uint32_t>& r, size_t at, const std::vector<uint32_t>& sub) {
  for (size_t k = 0; k < sub.size(); ++k) {
    if (r[at + k] != sub[k]) return false;
  }
  return true;
}

// indexOf and lastIndexOf as the strings extension has them: a negative
// offset is an error, an offset at or past the end finds nothing. An empty
// substring is found at the offset: whatever it is before cel-go 0.29;
// from 0.29 (`checked`) after the negative check, and clamped to the length.
Value EmptySubstringAt(const std::string& s, int64_t offset, bool checked) {
  if (!checked) return Value::Int(offset);
  if (offset < 0) return IndexError(offset);
  return Value::Int(std::min(offset, static_cast<int64_t>(CountRunes(s))));
}

Value IndexOf(const std::string& s, const std::string& sub, int64_t offset, bool checked) {
  if (sub.empty()) return EmptySubstringAt(s, offset, checked);
  if (offset < 0) return IndexError(offset);
  std::vector<uint32_t> r = DecodeRunes(s);
  std::vector<uint32_t> sr = DecodeRunes(sub);
  int64_t n = static_cast<int64_t>(r.size()), m = static_cast<int64_t>(sr.size());
  if (offset >= n) return Value::Int(-1);
  for (int64_t k = offset; k < n - (m - 1); ++k) {
    if (RunesMatch(r, static_cast<size_t>(k), sr)) return Value::Int(k);
  }
  return Value::Int(-1);
}

Value LastIndexOf(const std::string& s, const std::string& sub, int64_t offset, bool checked) {
  if (sub.empty()) return EmptySubstringAt(s, offset, checked);
  if (offset < 0) return IndexError(offset);
  std::vector<uint32_t> r = DecodeRunes(s);
  std::vector<uint32_t> sr = DecodeRunes(sub);
  int64_t n = static_cast<int64_t>(r.size()), m = static_cast<int64_t>(sr.size());
  if (offset >= n) return Value::Int(-1);
  if (offset > n - m) offset = n - m;
  for (int64_t k = offset; k >= 0; --k) {
    if (RunesMatch(r, static_cast<size_t>(k), sr)) return Value::Int(k);
  }
  return Value::Int(-1);
}

// lastIndexOf without an offset: the whole string, where a substring longer
// in bytes finds nothing.
Value LastIndexOf(const std::string& s, const std::string& sub) {
  int64_t runes = static_cast<int64_t>(CountRunes(s));
  if (sub.empty()) return Value::Int(runes);
  if (s.size() < sub.size()) return Value::Int(-1);
  return LastIndexOf(s, sub, runes - 1, false);
}

Value Substring(const std::string& s, int64_t start, int64_t end, bool has_end) {
  std::vector<uint32_t> r = DecodeRunes(s);
  int64_t n = static_cast<int64_t>(r.size());
  if (!has_end) end = n;
  if (has_end && start > end) {
    return Value::Error("invalid substring range. start: " + std::to_string(start) + ", end: " + std::to_string(end));
  }
  if (start < 0 || start > n) return IndexError(start);
  if (has_end && (end < 0 || end > n)) return IndexError(end);
  return Value::String(EncodeRunes(r, static_cast<size_t>(start), static_cast<size_t>(end)));
}

std::string Ascii(std::string s, bool upper) {
  for (char& c : s) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// Go's strings.Replace: n < 0 replaces all; an empty `old` matches before
// each code point and at the end.
std::string Replace(const std::string& s, const std::string& old, const std::string& repl, int64_t n) {
  if (n == 0 || old == repl) return s;
  std::string out;
  int64_t done = 0;
  if (old.empty()) {
    std::vector<std::string> pieces = SplitRunes(s, -1);
    for (const std::string& p : pieces) {
      if (n < 0 || done < n) {
        out += repl;
        ++done;
      }
      out += p;
    }
    if (n < 0 || done < n) out += repl;
    return out;
  }
  size_t pos = 0;
  while (n < 0 || done < n) {
    size_t hit = s.find(old, pos);
    if (hit == std::string::npos) break;
    out.append(s, pos, hit - pos);
    out += repl;
    pos = hit + old.size();
    ++done;
  }
  out.append(s, pos, std::string::npos);
  return out;
}

// Go's strings.SplitN (n < 0: all).
Value SplitToList(const std::string& s, const std::string& sep, int64_t n) {
  ValueList out;
  if (n == 0) return Value::List(std::move(out));
  if (sep.empty()) {
    for (std::string& p : SplitRunes(s, n)) out.push_back(Value::String(std::move(p)));
    return Value::List(std::move(out));
  }
  size_t pos = 0;
  while (n < 0 || static_cast<int64_t>(out.size()) < n - 1) {
    size_t hit = s.find(sep, pos);
    if (hit == std::string::npos) break;
    out.push_back(Value::String(s.substr(pos, hit - pos)));
    pos = hit + sep.size();
  }
  out.push_back(Value::String(s.substr(pos)));
  return Value::List(std::move(out));
}

Value Join(const Value& list, const std::string& sep) {
  std::string out;
  for (size_t k = 0; k < list.list->size(); ++k) {
    const Value& v = (*list.list)[k];
    if (v.kind != K::kString) return Value::Error("join: list element is not a string");
    if (k) out += sep;
    out += v.s;
  }
  return Value::String(std::move(out));
}

Value ParseQuantity(const std::string& s) {
  util::StatusOr<KubeQuantity> q = ParseKubeQuantity(s);
  if (!q.ok()) return Value::Error(q.status().message());
  return Value::Quantity(*q);
}

Value ParseSemver(const std::string& s, bool normalize) {
  util::StatusOr<Semver> v = normalize ? Semver::ParseNormalized(s) : Semver::Parse(s);
  if (!v.ok()) return Value::Error(v.status().message());
  return Value::Version(*v);
}


}  // namespace

Value CallFunction(const std::string& n, bool member, const std::vector<Value>& a, CostBudget* budget) {
  if (IsBytesFunction(n, a)) return CallBytesFunction(n, a, budget);
  if (IsTimeFunction(n, member, a)) return CallTimeFunction(n, member, a);
  auto no = [&] { return Value::NoSuchOverload(n.c_str()); };
  auto charge_strings = [&]() {
    uint64_t bytes = 0;
    for (const Value& v : a) bytes += v.s.size();
    return budget->Charge(bytes / 10);
  };
  // size() and dyn() do not look at the bytes.
  if (n != "size" && n != "dyn" && !charge_strings()) return Value::Error(kCostLimitExceeded);
  if (!member) {
    if (n == "size" && a.size() == 1) return Size(a[0]);
    if (n == "int" && a.size() == 1) return ToInt(a[0]);
    if (n == "uint" && a.size() == 1) return ToUint(a[0]);
    if (n == "double" && a.size() == 1) return ToDouble(a[0]);
    if (n == "string" && a.size() == 1) return ToString(a[0]);
    if (n == "bool" && a.size() == 1) return ToBool(a[0]);
    if (n == "dyn" && a.size() == 1) return a[0];
    if (n == "quantity") return KindsAre(a, {K::kString}) ? ParseQuantity(a[0].s) : no();
    if (n == "isQuantity") {
      return KindsAre(a, {K::kString}) ? Value::Bool(ParseKubeQuantity(a[0].s).ok()) : no();
    }
    if (n == "sign") return KindsAre(a, {K::kQuantity}) ? Value::Int(QuantitySign(a[0].quantity->q)) : no();
    if (n == "semver" || n == "isSemver") {
      bool normalize = false;
      if (KindsAre(a, {K::kString, K::kBool})) {
        normalize = a[1].b;
      } else if (!KindsAre(a, {K::kString})) {
        return no();
      }
      Value v = ParseSemver(a[0].s, normalize);
      if (n == "isSemver") return Value::Bool(!v.is_error());
      return v;
    }
    return no();
  }
  const Value& r = a[0];
  if (n == "size" && a.size() == 1) return Size(r);
  if (r.kind == K::kString) {
    if (n == "contains" && KindsAre(a, {K::kString, K::kString})) return Value::Bool(r.s.find(a[1].s) != std::string::npos);
    if (n == "startsWith" && KindsAre(a, {K::kString, K::kString})) return Value::Bool(r.s.rfind(a[1].s, 0) == 0);
    if (n == "endsWith" && KindsAre(a, {K::kString, K::kString})) {
      return Value::Bool(r.s.size() >= a[1].s.size() && r.s.compare(r.s.size() - a[1].s.size(), a[1].s.size(), a[1].s) == 0);
    }
    if (n == "charAt" && KindsAre(a, {K::kString, K::kInt})) return CharAt(r.s, a[1].i);
    const bool checked = budget->checked_empty_substring_offsets;
    if (n == "indexOf" && KindsAre(a, {K::kString, K::kString})) return IndexOf(r.s, a[1].s, 0, checked);
    if (n == "indexOf" && KindsAre(a, {K::kString, K::kString, K::kInt})) return IndexOf(r.s, a[1].s, a[2].i, checked);
    if (n == "lastIndexOf" && KindsAre(a, {K::kString, K::kString})) return LastIndexOf(r.s, a[1].s);
    if (n == "lastIndexOf" && KindsAre(a, {K::kString, K::kString, K::kInt})) return LastIndexOf(r.s, a[1].s, a[2].i, checked);
    if (n == "lowerAscii" && a.size() == 1) return Value::String(Ascii(r.s, false));
    if (n == "upperAscii" && a.size() == 1) return Value::String(Ascii(r.s, true));
    if (n == "replace" && KindsAre(a, {K::kString, K::kString, K::kString})) return Value::String(Replace(r.s, a[1].s, a[2].s, -1));
    if (n == "replace" && KindsAre(a, {K::kString, K::kString, K::kString, K::kInt})) {
      return Value::String(Replace(r.s, a[1].s, a[2].s, a[3].i));
    }
    if (n == "split" && KindsAre(a, {K::kString, K::kString})) return SplitToList(r.s, a[1].s, -1);
    if (n == "split" && KindsAre(a, {K::kString, K::kString, K::kInt})) return SplitToList(r.s, a[1].s, a[2].i);
    if (n == "substring" && KindsAre(a, {K::kString, K::kInt})) return Substring(r.s, a[1].i, 0, false);
    if (n == "substring" && KindsAre(a, {K::kString, K::kInt, K::kInt})) return Substring(r.s, a[1].i, a[2].i, true);
    if (n == "trim" && a.size() == 1) return Value::String(TrimSpace(r.s));
    return no();
  }
  if (r.kind == K::kList && n == "join") {
    if (a.size() == 1) return Join(r, "");
    if (KindsAre(a, {K::kList, K::kString})) return Join(r, a[1].s);
    return no();
  }
  if (r.kind == K::kQuantity) {
    const KubeQuantity& q = r.quantity->q;
    if (n == "asApproximateFloat" && a.size() == 1) return Value::Double(QuantityApproximateFloat(q));
    if (n == "isInteger" && a.size() == 1) {
      int64_t v = 0;
      return Value::Bool(QuantityAsInt64(q, &v));
    }
    if (n == "asInteger" && a.size() == 1) {
      int64_t v = 0;
      if (!QuantityAsInt64(q, &v)) return Value::Error("cannot convert value to integer");
      return Value::Int(v);
    }
    if ((n == "add" || n == "sub") && a.size() == 2) {
      KubeQuantity other;
      if (a[1].kind == K::kQuantity) {
        other = a[1].quantity->q;
      } else if (a[1].kind == K::kInt) {
        other = KubeQuantity::FromInt(a[1].i);
      } else {
        return no();
      }
      util::StatusOr<KubeQuantity> sum = AddQuantity(q, other, n == "sub", budget->quantity_deep_copy);
      if (!sum.ok()) return Value::Error(sum.status().message());
      return Value::Quantity(*sum, /*derived=*/true);
    }
    if (KindsAre(a, {K::kQuantity, K::kQuantity})) {
      util::StatusOr<int> c = CompareQuantity(*r.quantity, a[1].quantity->q);
      if (!c.ok()) return Value::Error(c.status().message());
      if (n == "isGreaterThan") return Value::Bool(*c == 1);
      if (n == "isLessThan") return Value::Bool(*c == -1);
      if (n == "compareTo") return Value::Int(*c);
    }
    return no();
  }
  if (r.kind == K::kSemver) {
    if (n == "major" && a.size() == 1) return Value::Int(static_cast<int64_t>(r.version->major()));
    if (n == "minor" && a.size() == 1) return Value::Int(static_cast<int64_t>(r.version->minor()));
    if (n == "patch" && a.size() == 1) return Value::Int(static_cast<int64_t>(r.version->patch()));
    if (KindsAre(a, {K::kSemver, K::kSemver})) {
      int c = r.version->Compare(*a[1].version);
      if (n == "isGreaterThan") return Value::Bool(c == 1);
      if (n == "isLessThan") return Value::Bool(c == -1);
      if (n == "compareTo") return Value::Int(c);
    }
    return no();
  }
  return no();
}

bool KindsAre(const std::vector<Value>& args, std::initializer_list<Value::Kind> kinds) {
  if (args.size() != kinds.size()) return false;
  size_t k = 0;
  for (Value::Kind kind : kinds) {
    if (args[k++].kind != kind) return false;
  }
  return true;
}

}  // namespace ksched::cel
