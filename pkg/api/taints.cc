#include "pkg/api/taints.h"

namespace ksched::api {

bool ToleratesTaint(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  // The API server defaults an empty operator to Equal.
  if (toleration.operator_.empty() || toleration.operator_ == kTolerationOpEqual) {
    return toleration.value == taint.value;
  }
  return toleration.operator_ == kTolerationOpExists;
}

bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const Toleration& t : tolerations) {
    if (ToleratesTaint(t, taint)) return true;
  }
  return false;
}

const Taint* FindMatchingUntoleratedTaint(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations,
                                          const TaintFilter& filter) {
  for (const Taint& taint : taints) {
    if (filter && !filter(taint)) continue;
    if (!TolerationsTolerateTaint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

bool IsNoScheduleOrNoExecute(const Taint& taint) {
  return taint.effect == kTaintEffectNoSchedule || taint.effect == kTaintEffectNoExecute;
}

int64_t CountIntolerableTaintsPreferNoSchedule(const std::vector<Taint>& taints,
                                               const std::vector<Toleration>& tolerations) {
  std::vector<Toleration> relevant;
  for (const Toleration& t : tolerations) {
    if (t.effect.empty() || t.effect == kTaintEffectPreferNoSchedule) relevant.push_back(t);
  }
  int64_t count = 0;
  for (const Taint& taint : taints) {
    if (taint.effect != kTaintEffectPreferNoSchedule) continue;
    if (!TolerationsTolerateTaint(relevant, taint)) ++count;
  }
  return count;
}

bool TaintsMatch(const Taint& a, const Taint& b) { return a.key == b.key && a.effect == b.effect; }

std::string TaintToString(const Taint& taint) {
  // kube keeps the colon after a value even without an effect ("k=v:").
  std::string out = taint.key;
  if (!taint.value.empty()) out += "=" + taint.value + ":";
  if (!taint.effect.empty()) out += (taint.value.empty() ? ":" : "") + taint.effect;
  return out;
}

}  // namespace ksched::api
