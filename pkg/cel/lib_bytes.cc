// CEL's bytes functions over evaluated arguments: bytes(string) and
// bytes(bytes), string(bytes) (which refuses invalid UTF-8, as cel-go does),
// and size() of bytes, global or member, which counts octets. The operators
// over bytes (+, the orderings, ==) are the evaluator's (eval.cc), with
// those of the other kinds.
//
// Cost: a tenth of the octets converted, as for strings.
#include <string>
#include <vector>

#include "pkg/cel/eval.h"
#include "pkg/cel/utf8.h"

namespace ksched::cel {
namespace {

using K = Value::Kind;

}  // namespace

bool IsBytesFunction(const std::string& name, const std::vector<Value>& args) {
  if (name == "bytes") return true;
  return (name == "string" || name == "size") && args.size() == 1 && args[0].kind == K::kBytes;
}

Value CallBytesFunction(const std::string& name, const std::vector<Value>& args, CostBudget* budget) {
  if (args.size() != 1) return Value::NoSuchOverload(name.c_str());
  const Value& a = args[0];
  if (name == "size") return Value::Int(static_cast<int64_t>(a.s.size()));
  if (!budget->Charge(a.s.size() / 10)) return Value::Error(kCostLimitExceeded);
  if (name == "string") {
    if (!IsValidUtf8(a.s)) return Value::Error("invalid UTF-8 in bytes, cannot convert to string");
    return Value::String(a.s);
  }
  // bytes()
  if (a.kind == K::kBytes) return a;
  if (a.kind == K::kString) return Value::Bytes(a.s);
  return Value::NoSuchOverload("bytes");
}

}  // namespace ksched::cel
