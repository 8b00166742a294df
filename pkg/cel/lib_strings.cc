// Kubernetes' regex library (find, findAll) and the strings extension's
// strings.quote, over evaluated arguments.
//
// find is Go's FindString and findAll(n) Go's FindAllString: leftmost-first
// matches, and an empty match right after the previous match is skipped.
// Matched text is re-encoded from code points (the same bytes for valid
// UTF-8, which CEL strings are).
//
// Cost: Kubernetes' price (a tenth of the text, plus one, times a quarter
// of the pattern), plus a hundredth of the search's thread steps, as for
// matches().
#include <optional>
#include <string>
#include <vector>

#include "pkg/cel/eval.h"
#include "pkg/cel/utf8.h"

namespace ksched::cel {
namespace {

using K = Value::Kind;

Value Exhausted(CostBudget* budget) {
  budget->Charge(budget->limit + 1);
  return Value::Error(kCostLimitExceeded);
}

// Go's strconv-free quoting of cel-go's strings.quote: the C escapes,
// backslash and double quote; everything else as it is.
std::string Quote(const std::string& s) {
  std::vector<uint32_t> runes = DecodeRunes(s);
  std::string out = "\"";
  for (uint32_t c : runes) {
    if (!AppendCEscape(&out, c)) AppendRune(&out, c);
  }
  return out + "\"";
}

}  // namespace

bool IsStringsLibFunction(const std::string& n) { return n == "find" || n == "findAll" || n == "strings.quote"; }

Value CallStringsLibFunction(const std::string& n, const std::vector<Value>& a, const Regex* compiled,
                             CostBudget* budget) {
  if (n == "strings.quote") {
    if (a.size() != 1 || a[0].kind != K::kString) return Value::NoSuchOverload("strings.quote");
    if (!budget->Charge(a[0].s.size() / 10 + 1)) return Value::Error(kCostLimitExceeded);
    return Value::String(Quote(a[0].s));
  }
  const bool all = n == "findAll";
  if (a.size() < 2 || a[0].kind != K::kString || a[1].kind != K::kString ||
      (all && a.size() == 3 && a[2].kind != K::kInt) || a.size() > (all ? 3u : 2u)) {
    return Value::NoSuchOverload(n.c_str());
  }
  auto ceil_div = [](uint64_t x, uint64_t y) { return (x + y - 1) / y; };
  if (!budget->Charge(ceil_div(a[0].s.size() + 1, 10) * ceil_div(a[1].s.size(), 4))) {
    return Value::Error(kCostLimitExceeded);
  }
  std::optional<Regex> own;
  if (!compiled) {
    util::StatusOr<Regex> c = Regex::Compile(a[1].s);
    if (!c.ok()) return Value::Error("Illegal regex: " + c.status().message());
    own = std::move(c).value();
    compiled = &*own;
  }
  const std::vector<uint32_t> runes = DecodeRunes(a[0].s);
  uint64_t left = budget->used < budget->limit ? budget->limit - budget->used : 0;
  const uint64_t max_steps = left > UINT64_MAX / 100 ? UINT64_MAX : left * 100;
  uint64_t steps = 0;
  if (!all) {
    auto m = compiled->Find(runes, 0, max_steps, &steps);
    if (!m || !budget->Charge(steps / 100)) return Exhausted(budget);
    if (m->first == SIZE_MAX) return Value::String("");
    return Value::String(EncodeRunes(runes, m->first, m->second));
  }
  int64_t limit = a.size() == 3 ? a[2].i : -1;
  if (limit < 0) limit = static_cast<int64_t>(runes.size()) + 1;
  ValueList out;
  size_t pos = 0;
  size_t prev_end = SIZE_MAX;
  while (static_cast<int64_t>(out.size()) < limit && pos <= runes.size()) {
    auto m = compiled->Find(runes, pos, max_steps, &steps);
    if (!m) return Exhausted(budget);
    if (m->first == SIZE_MAX) break;
    bool accept = true;
    if (m->second == pos) {
      // An empty match: not right after the previous match; move on by one.
      if (m->first == prev_end) accept = false;
      ++pos;
    } else {
      pos = m->second;
    }
    prev_end = m->second;
    if (accept) out.push_back(Value::String(EncodeRunes(runes, m->first, m->second)));
  }
  if (!budget->Charge(steps / 100)) return Exhausted(budget);
  return Value::List(std::move(out));
}

}  // namespace ksched::cel
