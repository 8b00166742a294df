// cel_eval: evaluates DRA device selectors with pkg/cel, one JSON object per
// input line, one JSON result per output line, in order.
//
// Input:  {"expression": "...",
//          "device": {"driver": "d", "allowMultipleAllocations": true,
//                     "attributes": {"name": {"int": 1} | {"bool": true} |
//                                    {"string": "s"} | {"version": "1.2.3"}},
//                     "capacity": {"name": "1Gi"}}}
// Output: {"matches": bool, "error": null | "message"}
//
// A malformed line yields {"matches": false, "error": "cel_eval: ..."} with
// "inputError": true, so the comparison can tell it from an evaluator error.
// Compiled programs are cached by expression. Other fields (the
// comparison's feature flags) are ignored.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/cel/program.h"
#include "pkg/scheduler/framework/cel_options.h"
#include "pkg/scheduler/framework/feature_gates.h"

namespace {

using ksched::cel::Device;
using ksched::cel::DeviceAttribute;
using ksched::cel::Program;
using nlohmann::json;

bool ReadDevice(const json& in, Device* d, std::string* err) {
  // Capacity values are kept as text; Matches parses them.
  d->driver = in.value("driver", "");
  if (in.contains("allowMultipleAllocations") && !in["allowMultipleAllocations"].is_null()) {
    d->allow_multiple_allocations = in["allowMultipleAllocations"].get<bool>();
  }
  if (in.contains("attributes")) {
    for (const auto& [name, v] : in["attributes"].items()) {
      if (v.contains("int")) {
        d->attributes[name] = DeviceAttribute::Int(v["int"].get<int64_t>());
      } else if (v.contains("bool")) {
        d->attributes[name] = DeviceAttribute::Bool(v["bool"].get<bool>());
      } else if (v.contains("string")) {
        d->attributes[name] = DeviceAttribute::String(v["string"].get<std::string>());
      } else if (v.contains("version")) {
        d->attributes[name] = DeviceAttribute::Version(v["version"].get<std::string>());
      } else {
        *err = "attribute " + name + " has no value";
        return false;
      }
    }
  }
  if (in.contains("capacity")) {
    for (const auto& [name, v] : in["capacity"].items()) d->capacity[name] = v.get<std::string>();
  }
  return true;
}

json Evaluate(const std::string& line, const ksched::cel::CompileOptions& options,
              std::map<std::string, ksched::util::StatusOr<Program>>* cache) {
  json out;
  json in;
  try {
    in = json::parse(line);
    Device device;
    std::string err;
    if (!ReadDevice(in.at("device"), &device, &err)) {
      return json{{"matches", false}, {"error", "cel_eval: " + err}, {"inputError", true}};
    }
    std::string expr = in.at("expression").get<std::string>();
    auto it = cache->find(expr);
    if (it == cache->end()) it = cache->emplace(expr, Program::Compile(expr, options)).first;
    if (!it->second.ok()) return json{{"matches", false}, {"error", it->second.status().message()}};
    auto m = it->second->Matches(device);
    if (!m.ok()) return json{{"matches", false}, {"error", m.status().message()}};
    return json{{"matches", *m}, {"error", nullptr}};
  } catch (const std::exception& e) {
    return json{{"matches", false}, {"error", std::string("cel_eval: ") + e.what()}, {"inputError", true}};
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  // --emulated-version=1.NN: the minor whose CEL semantics to evaluate with
  // (DynamicResources compiles with the same switch); 1.34's otherwise.
  int minor = ksched::scheduler::framework::kOldestKubeMinor;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--emulated-version=1.", 0) == 0) {
      minor = std::atoi(arg.c_str() + std::strlen("--emulated-version=1."));
    } else {
      std::cerr << "usage: cel_eval [--emulated-version=1.NN] < cases.jsonl\n";
      return 2;
    }
  }
  const ksched::scheduler::framework::FeatureGates gates = ksched::scheduler::framework::FeatureGates::ForMinor(minor);
  const ksched::cel::CompileOptions options = ksched::scheduler::framework::CelCompileOptions(gates);
  std::map<std::string, ksched::util::StatusOr<Program>> cache;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::cout << Evaluate(line, options, &cache).dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  }
  return 0;
}
