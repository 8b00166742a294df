// CelCache: compiled DRA device selectors by expression text (kube's
// cel.Cache), so each expression compiles once however many devices, nodes
// and scheduling cycles evaluate it. A failed compilation is cached too.
//
// Thread-safety: all methods are thread-safe (one mutex; compilation runs
// outside it, so two threads may compile the same expression once each).
// Memory: unbounded by design, like the set of selectors in a cluster's
// classes and claims, which is small.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "pkg/api/resource_types.h"
#include "pkg/cel/device.h"
#include "pkg/cel/program.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

class CelCache {
 public:
  using Compiled = std::shared_ptr<const util::StatusOr<cel::Program>>;

  // Every program compiles with `options` (the cel-go release's semantics).
  explicit CelCache(cel::CompileOptions options = {}) : options_(options) {}

  // The program for `expression`, or its compilation error.
  Compiled GetOrCompile(std::string_view expression);

  size_t size() const;

 private:
  const cel::CompileOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, Compiled, std::less<>> programs_;  // guarded by mu_
};

// What a selector sees of `device` of `driver`: its attributes by kind and
// its capacities as written. An attribute with no value set is left out.
cel::Device ToCelDevice(const std::string& driver, const api::Device& device);

}  // namespace ksched::scheduler::dra
