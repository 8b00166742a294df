// CycleState: data plugins share during one pod's scheduling cycle (kube's
// framework.CycleState). PreFilter typically computes something once and
// writes it under the plugin's key; Filter and Score read it for every node.
//
// Keys. A key is a string ("PreFilterNodeResourcesFit"). Every key is
// interned once per process to a small integer (StateKey::slot()); plugins
// keep a StateKey for each of their keys (a namespace-scope constant) so the
// per-node read is an array index and an atomic load: no lock, no string
// compare, no reference count. The string_view overloads intern (or look
// up) the name on every call and are meant for tests and cold paths.
//
// Values are StateData subclasses held by shared_ptr. Clone() deep-copies
// every value through StateData::Clone(), so a cloned state (e.g. with
// nominated pods added through PreFilterExtensions::AddPod) can be mutated
// without touching the original. A value may return itself from Clone()
// when it is meant to be shared across clones (PodsToActivate does), or
// when it is immutable.
//
// Lookup<T>(key) returns a raw pointer. It stays valid until the CycleState
// is destroyed, even if the key is overwritten or deleted meanwhile: a
// replaced value is retired, not freed, until the state goes (a cycle writes
// each key a handful of times at most, so retiring costs nothing that
// matters). Get<T>/Read return shared ownership instead.
//
// Thread-safety: every method may be called concurrently. Lookup, Get and
// Read never block on each other; Write/Delete/Clone serialize on a mutex.
// A reader concurrent with a Write of the same key sees the old or the new
// value. The StateData objects themselves are not protected: a plugin must
// only mutate its data where no other thread reads it (PreFilter, PreScore,
// AddPod/RemovePod on a state the caller owns, such as a clone), or
// synchronize it itself. The skip sets and the metrics flag are set by the
// framework before the parallel phases and are not synchronized; so is the
// filter resource memo, which PreFilter sets.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cancellation.h"
#include "pkg/scheduler/framework/node_memo.h"
#include "pkg/scheduler/framework/plugin_set.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

class StateData {
 public:
  virtual ~StateData() = default;
  // A copy for a cloned CycleState.
  virtual std::shared_ptr<StateData> Clone() const = 0;
  // Whether a plugin may read this value in the binding cycle (WaitOnPermit,
  // PreBind, Bind, PostBind, or Unreserve after a failure there). Values
  // only the scheduling cycle reads say no: they are freed when it ends
  // (CycleState::ReleaseSchedulingCycleOnly) instead of being held while
  // the pod waits for a binding thread.
  virtual bool ReadAfterSchedulingCycle() const { return true; }
};

// A CycleState key interned to its slot. Constructing one takes a global
// lock (once per key object); copies are cheap. Two StateKeys with the same
// name have the same slot. Interned names are never forgotten (a process
// uses a few dozen).
class StateKey {
 public:
  explicit StateKey(std::string_view name);

  std::string_view name() const { return name_; }
  uint32_t slot() const { return slot_; }

  // The slot of `name` if some StateKey interned it, else nullopt.
  static std::optional<uint32_t> Find(std::string_view name);

 private:
  std::string name_;
  uint32_t slot_;
};

class CycleState {
 public:
  // Slots below this are read with one atomic load; higher slots (a process
  // with more distinct keys than this) take the write mutex to read.
  static constexpr uint32_t kInlineSlots = 32;

  CycleState();
  ~CycleState();
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;

  // The value under `key` if it is a T (exactly, or a subclass), else
  // nullptr. Valid until this CycleState is destroyed (see above). T must
  // derive non-virtually from StateData.
  template <class T>
  T* Lookup(const StateKey& key) const {
    StateData* p = Raw(key.slot());
    if (p == nullptr) return nullptr;
    // The exact-type check is a vtable load and a pointer compare; the
    // dynamic_cast is only for subclasses of T.
    if (typeid(*p) == typeid(T)) return static_cast<T*>(p);
    return dynamic_cast<T*>(p);
  }

  // The value under `key`; NotFound ("not found") when absent.
  util::StatusOr<std::shared_ptr<StateData>> Read(const StateKey& key) const;
  util::StatusOr<std::shared_ptr<StateData>> Read(std::string_view key) const;
  // The value under `key` if it is a T, else nullptr (shared ownership).
  template <class T>
  std::shared_ptr<T> Get(const StateKey& key) const {
    return std::dynamic_pointer_cast<T>(Owned(key.slot()));
  }
  template <class T>
  std::shared_ptr<T> Get(std::string_view key) const {
    std::optional<uint32_t> slot = StateKey::Find(key);
    return slot ? std::dynamic_pointer_cast<T>(Owned(*slot)) : nullptr;
  }
  void Write(const StateKey& key, std::shared_ptr<StateData> value);
  void Write(std::string_view key, std::shared_ptr<StateData> value) { Write(StateKey(key), std::move(value)); }
  void Delete(const StateKey& key);
  void Delete(std::string_view key);

  // Frees every value (live or retired) whose ReadAfterSchedulingCycle() is
  // false. The caller guarantees that no pointer Lookup returned for such a
  // value is still in use: the scheduling cycle of this state is over.
  void ReleaseSchedulingCycleOnly();

  // A deep copy (values cloned, skip sets and metrics flag copied).
  std::unique_ptr<CycleState> Clone() const;

