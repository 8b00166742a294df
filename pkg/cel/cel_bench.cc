// Compile and Matches costs of typical DRA selectors (make bench).
#include <benchmark/benchmark.h>

#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

const char* kSelectors[] = {
    R"(device.driver == "gpu.example.com")",
    R"(device.attributes["gpu.example.com"].model == "a100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0)",
    R"(device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0")) && device.attributes["gpu.example.com"].model.matches("^a[0-9]+$"))",
};

Device Gpu() {
  Device d;
  d.driver = "gpu.example.com";
  d.attributes["model"] = DeviceAttribute::String("a100");
  d.attributes["driverVersion"] = DeviceAttribute::Version("1.2.3");
  d.attributes["cores"] = DeviceAttribute::Int(108);
  d.attributes["numa"] = DeviceAttribute::Int(1);
  d.attributes["other.example.com/pcieRoot"] = DeviceAttribute::String("pci0000:00");
  d.capacity["memory"] = "40Gi";
  return d;
}

void BM_Compile(benchmark::State& state) {
  const char* expr = kSelectors[state.range(0)];
  for (auto _ : state) benchmark::DoNotOptimize(Program::Compile(expr));
}
BENCHMARK(BM_Compile)->DenseRange(0, 2);

void BM_Matches(benchmark::State& state) {
  auto p = Program::Compile(kSelectors[state.range(0)]);
  Device d = Gpu();
  for (auto _ : state) benchmark::DoNotOptimize(p->Matches(d));
}
BENCHMARK(BM_Matches)->DenseRange(0, 2);

}  // namespace
}  // namespace ksched::cel

BENCHMARK_MAIN();
