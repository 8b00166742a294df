// CelCache: compiled DRA device selectors by expression text (kube's
// cel.Cache), so each expression compiles once however many devices, nodes
// and scheduling cycles evaluate it. A failed compilation is cached too.
//
// Thread-safety: all methods are thread-safe. Readers share the programs'
// and the verdicts' locks (Filter's threads look up on every device); a
// compilation runs outside them, so two threads may compile the same
// expression once each.
// Memory: programs unbounded by design, like the set of selectors in a
// cluster's classes and claims, which is small; remembered verdicts about
// twice the (program, live device) pairs evaluated.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

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

  // Remembered verdicts of a compiled program on a device of a slice
  // object, across cycles: a slice object never changes, so neither does
  // the verdict. `variant` tells apart what callers hand CEL differently
  // for the same device. An entry whose slice object is gone never answers
  // (its weak pointer has expired, whatever object now sits at the same
  // address) and is swept once the memo has doubled. Errors are not
  // remembered.
  std::optional<bool> Recall(const Compiled& program, const std::shared_ptr<const api::ResourceSlice>& slice,
                             const api::Device& device, bool variant) const;
  void Remember(const Compiled& program, const std::shared_ptr<const api::ResourceSlice>& slice,
                const api::Device& device, bool variant, bool matches);
  size_t remembered() const;

  // `program` (compiled without error) on `device` of `driver` in `slice`, the verdict
  // remembered per slice object (Recall/Remember; a null `slice` is
  // evaluated every time). `cel_device` holds the device as CEL sees it,
  // built on first need and reused by the caller's next selectors; with
  // `hide_multiple` it leaves out allowMultipleAllocations, and the verdict
  // is remembered apart. Errors are the program's runtime errors.
  util::StatusOr<bool> Evaluate(const Compiled& program, const std::shared_ptr<const api::ResourceSlice>* slice,
                                const std::string& driver, const api::Device& device, bool hide_multiple,
                                std::optional<cel::Device>& cel_device);

 private:
  struct VerdictKey {
    const void* program;
    const api::Device* device;
    bool variant;
    bool operator==(const VerdictKey&) const = default;
  };
  struct VerdictKeyHash {
    size_t operator()(const VerdictKey& k) const {
      return std::hash<const void*>()(k.program) * 31 + std::hash<const void*>()(k.device) * 2 + (k.variant ? 1 : 0);
    }
  };
  struct Verdict {
    std::weak_ptr<const api::ResourceSlice> slice;
    bool matches = false;
  };

  const cel::CompileOptions options_;
  mutable std::shared_mutex mu_;
  std::map<std::string, Compiled, std::less<>> programs_;  // guarded by mu_
  mutable std::shared_mutex verdicts_mu_;
  std::unordered_map<VerdictKey, Verdict, VerdictKeyHash> verdicts_;  // guarded by verdicts_mu_
  size_t sweep_at_ = 4096;                                           // guarded by verdicts_mu_
};

// What a selector sees of `device` of `driver`: its attributes by kind and
// its capacities as written. An attribute with no value set is left out.
cel::Device ToCelDevice(const std::string& driver, const api::Device& device);

}  // namespace ksched::scheduler::dra
