// Helpers shared by the scheduling queue's tests and benchmarks: pod
// builders and configurable fake plugins.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/queue/queueing_hint_map.h"

namespace ksched::scheduler::queue::testing {

inline constexpr const char* kProfile = "default-scheduler";

// An unassigned pod of profile kProfile with uid "uid-<name>".
inline std::shared_ptr<api::Pod> MakePod(const std::string& name, int32_t priority = 0,
                                         const std::string& ns = "default") {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = name;
  p->metadata.namespace_ = ns;
  p->metadata.uid = "uid-" + ns + "-" + name;
  p->spec.priority = priority;
  p->spec.scheduler_name = kProfile;
  return p;
}

// A copy of `pod` (same identity) with one label changed, as an update.
inline std::shared_ptr<api::Pod> WithLabel(const api::Pod& pod, const std::string& k, const std::string& v) {
  auto p = std::make_shared<api::Pod>(pod);
  p->metadata.labels[k] = v;
  return p;
}

// A plugin with fixed registrations; its hint functions are supplied by the
// test. `implements_enqueue_extensions` false makes it a plugin that does
// not implement EnqueueExtensions (so it gets every event).
class FakePlugin : public framework::EnqueueExtensions {
 public:
  explicit FakePlugin(std::string name, std::vector<framework::ClusterEventWithHint> events = {})
      : name_(std::move(name)), events_(std::move(events)) {}
  std::string_view Name() const override { return name_; }
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override { return events_; }

 private:
  std::string name_;
  std::vector<framework::ClusterEventWithHint> events_;
};

// A plugin without EnqueueExtensions.
class PlainPlugin : public framework::Plugin {
 public:
  explicit PlainPlugin(std::string name) : name_(std::move(name)) {}
  std::string_view Name() const override { return name_; }

 private:
  std::string name_;
};

// A PreEnqueue plugin that gates pods whose name is in `gated`.
class FakePreEnqueue : public framework::PreEnqueuePlugin, public framework::EnqueueExtensions {
 public:
  explicit FakePreEnqueue(std::string name, std::vector<framework::ClusterEventWithHint> events = {})
      : name_(std::move(name)), events_(std::move(events)) {}
  std::string_view Name() const override { return name_; }
  framework::Status PreEnqueue(const api::Pod& pod) override {
    ++calls;
    if (gated.count(pod.metadata.name)) {
      return framework::Status(framework::Code::kUnschedulableAndUnresolvable, "gated by " + name_);
    }
    return framework::Status();
  }
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override { return events_; }

  std::set<std::string> gated;
  int calls = 0;

 private:
  std::string name_;
  std::vector<framework::ClusterEventWithHint> events_;
};

inline framework::QueueingHintFn AlwaysHint(framework::QueueingHint h) {
  return [h](const api::Pod&, const framework::EventObject&, const framework::EventObject&)
             -> util::StatusOr<framework::QueueingHint> { return h; };
}

inline framework::QueueingHintFn ErrorHint() {
  return [](const api::Pod&, const framework::EventObject&, const framework::EventObject&)
             -> util::StatusOr<framework::QueueingHint> { return util::Internal("hint failed"); };
}

}  // namespace ksched::scheduler::queue::testing
