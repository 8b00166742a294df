// Test helpers for pkg/informer: JSON objects as the API server sends them,
// and a recorder of handler calls that tests can block on.
#pragma once

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/informer/fake_lister_watcher.h"
#include "pkg/informer/shared_informer.h"

namespace ksched::informer::testing {

nlohmann::json PodJson(const std::string& ns, const std::string& name, const std::string& rv,
                       const std::string& node_name = "");
nlohmann::json NodeJson(const std::string& name, const std::string& rv);
// A pod whose spec.containers is not an array: valid JSON, not a Pod.
nlohmann::json MalformedPodJson(const std::string& ns, const std::string& name, const std::string& rv);
nlohmann::json BookmarkJson(const std::string& rv);

// An index of pods by spec.nodeName (unassigned pods are not indexed), for
// tests of the index machinery.
inline constexpr const char kNodeNameIndex[] = "spec.nodeName";
std::vector<std::string> NodeNameIndexFunc(const api::Pod& pod);
ListPage Page(std::vector<nlohmann::json> items, const std::string& rv, const std::string& continue_token = "");

// Records handler calls as strings: "add ns/name rv initial", "update ns/name
// old_rv->new_rv", "delete ns/name rv [tombstone]".
class Recorder {
 public:
  ResourceEventHandlerFuncs<api::Pod> PodHandler(std::string tag = "");
  ResourceEventHandlerFuncs<api::Node> NodeHandler();
  void Record(std::string line);
  // Blocks until `n` calls were recorded (10 s limit); returns all calls.
  std::vector<std::string> WaitFor(size_t n) const;
  std::vector<std::string> Calls() const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<std::string> calls_;
};

}  // namespace ksched::informer::testing
