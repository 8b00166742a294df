// NodeTree: node names grouped by zone, listed round-robin across zones
// (kube's nodeTree), so that the scheduler's "evaluate nodes starting at a
// rotating index and stop after enough feasible ones" spreads its picks over
// zones.
//
// A node's zone key combines its region and zone labels (the deprecated
// failure-domain.beta.kubernetes.io/* labels win over topology.kubernetes.io/*
// as in kube); nodes with neither share the zone "". Zones are kept in the
// order they first appeared, nodes within a zone in insertion order.
// List() takes the 1st node of every zone, then the 2nd of every zone, ...
//
// Complexity: Add O(1) amortized (a name index says whether the node is
// already present), Remove O(nodes in zone + zones), List O(nodes). Thread-safety: none; the Cache calls it under its lock.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::cache {

// "<region>:\0:<zone>", or "" when the node has neither label.
std::string GetZoneKey(const api::Node& node);

class NodeTree {
 public:
  // Ignores a node already present in its zone; a node listed under another
  // zone moves to this one.
  void AddNode(const api::Node& node);
  // NotFound when the node is not in its zone.
  util::Status RemoveNode(const api::Node& node);
  // Moves the node when its zone changed.
  void UpdateNode(const api::Node& old_node, const api::Node& new_node);
  std::vector<std::string> List() const;
  size_t NumNodes() const { return num_nodes_; }
  // Bumped by every change of List()'s result.
  int64_t version() const { return version_; }

 private:
  // Takes the node `name` (a key of zone_of_) out of the list of `zone` (a
  // key of tree_), and the zone away when it empties.
  void RemoveFromZone(const std::string& name, const std::string* zone);

  // Node name -> its zone, a key of tree_. The only copy of a node's name:
  // the zones' lists point at these keys (an unordered_map's nodes do not
  // move).
  std::unordered_map<std::string, const std::string*> zone_of_;
  std::map<std::string, std::vector<const std::string*>> tree_;  // zone key -> node names
  std::vector<const std::string*> zones_;                        // tree_'s keys, first-seen order
  size_t num_nodes_ = 0;
  int64_t version_ = 0;
};

}  // namespace ksched::scheduler::cache