  const PluginSet& SkipFilterPlugins() const { return skip_filter_plugins_; }
  // Also forgets the skip mask (below).
  void SetSkipFilterPlugins(PluginSet plugins) {
    skip_filter_plugins_ = std::move(plugins);
    skip_filter_mask_owner_ = nullptr;
  }
  const PluginSet& SkipScorePlugins() const { return skip_score_plugins_; }
  void SetSkipScorePlugins(PluginSet plugins) { skip_score_plugins_ = std::move(plugins); }
  // PreBind plugins whose PreBindPreFlight said they have nothing to do.
  const PluginSet& SkipPreBindPlugins() const { return skip_pre_bind_plugins_; }
  void SetSkipPreBindPlugins(PluginSet plugins) { skip_pre_bind_plugins_ = std::move(plugins); }
  // PreBind plugins whose PreBind may run beside each other's (kube 1.36's
  // PreBindPreFlightResult.AllowParallel).
  const PluginSet& ParallelPreBindPlugins() const { return parallel_pre_bind_plugins_; }
  void SetParallelPreBindPlugins(PluginSet plugins) { parallel_pre_bind_plugins_ = std::move(plugins); }
  // What the binding cycle's PreBind plugins wait under (kube's context
  // there), or nullptr. Not owned; set by the binding cycle around PreBind
  // and not cloned.
  Cancellation* PreBindCancellation() const { return pre_bind_cancellation_; }
  void SetPreBindCancellation(Cancellation* c) { pre_bind_cancellation_ = c; }

  // SkipFilterPlugins() resolved by a framework into a bitmask over its own
  // Filter plugin order (bit i: skip the i-th Filter plugin), so the
  // per-node check is one AND instead of name compares. `owner` identifies
  // the framework whose order the bits follow; SkipFilterMask returns
  // nullopt for any other owner, or once SetSkipFilterPlugins changed the
  // names after the mask was set.
  void SetSkipFilterMask(const void* owner, uint64_t mask) {
    skip_filter_mask_owner_ = owner;
    skip_filter_mask_ = mask;
  }
  std::optional<uint64_t> SkipFilterMask(const void* owner) const {
    if (owner == nullptr || owner != skip_filter_mask_owner_) return std::nullopt;
    return skip_filter_mask_;
  }

  // Where the Filter plugin that reads the nodes' resource sums keeps its
  // answers for this cycle's pod (node_memo.h), set by it in PreFilter: the
  // Filter loop loads those lines only for nodes whose memo does not
  // answer. A hint; unset (key 0), every node's lines are loaded.
  NodeMemoRef FilterResourceMemo() const { return filter_resource_memo_; }
  void SetFilterResourceMemo(NodeMemoRef ref) { filter_resource_memo_ = ref; }

  // Whether plugin execution durations are recorded in this cycle (kube
  // samples 10% of cycles).
  bool ShouldRecordPluginMetrics() const { return record_plugin_metrics_; }
  void SetRecordPluginMetrics(bool record) { record_plugin_metrics_ = record; }

 private:
  StateData* Raw(uint32_t slot) const {
    if (slot < kInlineSlots) return fast_[slot].load(std::memory_order_acquire);
    return RawOverflow(slot);
  }
  StateData* RawOverflow(uint32_t slot) const;
  std::shared_ptr<StateData> Owned(uint32_t slot) const;
  // Under mu_: stores `value` in `slot`, retiring what was there.
  void SetLocked(uint32_t slot, std::shared_ptr<StateData> value);

  // Published raw pointers of slots < kInlineSlots; owned_ keeps them alive.
  std::array<std::atomic<StateData*>, kInlineSlots> fast_;
  mutable std::mutex mu_;
  // Guarded by mu_: every live value by slot, and replaced or deleted values
  // kept alive for readers still holding their raw pointers.
  std::map<uint32_t, std::shared_ptr<StateData>> owned_;
  std::vector<std::shared_ptr<StateData>> retired_;

  PluginSet skip_filter_plugins_;
  PluginSet skip_score_plugins_;
  PluginSet skip_pre_bind_plugins_;
  PluginSet parallel_pre_bind_plugins_;
  Cancellation* pre_bind_cancellation_ = nullptr;
  const void* skip_filter_mask_owner_ = nullptr;
  uint64_t skip_filter_mask_ = 0;
  NodeMemoRef filter_resource_memo_;
  bool record_plugin_metrics_ = false;
};

// The key of the PodsToActivate entry every scheduling cycle starts with.
inline constexpr std::string_view kPodsToActivateKey = "kubernetes.io/pods-to-activate";
// The same key, interned.
const StateKey& PodsToActivateKey();

// Pods a plugin wants moved to activeQ once this cycle succeeds (after
// Permit, and again after PostBind), keyed by "namespace/name". Shared by all
// clones of a CycleState (Clone returns itself). Thread-safe.
// Create with std::make_shared (Clone relies on shared_from_this).
class PodsToActivate final : public StateData, public std::enable_shared_from_this<PodsToActivate> {
 public:
  std::shared_ptr<StateData> Clone() const override;

  void Add(std::shared_ptr<const api::Pod> pod);
  // Removes and returns every pod, in key order.
  std::vector<std::shared_ptr<const api::Pod>> TakeAll();
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const api::Pod>> pods_;  // guarded by mu_
};

}  // namespace ksched::scheduler::framework
