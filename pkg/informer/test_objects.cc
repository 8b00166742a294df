#include "pkg/informer/test_objects.h"

#include <chrono>
#include <utility>

#include "pkg/api/codec.h"

namespace ksched::informer::testing {

nlohmann::json PodJson(const std::string& ns, const std::string& name, const std::string& rv,
                       const std::string& node_name) {
  api::Pod pod;
  pod.metadata.namespace_ = ns;
  pod.metadata.name = name;
  pod.metadata.uid = "uid-" + ns + "-" + name;
  pod.metadata.resource_version = rv;
  pod.spec.node_name = node_name;
  pod.spec.scheduler_name = "default-scheduler";
  api::Container c;
  c.name = "main";
  c.image = "busybox";
  pod.spec.containers.push_back(c);
  pod.status.phase = "Pending";
  return api::ToJson(pod);
}

nlohmann::json NodeJson(const std::string& name, const std::string& rv) {
  api::Node node;
  node.metadata.name = name;
  node.metadata.uid = "uid-" + name;
  node.metadata.resource_version = rv;
  return api::ToJson(node);
}

nlohmann::json MalformedPodJson(const std::string& ns, const std::string& name, const std::string& rv) {
  nlohmann::json pod = PodJson(ns, name, rv);
  pod["spec"]["containers"] = "not-a-list";
  return pod;
}

nlohmann::json BookmarkJson(const std::string& rv) {
  return {{"kind", "Pod"}, {"apiVersion", "v1"}, {"metadata", {{"resourceVersion", rv}}}};
}

std::vector<std::string> NodeNameIndexFunc(const api::Pod& pod) {
  if (pod.spec.node_name.empty()) return {};
  return {pod.spec.node_name};
}

ListPage Page(std::vector<nlohmann::json> items, const std::string& rv, const std::string& continue_token) {
  ListPage page;
  for (const nlohmann::json& item : items) page.items.push_back(item.dump());
  page.info = {rv, continue_token};
  return page;
}

namespace {

template <class T>
ResourceEventHandlerFuncs<T> MakeHandler(Recorder* r, std::string tag) {
  ResourceEventHandlerFuncs<T> f;
  std::string prefix = tag.empty() ? "" : tag + " ";
  f.on_add = [r, prefix](const std::shared_ptr<const T>& obj, bool initial) {
    r->Record(prefix + "add " + api::KeyOf(obj->metadata) + " " + obj->metadata.resource_version +
              (initial ? " initial" : ""));
  };
  f.on_update = [r, prefix](const std::shared_ptr<const T>& old_obj, const std::shared_ptr<const T>& new_obj) {
    r->Record(prefix + "update " + api::KeyOf(new_obj->metadata) + " " + old_obj->metadata.resource_version +
              "->" + new_obj->metadata.resource_version);
  };
  f.on_delete = [r, prefix](const std::shared_ptr<const T>& obj, bool unknown) {
    r->Record(prefix + "delete " + api::KeyOf(obj->metadata) + " " + obj->metadata.resource_version +
              (unknown ? " tombstone" : ""));
  };
  return f;
}

}  // namespace

ResourceEventHandlerFuncs<api::Pod> Recorder::PodHandler(std::string tag) {
  return MakeHandler<api::Pod>(this, std::move(tag));
}

ResourceEventHandlerFuncs<api::Node> Recorder::NodeHandler() { return MakeHandler<api::Node>(this, ""); }

void Recorder::Record(std::string line) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(std::move(line));
  }
  cv_.notify_all();
}

std::vector<std::string> Recorder::WaitFor(size_t n) const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::seconds(10), [&] { return calls_.size() >= n; });
  return calls_;
}

std::vector<std::string> Recorder::Calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

}  // namespace ksched::informer::testing
