// Matching nodes against node selectors and node affinity, as
// k8s.io/component-helpers/scheduling/corev1/nodeaffinity does for
// kube-scheduler's NodeAffinity plugin.
//
// Semantics:
//   - A NodeSelector's terms are ORed; a term's matchExpressions (node
//     labels) and matchFields (node fields) are ANDed.
//   - An empty term (no expressions, no fields) matches nothing; a
//     NodeSelector with no terms matches nothing. An unset required node
//     affinity imposes nothing.
//   - matchExpressions operators: In, NotIn, Exists, DoesNotExist, Gt, Lt
//     (integer compare; a non-integer label never matches). Keys and values
//     are validated as label keys/values.
//   - matchFields supports In / NotIn with exactly one value; the only node
//     field is metadata.name (a node without a name skips field checks).
//   - A malformed term (unknown operator, bad key, wrong value count) never
//     matches but does not stop the other terms (kube's lazy errors); its
//     error is available from errors().
//
// CompiledNodeSelector, RequiredNodeAffinity and PreferredSchedulingTerms
// compile once (e.g. in PreFilter) and then match many nodes; they are
// immutable and safe to share between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/labels.h"
#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::api {

class CompiledNodeSelector {
 public:
  // Lazy: malformed terms are recorded and never match.
  explicit CompiledNodeSelector(const NodeSelector& selector);
  // Strict (kube's NewNodeSelector): any malformed term is an error.
  static util::StatusOr<CompiledNodeSelector> Create(const NodeSelector& selector);

  bool Match(const Node& node) const;
  // One message per malformed term requirement, with its field path.
  const std::vector<std::string>& errors() const { return errors_; }

  // One compiled term; public so that preferred terms can reuse it.
  struct Term {
    std::optional<Selector> labels;          // unset: no matchExpressions
    std::optional<std::vector<FieldRequirement>> fields;  // unset: no matchFields
    bool malformed = false;

    bool Match(const Node& node) const;
  };
  // Compiles one term, appending its errors (prefixed by `path`).
  static Term CompileTerm(const NodeSelectorTerm& term, const std::string& path, std::vector<std::string>* errors);

 private:
  std::vector<Term> terms_;  // empty terms are dropped: they match nothing
  std::vector<std::string> errors_;
};

// A pod's hard node constraints: spec.nodeSelector AND the required node
// affinity terms (kube's nodeaffinity.GetRequiredNodeAffinity).
class RequiredNodeAffinity {
 public:
  explicit RequiredNodeAffinity(const Pod& pod);
  bool Match(const Node& node) const;

 private:
  std::optional<Selector> node_selector_;        // unset: empty spec.nodeSelector
  std::optional<CompiledNodeSelector> affinity_;  // unset: no required affinity
};

// preferredDuringSchedulingIgnoredDuringExecution compiled for scoring:
// Score is the sum of the weights of the terms a node matches. Terms with
// weight 0 or no requirements are ignored.
class PreferredSchedulingTerms {
 public:
  // Any malformed term is an error (kube's NewPreferredSchedulingTerms).
  static util::StatusOr<PreferredSchedulingTerms> Create(const std::vector<PreferredSchedulingTerm>& terms);
  int64_t Score(const Node& node) const;

 private:
  PreferredSchedulingTerms() = default;
  std::vector<std::pair<CompiledNodeSelector::Term, int32_t>> terms_;
};

// True if the terms of `selector` (ORed) match the node; malformed terms do
// not match.
bool MatchNodeSelectorTerms(const Node& node, const NodeSelector& selector);
// pod.spec.nodeSelector: every entry must be a node label with that value.
bool PodMatchesNodeSelector(const Pod& pod, const Node& node);
// kube-scheduler's NodeAffinity Filter check: nodeSelector AND required
// node affinity.
bool PodMatchesNodeSelectorAndAffinityTerms(const Pod& pod, const Node& node);
// StorageClass allowedTopologies (v1helper.MatchTopologySelectorTerms): no
// terms match everything; terms are ORed, each term's expressions are
// "key in values" ANDed; an empty or malformed term matches nothing.
bool MatchTopologySelectorTerms(const std::vector<TopologySelectorTerm>& terms, const StringMap& labels);

}  // namespace ksched::api
