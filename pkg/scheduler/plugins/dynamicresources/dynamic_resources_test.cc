#include "pkg/scheduler/plugins/dynamicresources/dynamic_resources.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "pkg/config/config_gates.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/plugins/dynamicresources/dra_metrics.h"
#include "pkg/scheduler/plugins/dynamicresources/extended_resources.h"
#include "pkg/scheduler/plugins/score_nodes_test_util.h"
#include "pkg/util/scripted_clock.h"

// Cases follow kube's dynamicresources_test.go (v1.34): the same objects
// (a pod "my-pod" with claim "my-pod-my-resource", class
// "my-resource-class", one device on node "worker") and the same statuses.
namespace ksched::scheduler::plugins::dynamicresources {
namespace {

using framework::ActionType;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using framework::Status;

constexpr char kNs[] = "default";
constexpr char kPodUid[] = "1234";
constexpr char kClaimName[] = "my-pod-my-resource";
constexpr char kClassName[] = "my-resource-class";
constexpr char kDriver[] = "some-driver";

// An API server for claims: PUTs are guarded by resourceVersion (kConflict
// when stale) and bump it; every write reaches the informer's lister at
// once unless `informer_lags`. `conflicts` makes the next status updates
// fail with kConflict after `on_conflict` ran.
class FakeClaimClient final : public framework::ResourceClaimClient {
 public:
  explicit FakeClaimClient(framework::InMemoryLister<api::ResourceClaim>& informer) : informer_(informer) {}

  void Create(api::ResourceClaim claim) {
    std::lock_guard<std::mutex> l(mu);
    claim.metadata.resource_version = std::to_string(++rv);
    Store(claim);
  }
  api::ResourceClaim Stored(const std::string& name) {
    std::lock_guard<std::mutex> l(mu);
    return objects.at(name);
  }

  util::StatusOr<api::ResourceClaim> GetResourceClaim(const std::string&, const std::string& name) override {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back("get");
    auto it = objects.find(name);
    if (it == objects.end()) return util::NotFound("resourceclaims \"" + name + "\" not found");
    return it->second;
  }
  util::StatusOr<api::ResourceClaim> UpdateResourceClaim(const api::ResourceClaim& claim) override {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back("update");
    auto current = Current(claim);
    if (!current.ok()) return current.status();
    api::ResourceClaim next = claim;
    next.status = current->status;
    next.metadata.resource_version = std::to_string(++rv);
    Store(next);
    return next;
  }
  util::StatusOr<api::ResourceClaim> UpdateResourceClaimStatus(const api::ResourceClaim& claim) override {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back("update-status");
    if (conflicts > 0) {
      --conflicts;
      if (on_conflict) on_conflict(objects.at(claim.metadata.name));
      return util::Status(util::StatusCode::kConflict, "the object has been modified");
    }
    auto current = Current(claim);
    if (!current.ok()) return current.status();
    api::ResourceClaim next = *current;
    next.status = claim.status;
    next.metadata.resource_version = std::to_string(++rv);
    Store(next);
    return next;
  }
  util::StatusOr<api::ResourceClaim> RemoveResourceClaimReservation(const std::string&, const std::string& name,
                                                                   const std::string& claim_uid,
                                                                   const std::string& pod_uid) override {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back("patch-status");
    api::ResourceClaim next = objects.at(name);
    EXPECT_EQ(next.metadata.uid, claim_uid);
    std::erase_if(next.status.reserved_for, [&](const auto& r) { return r.uid == pod_uid; });
    next.metadata.resource_version = std::to_string(++rv);
    Store(next);
    return next;
  }

  util::StatusOr<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) override {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back("create");
    if (fail_creates) return util::Status(util::StatusCode::kUnavailable, "injected");
    api::ResourceClaim next = claim;
    EXPECT_TRUE(next.metadata.name.empty());
    EXPECT_TRUE(next.metadata.uid.empty());
    next.metadata.name = claim.metadata.generate_name + "x" + std::to_string(++created);
    next.metadata.uid = "created-uid-" + std::to_string(created);
    next.metadata.resource_version = std::to_string(++rv);
    Store(next);
    return next;
  }
  util::Status DeleteResourceClaim(const std::string& ns, const std::string& name) override {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back("delete");
    if (objects.erase(name) == 0) return util::NotFound("resourceclaims \"" + name + "\" not found");
    informer_.Delete(ns, name);
    return util::Status();
  }
  util::Status PatchPodExtendedResourceClaimStatus(const std::string& ns, const std::string& name,
                                                   const api::PodExtendedResourceClaimStatus& status) override {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back("patch-pod-status");
    pod_patches.push_back({ns + "/" + name, framework::ExtendedResourceClaimStatusPatch(status)});
    return util::Status();
  }

  std::mutex mu;
  bool fail_creates = false;
  int created = 0;
  std::vector<std::pair<std::string, nlohmann::json>> pod_patches;
  uint64_t rv = 10;
  bool informer_lags = false;
  int conflicts = 0;
  std::function<void(api::ResourceClaim&)> on_conflict;
  std::vector<std::string> calls;
  std::map<std::string, api::ResourceClaim> objects;

 private:
  util::StatusOr<api::ResourceClaim> Current(const api::ResourceClaim& claim) {
    auto it = objects.find(claim.metadata.name);
    if (it == objects.end()) return util::NotFound("resourceclaims \"" + claim.metadata.name + "\" not found");
    if (claim.metadata.resource_version != it->second.metadata.resource_version) {
      return util::Status(util::StatusCode::kConflict, "the object has been modified");
    }
    return it->second;
  }
  void Store(const api::ResourceClaim& claim) {
    objects[claim.metadata.name] = claim;
    if (!informer_lags) informer_.Set(std::make_shared<api::ResourceClaim>(claim));
  }

  framework::InMemoryLister<api::ResourceClaim>& informer_;
};

api::Pod Pod(const std::string& name = "my-pod", const std::string& uid = kPodUid) {
  api::Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = kNs;
  p.metadata.uid = uid;
  return p;
}

api::Pod PodWithClaimName(const std::string& claim = kClaimName) {
  api::Pod p = Pod();
  p.spec.resource_claims.push_back({"my-resource", claim, std::nullopt});
  return p;
}

api::Pod PodWithClaimTemplate() {
  api::Pod p = Pod();
  p.spec.resource_claims.push_back({"my-resource", std::nullopt, "my-template"});
  return p;
}

api::Pod PodWithClaimTemplateInStatus() {
  api::Pod p = PodWithClaimTemplate();
  p.status.resource_claim_statuses.push_back({"my-resource", std::string(kClaimName)});
  return p;
}

api::ResourceClaim Claim(const std::string& name = kClaimName, const std::string& uid = "claim-uid") {
  api::ResourceClaim c;
  c.metadata.name = name;
  c.metadata.namespace_ = kNs;
  c.metadata.uid = uid;
  c.metadata.resource_version = "1";
  api::DeviceRequest r;
  r.name = "req-1";
  r.exactly = api::ExactDeviceRequest{kClassName, {}, api::kDeviceAllocationModeExactCount, 1, std::nullopt};
  c.spec.devices.requests.push_back(r);
  return c;
}

// Controlled by the pod, as the resource-claim controller creates it.
api::ResourceClaim ClaimOwnedByPod() {
  api::ResourceClaim c = Claim();
  api::OwnerReference ref;
  ref.api_version = "v1";
  ref.kind = "Pod";
  ref.name = "my-pod";
  ref.uid = kPodUid;
  ref.controller = true;
  c.metadata.owner_references.push_back(ref);
  return c;
}

api::NodeSelector NodeNameSelector(const std::string& node) {
  api::NodeSelectorTerm t;
  t.match_fields.push_back({"metadata.name", "In", {node}});
  return api::NodeSelector{{t}};
}

api::ResourceClaim AllocatedClaim(const std::string& node = "worker") {
  api::ResourceClaim c = Claim();
  c.metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
  api::AllocationResult a;
  a.devices.results.push_back({"req-1", kDriver, "worker", "instance-1", std::nullopt});
  a.node_selector = NodeNameSelector(node);
  c.status.allocation = a;
  return c;
}

api::ResourceSlice Slice(const std::string& node = "worker", int devices = 1) {
  api::ResourceSlice s;
  s.metadata.name = node + "-" + kDriver;
  s.spec.driver = kDriver;
  s.spec.pool = api::ResourcePool{node, 1, 1};
  s.spec.node_name = node;
  for (int i = 1; i <= devices; ++i) s.spec.devices.push_back(api::Device{"instance-" + std::to_string(i), {}, {}});
  return s;
}

api::DeviceClass Class(const std::string& name = kClassName) {
  api::DeviceClass c;
  c.metadata.name = name;
  return c;
}

std::shared_ptr<api::Node> Node(const std::string& name) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = name;
  n->metadata.labels["kubernetes.io/hostname"] = name;
  return n;
}

// Where RunsThrough stops: after Reserve (the scheduling cycle) or after
// PreBind (the binding cycle's write of the claims).
enum class Stage { kReserve, kPreBind };

// Runs `plugin`'s PreFilter, Filter on `node`, Reserve and, for kPreBind,
// PreBind for `pod`, in the order the scheduler calls them. Fails at the
// first call that does not succeed, naming it and its status.
::testing::AssertionResult RunsThrough(Stage last, DynamicResources& plugin, framework::CycleState& state,
                                       const api::Pod& pod, const framework::NodeInfo& node) {
  const std::string& name = node.node()->metadata.name;
  auto failed = [](const char* stage, const Status& s) {
    return ::testing::AssertionFailure() << stage << ": " << s.ToString();
  };
  if (Status s = plugin.PreFilter(state, pod, {}).second; !s.IsSuccess()) return failed("PreFilter", s);
  if (Status s = plugin.Filter(state, pod, node); !s.IsSuccess()) return failed("Filter", s);
  if (Status s = plugin.Reserve(state, pod, name); !s.IsSuccess()) return failed("Reserve", s);
  if (last == Stage::kReserve) return ::testing::AssertionSuccess();
  if (Status s = plugin.PreBind(state, pod, name); !s.IsSuccess()) return failed("PreBind", s);
  return ::testing::AssertionSuccess();
}

class DynamicResourcesTest : public ::testing::Test {
 protected:
  DynamicResourcesTest()
      : client_(listers_.resource_claims),
        tracker_(std::make_shared<dra::ClaimTracker>(listers_.resource_claims)),
        plugin_(listers_, tracker_, &client_, framework::FeatureGates()),
        worker_(Node("worker")),
        other_(Node("worker-2")) {}

  void AddClaim(const api::ResourceClaim& c) { client_.Create(c); }
  void AddClass() { listers_.device_classes.Set(std::make_shared<api::DeviceClass>(Class())); }
  void AddSlice(const api::ResourceSlice& s) { listers_.resource_slices.Set(std::make_shared<api::ResourceSlice>(s)); }
  // The class and `devices` devices on "worker": what a claim needs to be
  // allocated there.
  void AddClassAndWorkerDevices(int devices = 1) {
    AddClass();
    AddSlice(Slice("worker", devices));
  }

  framework::InMemorySharedListers listers_;
  FakeClaimClient client_;
  std::shared_ptr<dra::ClaimTracker> tracker_;
  DynamicResources plugin_;
  framework::NodeInfo worker_;
  framework::NodeInfo other_;
};

// ---------------------------------------------------------------- PreEnqueue

TEST_F(DynamicResourcesTest, PreEnqueueWaitsForEveryClaim) {
  EXPECT_TRUE(plugin_.PreEnqueue(Pod()).IsSuccess());

  Status s = plugin_.PreEnqueue(PodWithClaimTemplate());
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "pod \"default/my-pod\": ResourceClaim not created yet");

  s = plugin_.PreEnqueue(PodWithClaimName());
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "could not find ResourceClaim \"default/my-pod-my-resource\"");

  api::Pod neither = Pod();
  neither.spec.resource_claims.push_back({"my-resource", std::nullopt, std::nullopt});
  EXPECT_EQ(plugin_.PreEnqueue(neither).Message(),
            "pod \"default/my-pod\", spec.resourceClaim \"my-resource\": none of the supported fields are set");

  // A generated claim recorded as not needed is skipped.
  api::Pod not_needed = PodWithClaimTemplate();
  not_needed.status.resource_claim_statuses.push_back({"my-resource", std::nullopt});
  EXPECT_TRUE(plugin_.PreEnqueue(not_needed).IsSuccess());

  AddClaim(ClaimOwnedByPod());
  EXPECT_TRUE(plugin_.PreEnqueue(PodWithClaimName()).IsSuccess());
  EXPECT_TRUE(plugin_.PreEnqueue(PodWithClaimTemplateInStatus()).IsSuccess());
}

TEST_F(DynamicResourcesTest, PreEnqueueRejectsDeletedAndForeignClaims) {
  api::ResourceClaim deleted = ClaimOwnedByPod();
  deleted.metadata.deletion_timestamp = api::Time{};
  AddClaim(deleted);
  Status s = plugin_.PreEnqueue(PodWithClaimTemplateInStatus());
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "resourceclaim \"my-pod-my-resource\" is being deleted");

  // A template's claim must be controlled by the pod; a named one need not.
  AddClaim(Claim());
  s = plugin_.PreEnqueue(PodWithClaimTemplateInStatus());
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(),
            "ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod (pod is not owner)");
  EXPECT_TRUE(plugin_.PreEnqueue(PodWithClaimName()).IsSuccess());
}

// ---------------------------------------------------------------- PreFilter

TEST_F(DynamicResourcesTest, PreFilterSkipsPodsWithoutClaims) {
  framework::CycleState state;
  auto [result, s] = plugin_.PreFilter(state, Pod(), {});
  EXPECT_EQ(s.code(), Code::kSkip);
  // Nor has PreBind anything to do.
  EXPECT_EQ(plugin_.PreBindPreFlight(state, Pod(), "worker").code(), Code::kSkip);
  // PostFilter has nothing to free.
  auto [pf, ps] = plugin_.PostFilter(state, Pod(), framework::NodeToStatus());
  EXPECT_EQ(ps.code(), Code::kUnschedulable);
  EXPECT_EQ(ps.Message(), "no new claims to deallocate");
}

// kube 1.37's PostFilter says nothing when there is nothing to free.
TEST_F(DynamicResourcesTest, PostFilterWithNothingToFreeIsQuietFromKube137) {
  DynamicResources v137(listers_, tracker_, &client_, framework::FeatureGates::ForMinor(37));
  framework::CycleState state;
  EXPECT_EQ(v137.PreFilter(state, Pod(), {}).second.code(), Code::kSkip);
  auto [pf, ps] = v137.PostFilter(state, Pod(), framework::NodeToStatus());
  EXPECT_EQ(ps.code(), Code::kUnschedulable);
  EXPECT_TRUE(ps.reasons().empty());
}

TEST_F(DynamicResourcesTest, PreFilterNeedsTheClasses) {
  AddClaim(Claim());
  framework::CycleState state;
  Status s = plugin_.PreFilter(state, PodWithClaimName(), {}).second;
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "request req-1: device class my-resource-class does not exist");
  // kube's "missing-class": PostFilter has nothing to deallocate.
  EXPECT_EQ(plugin_.PostFilter(state, PodWithClaimName(), framework::NodeToStatus()).second.Message(),
            "no new claims to deallocate");

  api::ResourceClaim prioritized = Claim();
  api::DeviceRequest r;
  r.name = "req-1";
  r.first_available.push_back({"subreq-1", "does-not-exist", {}, api::kDeviceAllocationModeExactCount, 1});
  prioritized.spec.devices.requests = {r};
  AddClaim(prioritized);
  AddClass();
  s = plugin_.PreFilter(state, PodWithClaimName(), {}).second;
  EXPECT_EQ(s.Message(), "request req-1/subreq-1: device class does-not-exist does not exist");

  api::ResourceClaim unknown = Claim();
  unknown.spec.devices.requests = {api::DeviceRequest{"req-1", std::nullopt, {}}};
  AddClaim(unknown);
  s = plugin_.PreFilter(state, PodWithClaimName(), {}).second;
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "resource claim default/my-pod-my-resource, request req-1: unknown request type");

  api::ResourceClaim no_class = Claim();
  no_class.spec.devices.requests[0].exactly->device_class_name = "";
  AddClaim(no_class);
  s = plugin_.PreFilter(state, PodWithClaimName(), {}).second;
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "request req-1: unsupported request type");
}

// ---------------------------------------------------------------- Filter .. PreBind

TEST_F(DynamicResourcesTest, NoDevicesCannotAllocate) {
  AddClaim(Claim());
  AddClass();
  framework::CycleState state;
  const api::Pod pod = PodWithClaimName();
  ASSERT_TRUE(plugin_.PreFilter(state, pod, {}).second.IsSuccess());
  Status s = plugin_.Filter(state, pod, worker_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot allocate all claims");
  auto [pf, ps] = plugin_.PostFilter(state, pod, framework::NodeToStatus());
  EXPECT_EQ(ps.code(), Code::kUnschedulable);
  EXPECT_EQ(ps.Message(), "still not schedulable");
  EXPECT_TRUE(client_.calls.empty());
}

// simulate --explain's tally: per request, the node's devices by why each
// cannot serve the pod.
TEST_F(DynamicResourcesTest, TallyDevicesSaysWhyTheNodeCannotServeTheClaims) {
  AddClaim(Claim());
  AddClass();
  api::ResourceSlice slice = Slice("worker", 2);
  slice.spec.devices[0].taints.push_back(api::DeviceTaint{"broken", "", "NoSchedule", std::nullopt});
  AddSlice(slice);
  DynamicResources plugin(listers_, tracker_, &client_, framework::FeatureGates::ForMinor(37));
  const api::Pod pod = PodWithClaimName();
  auto tallies = plugin.TallyDevices(pod, worker_);
  ASSERT_TRUE(tallies.ok()) << tallies.status().ToString();
  ASSERT_EQ(tallies->size(), 1u);
  const dra::RequestDeviceTally& t = (*tallies)[0];
  EXPECT_EQ(t.claim, "default/my-pod-my-resource");
  EXPECT_EQ(t.request, "req-1");
  EXPECT_EQ(t.reachable, 2);
  EXPECT_EQ(t.usable, 1);
  EXPECT_EQ(t.skipped, (std::map<std::string, int>{{"a taint the request does not tolerate", 1}}));
  // The slice is local to "worker": nothing reaches the other node.
  tallies = plugin.TallyDevices(pod, other_);
  ASSERT_TRUE(tallies.ok());
  ASSERT_EQ(tallies->size(), 1u);
  EXPECT_EQ((*tallies)[0].reachable, 0);

  // Nothing to allocate: no claims, or the claim is allocated already.
  EXPECT_TRUE(plugin.TallyDevices(Pod(), worker_)->empty());
  AddClaim(AllocatedClaim());
  EXPECT_TRUE(plugin.TallyDevices(pod, worker_)->empty());
  // A missing claim stops PreFilter: its message.
  auto missing = plugin.TallyDevices(PodWithClaimName("no-such-claim"), worker_);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), util::StatusCode::kUnavailable);
  EXPECT_NE(missing.status().message().find("no-such-claim"), std::string::npos);
}

// A DeviceTaintRule taints the devices it selects as if their slice did
// (kube 1.37, DRADeviceTaintRules); at 1.36 rules are not read, and at 1.35
// taints are not looked at either.
TEST_F(DynamicResourcesTest, DeviceTaintRulesTaintTheDevicesTheySelect) {
  AddClaim(Claim());
  AddClassAndWorkerDevices();
  auto rule = std::make_shared<api::DeviceTaintRule>();
  rule->metadata.name = "maintenance";
  rule->spec.device_selector = api::DeviceTaintSelector{.driver = kDriver, .pool = "worker"};
  rule->spec.taint = api::DeviceTaint{"maintenance", "", "NoSchedule", std::nullopt};
  listers_.device_taint_rules.Set(rule);
  const api::Pod pod = PodWithClaimName();
  auto filter = [&](int minor) {
    DynamicResources plugin(listers_, tracker_, &client_, framework::FeatureGates::ForMinor(minor));
    framework::CycleState state;
    EXPECT_TRUE(plugin.PreFilter(state, pod, {}).second.IsSuccess());
    return plugin.Filter(state, pod, worker_);
  };
  EXPECT_EQ(filter(37).Message(), "cannot allocate all claims");
  EXPECT_TRUE(filter(36).IsSuccess());

  // The same taint in the slice itself counts from 1.36.
  listers_.device_taint_rules.Delete("", "maintenance");
  api::ResourceSlice tainted = Slice("worker", 1);
  tainted.spec.devices[0].taints.push_back(rule->spec.taint);
  AddSlice(tainted);
  EXPECT_EQ(filter(36).Message(), "cannot allocate all claims");
  EXPECT_TRUE(filter(35).IsSuccess());
}

// kube's "with-resources": allocated on the node with the device, the
// allocation written with the finalizer and the reservation.
TEST_F(DynamicResourcesTest, AllocatesReservesAndBinds) {
  AddClaim(Claim());
  AddClassAndWorkerDevices();
  framework::CycleState state;
  const api::Pod pod = PodWithClaimName();
  ASSERT_TRUE(plugin_.PreFilter(state, pod, {}).second.IsSuccess());
  EXPECT_TRUE(plugin_.Filter(state, pod, worker_).IsSuccess());
  Status other = plugin_.Filter(state, pod, other_);
  EXPECT_EQ(other.Message(), "cannot allocate all claims");

  ASSERT_TRUE(plugin_.Reserve(state, pod, "worker").IsSuccess());
  EXPECT_TRUE(tracker_->ClaimHasPendingAllocation("claim-uid"));
  EXPECT_EQ(tracker_->ListAllAllocatedDevices(), (std::set<dra::DeviceId>{{kDriver, "worker", "instance-1"}}));
  // The binding keeps the state; what only the scheduling cycle read is gone.
  const StateData* data = state.Lookup<StateData>(framework::StateKey(kStateKey));
  ASSERT_NE(data, nullptr);
  EXPECT_FALSE(data->allocator.has_value());
  EXPECT_TRUE(data->node_allocations.empty());
  // Nothing is written before PreBind, which has work.
  EXPECT_TRUE(client_.calls.empty());
  EXPECT_TRUE(plugin_.PreBindPreFlight(state, pod, "worker").IsSuccess());

  ASSERT_TRUE(plugin_.PreBind(state, pod, "worker").IsSuccess());
  EXPECT_EQ(client_.calls, (std::vector<std::string>{"update", "update-status"}));
  api::ResourceClaim stored = client_.Stored(kClaimName);
  EXPECT_EQ(stored.metadata.finalizers, std::vector<std::string>{"resource.kubernetes.io/delete-protection"});
  ASSERT_TRUE(stored.status.allocation);
  ASSERT_EQ(stored.status.allocation->devices.results.size(), 1u);
  const api::DeviceRequestAllocationResult& r = stored.status.allocation->devices.results[0];
  EXPECT_EQ(r.request, "req-1");
  EXPECT_EQ(r.driver, kDriver);
  EXPECT_EQ(r.pool, "worker");
  EXPECT_EQ(r.device, "instance-1");
  ASSERT_TRUE(stored.status.allocation->node_selector);
  EXPECT_TRUE(api::CompiledNodeSelector(*stored.status.allocation->node_selector).Match(*worker_.node()));
  EXPECT_FALSE(api::CompiledNodeSelector(*stored.status.allocation->node_selector).Match(*other_.node()));
  ASSERT_EQ(stored.status.reserved_for.size(), 1u);
  EXPECT_EQ(stored.status.reserved_for[0].resource, "pods");
  EXPECT_EQ(stored.status.reserved_for[0].name, "my-pod");
  EXPECT_EQ(stored.status.reserved_for[0].uid, kPodUid);
  EXPECT_FALSE(tracker_->ClaimHasPendingAllocation("claim-uid"));
}

// A claim that already has the finalizer gets just the status update.
TEST_F(DynamicResourcesTest, FinalizerAlreadyPresentIsNotWrittenAgain) {
  api::ResourceClaim c = Claim();
  c.metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
  AddClaim(c);
  AddClassAndWorkerDevices();
  framework::CycleState state;
  const api::Pod pod = PodWithClaimName();
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, plugin_, state, pod, worker_));
  EXPECT_EQ(client_.calls, (std::vector<std::string>{"update-status"}));
}

// In-flight allocations take their devices: a second pod cannot have the
// device Reserve gave the first, nor share its claim before PreBind wrote it.
TEST_F(DynamicResourcesTest, InFlightAllocationsAreTaken) {
  AddClaim(Claim());
  AddClaim(Claim("other-claim", "other-uid"));
  AddClassAndWorkerDevices();
  framework::CycleState first;
  const api::Pod pod = PodWithClaimName();
  ASSERT_TRUE(RunsThrough(Stage::kReserve, plugin_, first, pod, worker_));

  api::Pod second = Pod("second", "5678");
  second.spec.resource_claims.push_back({"my-resource", std::string("other-claim"), std::nullopt});
  framework::CycleState state;
  ASSERT_TRUE(plugin_.PreFilter(state, second, {}).second.IsSuccess());
  EXPECT_EQ(plugin_.Filter(state, second, worker_).Message(), "cannot allocate all claims");

  api::Pod sharing = Pod("sharing", "9999");
  sharing.spec.resource_claims.push_back({"my-resource", std::string(kClaimName), std::nullopt});
  framework::CycleState shared;
  Status s = plugin_.PreFilter(shared, sharing, {}).second;
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "resource claim default/my-pod-my-resource is in the process of being allocated");

  // Unreserve gives the device back.
  plugin_.Unreserve(first, pod, "worker");
  EXPECT_FALSE(tracker_->ClaimHasPendingAllocation("claim-uid"));
  framework::CycleState again;
  ASSERT_TRUE(plugin_.PreFilter(again, second, {}).second.IsSuccess());
  EXPECT_TRUE(plugin_.Filter(again, second, worker_).IsSuccess());
}

// The written claim is assumed until the informer shows it, so its device
// stays taken when the watch is behind.
TEST_F(DynamicResourcesTest, WrittenAllocationIsAssumedUntilTheInformerCatchesUp) {
  AddClaim(Claim());
  AddClaim(Claim("other-claim", "other-uid"));
  AddClassAndWorkerDevices();
  client_.informer_lags = true;
  framework::CycleState first;
  const api::Pod pod = PodWithClaimName();
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, plugin_, first, pod, worker_));
  EXPECT_FALSE(listers_.resource_claims.Get(kNs, kClaimName)->status.allocation);
  ASSERT_TRUE(tracker_->Get(kNs, kClaimName).ok());
  EXPECT_TRUE((*tracker_->Get(kNs, kClaimName))->status.allocation);

  api::Pod second = Pod("second", "5678");
  second.spec.resource_claims.push_back({"my-resource", std::string("other-claim"), std::nullopt});
  framework::CycleState state;
  ASSERT_TRUE(plugin_.PreFilter(state, second, {}).second.IsSuccess());
  EXPECT_EQ(plugin_.Filter(state, second, worker_).Message(), "cannot allocate all claims");
}

// A conflict re-reads the claim and tries again; an allocation someone
// else wrote meanwhile ends the binding with an error.
TEST_F(DynamicResourcesTest, PreBindRetriesConflictsAndDetectsForeignAllocations) {
  AddClaim(Claim());
  AddClassAndWorkerDevices();
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kReserve, plugin_, state, pod, worker_));
  client_.conflicts = 1;
  ASSERT_TRUE(plugin_.PreBind(state, pod, "worker").IsSuccess());
  EXPECT_EQ(client_.calls, (std::vector<std::string>{"update", "update-status", "get", "update-status"}));
  EXPECT_TRUE(client_.Stored(kClaimName).status.allocation);

  AddClaim(Claim("c2", "uid-2"));
  api::Pod p2 = Pod("p2", "p2-uid");
  p2.spec.resource_claims.push_back({"r", std::string("c2"), std::nullopt});
  AddSlice(Slice("worker-2"));
  framework::CycleState s2;
  ASSERT_TRUE(RunsThrough(Stage::kReserve, plugin_, s2, p2, other_));
  client_.conflicts = 1;
  client_.on_conflict = [](api::ResourceClaim& c) { c.status.allocation = AllocatedClaim().status.allocation; };
  Status s = plugin_.PreBind(s2, p2, "worker-2");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "claim default/c2 got allocated elsewhere in the meantime");
  // The failed allocation is no longer in flight.
  EXPECT_FALSE(tracker_->ClaimHasPendingAllocation("uid-2"));
}

TEST_F(DynamicResourcesTest, PreBindWithoutClientFails) {
  DynamicResources no_client(listers_, tracker_, nullptr, framework::FeatureGates());
  AddClaim(Claim());
  AddClassAndWorkerDevices();
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kReserve, no_client, state, pod, worker_));
  Status s = no_client.PreBind(state, pod, "worker");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "no API client for ResourceClaims");
  EXPECT_FALSE(tracker_->ClaimHasPendingAllocation("claim-uid"));
}

// kube's "bind-failure": after PreBind wrote the reservation, Unreserve
// takes the pod out of reservedFor again.
TEST_F(DynamicResourcesTest, UnreserveAfterBindFailureRemovesTheReservation) {
  AddClaim(AllocatedClaim());
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, plugin_, state, pod, worker_));
  // Allocated already: only the reservation is added.
  EXPECT_EQ(client_.calls, (std::vector<std::string>{"update-status"}));
  EXPECT_EQ(client_.Stored(kClaimName).status.reserved_for.size(), 1u);

  plugin_.Unreserve(state, pod, "worker");
  EXPECT_EQ(client_.calls.back(), "patch-status");
  EXPECT_TRUE(client_.Stored(kClaimName).status.reserved_for.empty());
  EXPECT_TRUE(client_.Stored(kClaimName).status.allocation);
}

// kube's "wrong-topology": the claim is allocated for another node and
// reserved for nobody; PostFilter deallocates it.
TEST_F(DynamicResourcesTest, WrongTopologyIsDeallocatedByPostFilter) {
  AddClaim(AllocatedClaim("worker-2"));
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(plugin_.PreFilter(state, pod, {}).second.IsSuccess());
  Status s = plugin_.Filter(state, pod, worker_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "resourceclaim not available on the node");
  EXPECT_TRUE(plugin_.Filter(state, pod, other_).IsSuccess());

  auto [pf, ps] = plugin_.PostFilter(state, pod, framework::NodeToStatus());
  EXPECT_EQ(ps.code(), Code::kUnschedulable);
  EXPECT_EQ(ps.Message(), "deallocation of ResourceClaim completed");
  EXPECT_EQ(client_.calls, (std::vector<std::string>{"update-status"}));
  EXPECT_FALSE(client_.Stored(kClaimName).status.allocation);
}

// A claim another pod uses stays allocated.
TEST_F(DynamicResourcesTest, PostFilterKeepsClaimsReservedForOthers) {
  api::ResourceClaim c = AllocatedClaim("worker-2");
  c.status.reserved_for.push_back({"", "pods", "other", "other-uid"});
  AddClaim(c);
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(plugin_.PreFilter(state, pod, {}).second.IsSuccess());
  EXPECT_EQ(plugin_.Filter(state, pod, worker_).Message(), "resourceclaim not available on the node");
  auto [pf, ps] = plugin_.PostFilter(state, pod, framework::NodeToStatus());
  EXPECT_EQ(ps.Message(), "still not schedulable");
  EXPECT_TRUE(client_.calls.empty());
}

// A selector that fails at run time is an error for the whole attempt.
TEST_F(DynamicResourcesTest, BrokenSelectorIsAnError) {
  api::ResourceClaim c = Claim();
  c.spec.devices.requests[0].exactly->selectors.push_back(
      api::DeviceSelector{api::CELDeviceSelector{"device.attributes[\"" + std::string(kDriver) + "\"].healthy"}});
  AddClaim(c);
  AddClassAndWorkerDevices();
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(plugin_.PreFilter(state, pod, {}).second.IsSuccess());
  Status s = plugin_.Filter(state, pod, worker_);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_NE(s.Message().find("claim default/my-pod-my-resource: selector #0"), std::string::npos) << s.Message();
}

TEST_F(DynamicResourcesTest, AllocationModeAllTakesEveryDevice) {
  api::ResourceClaim c = Claim();
  c.spec.devices.requests[0].exactly->allocation_mode = api::kDeviceAllocationModeAll;
  c.spec.devices.requests[0].exactly->count = 0;
  AddClaim(c);
  AddClassAndWorkerDevices(3);
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, plugin_, state, pod, worker_));
  EXPECT_EQ(client_.Stored(kClaimName).status.allocation->devices.results.size(), 3u);
}

// An allocator error is the Filter's Error, with the allocator's text (kube
// then ends the pod's cycle with it): All over a pool being updated.
TEST_F(DynamicResourcesTest, AllOverAnIncompletePoolIsAnError) {
  api::ResourceClaim c = Claim();
  c.spec.devices.requests[0].exactly->allocation_mode = api::kDeviceAllocationModeAll;
  c.spec.devices.requests[0].exactly->count = 0;
  AddClaim(c);
  AddClass();
  api::ResourceSlice half = Slice("worker", 2);
  half.spec.pool.resource_slice_count = 2;  // the other slice is not there
  AddSlice(half);
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(plugin_.PreFilter(state, pod, {}).second.IsSuccess());
  Status s = plugin_.Filter(state, pod, worker_);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "claim default/my-pod-my-resource, request req-1: asks for all devices, but resource pool " +
                             std::string(kDriver) + "/worker is currently being updated");
}

// Claim() whose request asks for the first of `subrequests` available.
api::ResourceClaim ClaimWithSubrequests(std::vector<api::DeviceSubRequest> subrequests) {
  api::ResourceClaim c = Claim();
  api::DeviceRequest& r = c.spec.devices.requests[0];
  r.exactly.reset();
  r.first_available = std::move(subrequests);
  return c;
}

// kube v1.34 searches the rest of an All subrequest as the first
// subrequest: three devices for sub-0 never fit on two, so nothing does.
TEST_F(DynamicResourcesTest, AllSubrequestFollowsTheFirstSubrequestsCount) {
  AddClaim(ClaimWithSubrequests(
      {api::DeviceSubRequest{"sub-0", kClassName, {}, api::kDeviceAllocationModeExactCount, 3},
       api::DeviceSubRequest{"sub-1", kClassName, {}, api::kDeviceAllocationModeAll, 0}}));
  AddClass();
  AddSlice(Slice("worker", 2));
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(plugin_.PreFilter(state, pod, {}).second.IsSuccess());
  Status s = plugin_.Filter(state, pod, worker_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot allocate all claims");
}

// kube 1.35's Score: 8 minus the index of the firstAvailable subrequest the
// node's allocation chose. ScoreNodes, the framework's way, gives the same
// scores in one run; a pod without claims scores 0 everywhere.
TEST_F(DynamicResourcesTest, ScoreRanksTheChosenSubrequest) {
  AddClaim(ClaimWithSubrequests(
      {api::DeviceSubRequest{"sub-0", kClassName, {}, api::kDeviceAllocationModeExactCount, 2},
       api::DeviceSubRequest{"sub-1", kClassName, {}, api::kDeviceAllocationModeExactCount, 1}}));
  AddClass();
  AddSlice(Slice("worker", 2));
  AddSlice(Slice("worker-2", 1));
  ScoringDynamicResources plugin(listers_, tracker_, &client_, framework::FeatureGates());
  const api::Pod pod = PodWithClaimName();
  const framework::NodeInfoList nodes = {&worker_, &other_};
  framework::CycleState state;
  ASSERT_TRUE(plugin.PreFilter(state, pod, {}).second.IsSuccess());
  ASSERT_TRUE(plugin.Filter(state, pod, worker_).IsSuccess());
  ASSERT_TRUE(plugin.Filter(state, pod, other_).IsSuccess());
  EXPECT_EQ(plugin.Score(state, pod, worker_).first, 8);
  EXPECT_EQ(plugin.Score(state, pod, other_).first, 7);
  EXPECT_EQ(plugins::testing::ScoreNodesOf(plugin, state, pod, nodes), (std::vector<int64_t>{8, 7}));

  framework::CycleState without_claims;
  EXPECT_EQ(plugin.PreFilter(without_claims, Pod(), {}).second.code(), Code::kSkip);
  EXPECT_EQ(plugin.Score(without_claims, Pod(), worker_).first, 0);
  EXPECT_EQ(plugins::testing::ScoreNodesOf(plugin, without_claims, Pod(), nodes), (std::vector<int64_t>{0, 0}));
}

// Advances by `step` on every reading, so any search outlives a timeout
// shorter than one step.
class TickingClock final : public util::Clock {
 public:
  explicit TickingClock(util::Duration step) : step_(step) {}
  util::TimePoint Now() const override {
    std::lock_guard<std::mutex> l(mu_);
    now_ += step_;
    return now_;
  }
  util::WallTime WallNow() const override { return util::WallTime{}; }
  bool WaitUntil(std::unique_lock<std::mutex>&, std::condition_variable&, util::TimePoint) const override {
    return true;
  }

 private:
  const util::Duration step_;
  mutable std::mutex mu_;
  mutable util::TimePoint now_{};
};

// kube's "timeout": the search gives up on the node after filterTimeout.
TEST_F(DynamicResourcesTest, FilterTimeoutGivesUpOnTheNode) {
  AddClaim(Claim());
  AddClassAndWorkerDevices();
  const api::Pod pod = PodWithClaimName();
  TickingClock clock(std::chrono::seconds(1));
  DynamicResources slow(listers_, tracker_, &client_, framework::FeatureGates(), clock,
                        std::chrono::milliseconds(500));
  framework::CycleState state;
  ASSERT_TRUE(slow.PreFilter(state, pod, {}).second.IsSuccess());
  Status s = slow.Filter(state, pod, worker_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "timed out trying to allocate devices");
  // Zero turns the limit off.
  DynamicResources unlimited(listers_, tracker_, &client_, framework::FeatureGates(), clock, util::Duration::zero());
  framework::CycleState again;
  ASSERT_TRUE(unlimited.PreFilter(again, pod, {}).second.IsSuccess());
  EXPECT_TRUE(unlimited.Filter(again, pod, worker_).IsSuccess());
}

TEST_F(DynamicResourcesTest, ReserveWithoutFilterResultIsAnError) {
  AddClaim(Claim());
  AddClassAndWorkerDevices();
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(plugin_.PreFilter(state, pod, {}).second.IsSuccess());
  Status s = plugin_.Reserve(state, pod, "worker");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "claim allocation not found for node");
}

// The scheduler's NodeInfo snapshot, over NodeInfos the test owns.
class PointerSnapshot final : public framework::SharedLister,
                              public framework::NodeInfoLister,
                              public framework::StorageInfoLister {
 public:
  explicit PointerSnapshot(framework::NodeInfoList nodes) : nodes_(std::move(nodes)) {}
  const framework::NodeInfoLister& NodeInfos() const override { return *this; }
  const framework::StorageInfoLister& StorageInfos() const override { return *this; }
  const framework::NodeInfoList& List() const override { return nodes_; }
  const framework::NodeInfoList& HavePodsWithAffinityList() const override { return empty_; }
  const framework::NodeInfoList& HavePodsWithRequiredAntiAffinityList() const override { return empty_; }
  util::StatusOr<const framework::NodeInfo*> Get(std::string_view name) const override {
    for (const framework::NodeInfo* n : nodes_) {
      if (n->node_name() == name) return n;
    }
    return util::NotFound("nodeinfo not found for node name \"" + std::string(name) + "\"");
  }
  bool IsPVCUsedByPods(std::string_view) const override { return false; }

 private:
  framework::NodeInfoList nodes_, empty_;
};

// With the snapshot, Filter keeps no allocation for a pod without
// firstAvailable requests, and Reserve finds the chosen node's again.
TEST_F(DynamicResourcesTest, WithTheSnapshotReserveSearchesTheChosenNodeAgain) {
  AddClaim(Claim());
  AddClass();
  AddSlice(Slice("worker", 2));
  AddSlice(Slice("worker-2", 2));
  PointerSnapshot snapshot({&worker_, &other_});
  plugin_.UseSnapshot(&snapshot);
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(plugin_.PreFilter(state, pod, {}).second.IsSuccess());
  EXPECT_TRUE(plugin_.Filter(state, pod, worker_).IsSuccess());
  EXPECT_TRUE(plugin_.Filter(state, pod, other_).IsSuccess());
  auto data = state.Read(kStateKey);
  ASSERT_TRUE(data.ok());
  EXPECT_TRUE(static_cast<StateData&>(**data).node_allocations.empty());
  ASSERT_TRUE(plugin_.Reserve(state, pod, "worker-2").IsSuccess());
  EXPECT_EQ(tracker_->ListAllAllocatedDevices(), (std::set<dra::DeviceId>{{kDriver, "worker-2", "instance-1"}}));
  ASSERT_TRUE(plugin_.PreBind(state, pod, "worker-2").IsSuccess());
  const api::ResourceClaim stored = client_.Stored(kClaimName);
  ASSERT_TRUE(stored.status.allocation);
  EXPECT_EQ(stored.status.allocation->devices.results[0].pool, "worker-2");
  // A node missing from the snapshot is an error.
  AddClaim(Claim("claim-2", "uid-2"));
  framework::CycleState gone;
  ASSERT_TRUE(plugin_.PreFilter(gone, PodWithClaimName("claim-2"), {}).second.IsSuccess());
  EXPECT_EQ(plugin_.Reserve(gone, PodWithClaimName("claim-2"), "worker-3").code(), Code::kError);
}

// ---------------------------------------------------------------- events and hints

TEST_F(DynamicResourcesTest, EventsAreKubes) {
  auto events = plugin_.EventsToRegister();
  ASSERT_TRUE(events.ok());
  namespace r = framework::resource;
  ASSERT_EQ(events->size(), 5u);
  EXPECT_EQ((*events)[0].event.resource, r::kNode);
  EXPECT_EQ((*events)[0].event.action_type,
            ActionType::kAdd | ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeAllocatable);
  EXPECT_EQ((*events)[1].event.resource, r::kResourceClaim);
  EXPECT_EQ((*events)[1].event.action_type, ActionType::kAdd | ActionType::kUpdate);
  EXPECT_TRUE((*events)[1].queueing_hint_fn);
  EXPECT_EQ((*events)[2].event.resource, r::kPod);
  EXPECT_EQ((*events)[2].event.action_type, ActionType::kUpdatePodGeneratedResourceClaim);
  EXPECT_TRUE((*events)[2].queueing_hint_fn);
  EXPECT_EQ((*events)[3].event.resource, r::kDeviceClass);
  EXPECT_EQ((*events)[4].event.resource, r::kResourceSlice);
  EXPECT_EQ((*events)[4].event.action_type, ActionType::kAdd | ActionType::kUpdate);

  framework::FeatureGates hints_off;
  hints_off.scheduler_queueing_hints = false;
  DynamicResources no_hints(listers_, tracker_, &client_, hints_off);
  EXPECT_EQ((*no_hints.EventsToRegister())[0].event.action_type,
            ActionType::kAdd | ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeAllocatable |
                ActionType::kUpdateNodeTaint);
}

std::shared_ptr<const api::ResourceClaim> Shared(api::ResourceClaim c) {
  return std::make_shared<const api::ResourceClaim>(std::move(c));
}

// kube's isSchedulableAfterClaimChange cases.
TEST_F(DynamicResourcesTest, ClaimChangeHints) {
  const api::Pod pod = PodWithClaimName();
  auto hint = [&](EventObject o, EventObject n) {
    util::StatusOr<QueueingHint> h = plugin_.IsSchedulableAfterClaimChange(pod, o, n);
    EXPECT_TRUE(h.ok()) << h.status().ToString();
    return h.ok() ? *h : QueueingHint::kQueue;
  };
  // The pod's claim does not exist yet: nothing helps ("skip-wrong-claim").
  EXPECT_EQ(hint({}, Shared(Claim("unrelated", "u"))), QueueingHint::kQueueSkip);
  EXPECT_FALSE(plugin_.IsSchedulableAfterClaimChange(pod, {}, std::make_shared<const api::Node>()).ok());

  AddClaim(Claim());
  // "queue-on-add".
  EXPECT_EQ(hint({}, Shared(Claim())), QueueingHint::kQueue);
  // "skip-unrelated-claim".
  EXPECT_EQ(hint({}, Shared(Claim("unrelated", "u"))), QueueingHint::kQueueSkip);
  // "skip-adding-finalizer".
  api::ResourceClaim with_finalizer = Claim();
  with_finalizer.metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
  EXPECT_EQ(hint(Shared(Claim()), Shared(with_finalizer)), QueueingHint::kQueueSkip);
  // "queue-on-status-change".
  api::ResourceClaim allocated = AllocatedClaim();
  EXPECT_EQ(hint(Shared(Claim()), Shared(allocated)), QueueingHint::kQueue);
  // "claim-deallocate": even another pod's claim frees devices.
  api::ResourceClaim other_allocated = AllocatedClaim();
  other_allocated.metadata.name = "unrelated";
  other_allocated.metadata.uid = "u";
  EXPECT_EQ(hint(Shared(other_allocated), Shared(Claim("unrelated", "u"))), QueueingHint::kQueue);
}

// kube's isSchedulableAfterPodChange cases.
TEST_F(DynamicResourcesTest, PodChangeHints) {
  const api::Pod pod = PodWithClaimTemplate();
  auto hint = [&](const api::Pod& modified) {
    util::StatusOr<QueueingHint> h =
        plugin_.IsSchedulableAfterPodChange(pod, {}, std::make_shared<const api::Pod>(modified));
    EXPECT_TRUE(h.ok());
    return h.ok() ? *h : QueueingHint::kQueue;
  };
  // "wrong-pod".
  api::Pod other = PodWithClaimTemplateInStatus();
  other.metadata.uid = "other";
  AddClaim(ClaimOwnedByPod());
  EXPECT_EQ(hint(other), QueueingHint::kQueueSkip);
  // "incomplete": the status does not name the claim yet.
  EXPECT_EQ(hint(PodWithClaimTemplate()), QueueingHint::kQueueSkip);
  // "complete".
  EXPECT_EQ(hint(PodWithClaimTemplateInStatus()), QueueingHint::kQueue);
  // "missing-claim": named, but not in the informer yet.
  listers_.resource_claims.Delete(kNs, kClaimName);
  EXPECT_EQ(hint(PodWithClaimTemplateInStatus()), QueueingHint::kQueueSkip);
}

// ---------------------------------------------------------------- args

// ---------------------------------------------------------------- extended resources backed by DRA

framework::FeatureGates ExtendedResourceGates() {
  framework::FeatureGates g;
  g.dra_extended_resource = true;
  return g;
}

// A pod whose one container "c" asks for `gpus` example.com/gpu.
api::Pod GpuPod(const std::string& name = "my-pod", const std::string& uid = kPodUid, const std::string& gpus = "1") {
  api::Pod p = Pod(name, uid);
  api::Container c;
  c.name = "c";
  c.resources.requests["cpu"] = api::Quantity::MustParse("100m");
  c.resources.requests["example.com/gpu"] = api::Quantity::MustParse(gpus);
  p.spec.containers.push_back(c);
  return p;
}

// Records what DraMetrics receives: waits and allocations as
// "profile/driver/outcome", claim creates as their success.
class RecordingDraMetrics final : public dra::DraMetrics {
 public:
  RecordingDraMetrics() { dra::SetDraMetrics(this); }
  ~RecordingDraMetrics() override { dra::ClearDraMetrics(this); }
  void ObserveWait(std::string_view profile, std::string_view driver, std::string_view outcome,
                   double seconds) override {
    std::lock_guard<std::mutex> l(mu);
    waits.push_back(std::string(profile) + "/" + std::string(driver) + "/" + std::string(outcome));
    wait_seconds.push_back(seconds);
  }
  void CountAllocation(std::string_view profile, std::string_view driver, std::string_view outcome) override {
    std::lock_guard<std::mutex> l(mu);
    allocations.push_back(std::string(profile) + "/" + std::string(driver) + "/" + std::string(outcome));
  }
  void CountClaimCreate(bool success) override {
    std::lock_guard<std::mutex> l(mu);
    claim_creates.push_back(success);
  }
  std::mutex mu;
  std::vector<std::string> waits;
  std::vector<double> wait_seconds;
  std::vector<std::string> allocations;
  std::vector<bool> claim_creates;
};

class ExtendedResourceTest : public DynamicResourcesTest {
 protected:
  ExtendedResourceTest() : ext_(listers_, tracker_, &client_, ExtendedResourceGates()) {
    auto cls = std::make_shared<api::DeviceClass>(Class());
    cls->spec.extended_resource_name = "example.com/gpu";
    listers_.device_classes.Set(cls);
    AddSlice(Slice("worker", 2));
  }

  DynamicResources ext_;
};

TEST_F(ExtendedResourceTest, ClaimIsAllocatedCreatedAndRecordedInThePod) {
  RecordingDraMetrics metrics;
  framework::CycleState state;
  const api::Pod pod = GpuPod();
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, ext_, state, pod, worker_));
  EXPECT_EQ(metrics.claim_creates, std::vector<bool>{true});

  ASSERT_EQ(client_.objects.size(), 1u);
  const api::ResourceClaim& claim = client_.objects.begin()->second;
  EXPECT_EQ(claim.metadata.namespace_, kNs);
  EXPECT_EQ(claim.metadata.generate_name, "my-pod-extended-resources-");
  EXPECT_EQ(claim.metadata.annotations.at("resource.kubernetes.io/extended-resource-claim"), "true");
  ASSERT_EQ(claim.metadata.owner_references.size(), 1u);
  const api::OwnerReference& owner = claim.metadata.owner_references[0];
  EXPECT_EQ(owner.api_version, "v1");
  EXPECT_EQ(owner.kind, "Pod");
  EXPECT_EQ(owner.name, "my-pod");
  EXPECT_EQ(owner.uid, kPodUid);
  EXPECT_EQ(owner.controller, std::optional<bool>(true));
  EXPECT_EQ(claim.metadata.finalizers, std::vector<std::string>{std::string(kDeleteProtectionFinalizer)});
  ASSERT_EQ(claim.spec.devices.requests.size(), 1u);
  const api::DeviceRequest& request = claim.spec.devices.requests[0];
  EXPECT_EQ(request.name, "container-0-request-1");  // "cpu" sorts before "example.com/gpu"
  ASSERT_TRUE(request.exactly.has_value());
  EXPECT_EQ(request.exactly->device_class_name, kClassName);
  EXPECT_EQ(request.exactly->allocation_mode, api::kDeviceAllocationModeExactCount);
  EXPECT_EQ(request.exactly->count, 1);
  ASSERT_TRUE(claim.status.allocation.has_value());
  ASSERT_EQ(claim.status.allocation->devices.results.size(), 1u);
  EXPECT_EQ(claim.status.allocation->devices.results[0].request, "container-0-request-1");
  EXPECT_EQ(claim.status.allocation->devices.results[0].device, "instance-1");
  ASSERT_EQ(claim.status.reserved_for.size(), 1u);
  EXPECT_EQ(claim.status.reserved_for[0].uid, kPodUid);
  EXPECT_EQ(client_.calls, (std::vector<std::string>{"create", "update", "update-status", "patch-pod-status"}));

  ASSERT_EQ(client_.pod_patches.size(), 1u);
  EXPECT_EQ(client_.pod_patches[0].first, "default/my-pod");
  EXPECT_EQ(client_.pod_patches[0].second, nlohmann::json::parse(R"({"status": {"extendedResourceClaimStatus": {
      "requestMappings": [{"containerName": "c", "resourceName": "example.com/gpu",
                           "requestName": "container-0-request-1"}],
      "resourceClaimName": ")" + claim.metadata.name + R"("}}})"));

  // Nothing in flight; the device is taken for the next pod.
  EXPECT_EQ(tracker_->PendingAllocations(), 0u);
  EXPECT_EQ(tracker_->ListAllAllocatedDevices().count({kDriver, "worker", "instance-1"}), 1u);
}

// Reserve's second search takes the node's version of the extended
// resource claim that Filter made.
TEST_F(ExtendedResourceTest, WithTheSnapshotTheNodesClaimIsAllocatedAgain) {
  PointerSnapshot snapshot({&worker_});
  ext_.UseSnapshot(&snapshot);
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, ext_, state, GpuPod("my-pod", kPodUid, "2"), worker_));
  ASSERT_EQ(client_.objects.size(), 1u);
  const api::ResourceClaim& claim = client_.objects.begin()->second;
  ASSERT_TRUE(claim.status.allocation.has_value());
  EXPECT_EQ(claim.status.allocation->devices.results.size(), 2u);
}

// The claim the pod's extended resources would become is tallied under
// its own name.
TEST_F(ExtendedResourceTest, TallyDevicesNamesTheExtendedResourcesClaim) {
  auto tallies = ext_.TallyDevices(GpuPod("my-pod", kPodUid, "3"), worker_);
  ASSERT_TRUE(tallies.ok()) << tallies.status().ToString();
  ASSERT_EQ(tallies->size(), 1u);
  EXPECT_EQ((*tallies)[0].claim, kExtendedResourcesClaim);
  EXPECT_EQ((*tallies)[0].request, "container-0-request-1");
  EXPECT_EQ((*tallies)[0].reachable, 2);
  EXPECT_EQ((*tallies)[0].usable, 2);
}

TEST_F(ExtendedResourceTest, DevicesInFlightAndCreatedAreTaken) {
  framework::CycleState first;
  ASSERT_TRUE(RunsThrough(Stage::kReserve, ext_, first, GpuPod(), worker_));
  // The first pod's device is in flight: the second gets the other one.
  framework::CycleState second;
  ASSERT_TRUE(RunsThrough(Stage::kReserve, ext_, second, GpuPod("pod-2", "uid-2"), worker_));
  // No third device.
  framework::CycleState third;
  ASSERT_TRUE(ext_.PreFilter(third, GpuPod("pod-3", "uid-3"), {}).second.IsSuccess());
  Status s = ext_.Filter(third, GpuPod("pod-3", "uid-3"), worker_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot allocate all claims");
  EXPECT_TRUE(ext_.PreBind(first, GpuPod(), "worker").IsSuccess());
  EXPECT_TRUE(ext_.PreBind(second, GpuPod("pod-2", "uid-2"), "worker").IsSuccess());
  EXPECT_EQ(client_.objects.size(), 2u);
  framework::CycleState again;
  ASSERT_TRUE(ext_.PreFilter(again, GpuPod("pod-3", "uid-3"), {}).second.IsSuccess());
  EXPECT_EQ(ext_.Filter(again, GpuPod("pod-3", "uid-3"), worker_).Message(), "cannot allocate all claims");
}

TEST_F(ExtendedResourceTest, NodeThatAdvertisesTheResourceServesItItself) {
  auto node = Node("plugin-node");
  node->status.allocatable.Mutable()["example.com/gpu"] = api::Quantity::MustParse("4");
  framework::NodeInfo with_plugin(node);
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, ext_, state, GpuPod(), with_plugin));
  EXPECT_TRUE(client_.calls.empty());
  EXPECT_EQ(tracker_->PendingAllocations(), 0u);
}

// The pod's own claim is allocated from the slice; its extended resource is
// the node's device plugin's. kube v1.37.2 still gives the node an extended
// resource claim without requests, creates it in PreBind and then fails
// the binding for want of request mappings ("nil or empty request
// mappings"), deleting the claim in Unreserve: the pod does not bind on
// such a node. ksched does the same, so both schedulers agree.
TEST_F(ExtendedResourceTest, UserClaimAndDevicePluginNodeFailsAsKubeDoes) {
  AddClaim(Claim());
  auto node = Node("worker");
  node->status.allocatable.Mutable()["example.com/gpu"] = api::Quantity::MustParse("4");
  framework::NodeInfo with_plugin(node);
  api::Pod pod = GpuPod();
  pod.spec.resource_claims.push_back({"my-resource", std::string(kClaimName), std::nullopt});
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kReserve, ext_, state, pod, with_plugin));
  Status s = ext_.PreBind(state, pod, "worker");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "nil or empty request mappings, no update of pod default/my-pod ExtendedResourceClaimStatus");
  EXPECT_EQ(client_.calls,
            (std::vector<std::string>{"update", "update-status", "create", "update", "update-status"}));
  EXPECT_TRUE(client_.pod_patches.empty());
  ext_.Unreserve(state, pod, "worker");
  EXPECT_EQ(client_.objects.size(), 1u);
  EXPECT_EQ(client_.objects.count(kClaimName), 1u);
  EXPECT_EQ(tracker_->PendingAllocations(), 0u);
}

TEST_F(ExtendedResourceTest, UnmappedResourceMissingFromTheNodeDoesNotFit) {
  api::Pod pod = GpuPod();
  pod.spec.containers.Mutable()[0].resources.requests["example.com/other"] = api::Quantity::MustParse("1");
  framework::CycleState state;
  ASSERT_TRUE(ext_.PreFilter(state, pod, {}).second.IsSuccess());
  Status s = ext_.Filter(state, pod, worker_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot fit resource");
}

TEST_F(ExtendedResourceTest, ImplicitClassNameAndGateOff) {
  api::Pod pod = Pod();
  api::Container c;
  c.name = "c";
  c.resources.requests["deviceclass.resource.kubernetes.io/my-resource-class"] = api::Quantity::MustParse("2");
  pod.spec.containers.push_back(c);
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, ext_, state, pod, worker_));
  ASSERT_EQ(client_.objects.size(), 1u);
  EXPECT_EQ(client_.objects.begin()->second.status.allocation->devices.results.size(), 2u);

  // Without the gate the pod has no claims for this plugin.
  framework::CycleState off;
  EXPECT_EQ(plugin_.PreFilter(off, GpuPod("pod-2", "uid-2"), {}).second.code(), Code::kSkip);
}

TEST_F(ExtendedResourceTest, FailedBindingDeletesTheCreatedClaim) {
  framework::CycleState state;
  const api::Pod pod = GpuPod();
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, ext_, state, pod, worker_));
  ASSERT_EQ(client_.objects.size(), 1u);
  client_.calls.clear();
  ext_.Unreserve(state, pod, "worker");
  EXPECT_TRUE(client_.objects.empty());
  // The finalizer goes before the deletion.
  EXPECT_EQ(client_.calls, (std::vector<std::string>{"update", "delete"}));
  EXPECT_TRUE(tracker_->ListAllAllocatedDevices().empty());
}

TEST_F(ExtendedResourceTest, FailedCreateLeavesNothingInFlight) {
  RecordingDraMetrics metrics;
  client_.fail_creates = true;
  framework::CycleState state;
  const api::Pod pod = GpuPod();
  ASSERT_TRUE(RunsThrough(Stage::kReserve, ext_, state, pod, worker_));
  EXPECT_EQ(tracker_->PendingAllocations(), 1u);
  Status s = ext_.PreBind(state, pod, "worker");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "create claim for extended resources default/: injected");
  EXPECT_EQ(metrics.claim_creates, std::vector<bool>{false});
  ext_.Unreserve(state, pod, "worker");
  EXPECT_EQ(tracker_->PendingAllocations(), 0u);
  EXPECT_EQ(client_.calls, std::vector<std::string>{"create"});
}

TEST_F(ExtendedResourceTest, ClaimOfAnEarlierAttemptIsDeleted) {
  // A claim created for the pod by an attempt whose binding failed.
  api::ResourceClaim stale = dra::NewExtendedResourceClaim(GpuPod(), "");
  stale.metadata.name = "my-pod-extended-resources-old";
  stale.metadata.uid = "old-uid";
  stale.metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
  stale.spec.devices.requests.push_back(Claim().spec.devices.requests[0]);
  AddClaim(stale);
  framework::CycleState state;
  const api::Pod pod = GpuPod();
  ASSERT_TRUE(ext_.PreFilter(state, pod, {}).second.IsSuccess());
  Status s = ext_.Filter(state, pod, worker_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot schedule extended resource claim");
  auto [result, ps] = ext_.PostFilter(state, pod, framework::NodeToStatus());
  EXPECT_EQ(ps.code(), Code::kUnschedulable);
  EXPECT_EQ(ps.Message(), "deletion of ResourceClaim completed");
  EXPECT_TRUE(client_.objects.empty());
  // The next attempt starts afresh.
  framework::CycleState next;
  EXPECT_TRUE(RunsThrough(Stage::kPreBind, ext_, next, pod, worker_));
}

TEST(DynamicResourcesArgsTest, FilterTimeoutDefaultsToTenSecondsAndMustNotBeNegative) {
  const config::ArgsCodec& codec = DynamicResourcesArgs::Codec();
  EXPECT_EQ(codec.Kind(), "DynamicResourcesArgs");
  DynamicResourcesArgs a;
  EXPECT_TRUE(ValidateDynamicResourcesArgs("args", a).empty());
  DynamicResourcesArgs negative;
  negative.filter_timeout = -std::chrono::seconds(1);
  config::ErrorList errs = ValidateDynamicResourcesArgs("profiles[0].pluginConfig[0].args", negative);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].ToString(),
            "profiles[0].pluginConfig[0].args.filterTimeout: Invalid value: \"-1s\": must be zero or positive");
}

// ---------------------------------------------------------------- binding conditions

framework::FeatureGates BindingConditionGates(bool on = true) {
  framework::FeatureGates g;
  g.dra_device_binding_conditions = on;
  g.dra_resource_claim_device_status = on;
  return g;
}

class BindingConditionsTest : public DynamicResourcesTest {
 protected:
  BindingConditionsTest() : bc_(listers_, tracker_, &client_, BindingConditionGates(), clock_, kDefaultFilterTimeout,
                                std::chrono::seconds(10), "my-profile") {}

  // The pod's unallocated claim, and "worker"'s one device, which waits for
  // "Attached" and fails on "AttachFailed".
  void AddClaimAndWaitingDevice() {
    AddClaim(Claim());
    AddClass();
    api::ResourceSlice slice = Slice("worker", 1);
    slice.spec.devices[0].binding_conditions = {"Attached"};
    slice.spec.devices[0].binding_failure_conditions = {"AttachFailed"};
    AddSlice(slice);
  }
  // The driver's controller sets a condition of the allocated device in the
  // claim's status (through the API, so the informer sees it).
  void DriverReports(const std::string& type, const std::string& status) {
    api::ResourceClaim c = client_.Stored(kClaimName);
    if (c.status.device_statuses.empty()) c.status.device_statuses.push_back({kDriver, "worker", "instance-1", {}, {}});
    api::Condition cond;
    cond.type = type;
    cond.status = status;
    cond.reason = "Driver";
    cond.message = type + " is " + status;
    c.status.device_statuses[0].conditions.push_back(cond);
    ASSERT_TRUE(client_.UpdateResourceClaimStatus(c).ok());
  }

  util::ScriptedClock clock_;
  DynamicResources bc_;
};

TEST_F(BindingConditionsTest, ConditionThatHoldsLateBinds) {
  RecordingDraMetrics metrics;
  AddClaimAndWaitingDevice();
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  // The driver is not done at the first look, nor at the second.
  clock_.on_wait = [&](int n) {
    if (n == 1) DriverReports("Attached", "True");
    return true;
  };
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, bc_, state, pod, worker_));
  EXPECT_EQ(clock_.Waits(), 2);
  api::ResourceClaim stored = client_.Stored(kClaimName);
  ASSERT_TRUE(stored.status.allocation);
  const api::DeviceRequestAllocationResult& r = stored.status.allocation->devices.results.at(0);
  EXPECT_EQ(r.binding_conditions, std::vector<std::string>{"Attached"});
  EXPECT_EQ(r.binding_failure_conditions, std::vector<std::string>{"AttachFailed"});
  // Written at the first reservation, before any wait.
  ASSERT_TRUE(stored.status.allocation->allocation_timestamp);
  EXPECT_EQ(*stored.status.allocation->allocation_timestamp,
            clock_.WallNow() - 2 * kBindingConditionsPollPeriod);
  EXPECT_EQ(stored.status.reserved_for.size(), 1u);
  EXPECT_EQ(metrics.waits, std::vector<std::string>{"my-profile/some-driver/success"});
  EXPECT_EQ(metrics.wait_seconds, std::vector<double>{2.0});
  EXPECT_EQ(metrics.allocations, std::vector<std::string>{"my-profile/some-driver/success"});
}

TEST_F(BindingConditionsTest, FailureConditionUnreservesAndTheNextAttemptDeallocates) {
  RecordingDraMetrics metrics;
  AddClaimAndWaitingDevice();
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  clock_.on_wait = [&](int n) {
    if (n == 0) DriverReports("AttachFailed", "True");
    return true;
  };
  ASSERT_TRUE(RunsThrough(Stage::kReserve, bc_, state, pod, worker_));
  Status s = bc_.PreBind(state, pod, "worker");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "device binding failed: claim=my-pod-my-resource, reason=Driver, message=\"AttachFailed is True\"");
  EXPECT_EQ(metrics.allocations, std::vector<std::string>{"my-profile/some-driver/failure"});

  // The framework unreserves: the reservation goes, the allocation stays.
  bc_.Unreserve(state, pod, "worker");
  EXPECT_TRUE(client_.Stored(kClaimName).status.reserved_for.empty());
  ASSERT_TRUE(client_.Stored(kClaimName).status.allocation);

  // The retry finds the claim failed on every node; PostFilter frees it.
  framework::CycleState retry;
  ASSERT_TRUE(bc_.PreFilter(retry, pod, {}).second.IsSuccess());
  Status f = bc_.Filter(retry, pod, worker_);
  EXPECT_EQ(f.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(f.Message(), "resourceclaim not available on the node");
  auto [pf, ps] = bc_.PostFilter(retry, pod, framework::NodeToStatus());
  EXPECT_EQ(ps.Message(), "deallocation of ResourceClaim completed");
  api::ResourceClaim stored = client_.Stored(kClaimName);
  EXPECT_FALSE(stored.status.allocation);
  EXPECT_TRUE(stored.status.device_statuses.empty());
  EXPECT_TRUE(stored.status.devices.empty());
}

TEST_F(BindingConditionsTest, TimeoutUnreservesAndTheNextAttemptDeallocates) {
  RecordingDraMetrics metrics;
  AddClaimAndWaitingDevice();
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kReserve, bc_, state, pod, worker_));
  Status s = bc_.PreBind(state, pod, "worker");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "device binding timeout: context deadline exceeded");
  // Polled every period for the 10 s bindingTimeout.
  EXPECT_EQ(clock_.Waits(), 10);
  EXPECT_EQ(metrics.waits, std::vector<std::string>{"my-profile/some-driver/timeout"});
  EXPECT_EQ(metrics.wait_seconds, std::vector<double>{10.0});
  bc_.Unreserve(state, pod, "worker");
  EXPECT_TRUE(client_.Stored(kClaimName).status.reserved_for.empty());

  // Within the timeout the allocated claim is still usable ...
  framework::CycleState early;
  ASSERT_TRUE(bc_.PreFilter(early, pod, {}).second.IsSuccess());
  EXPECT_TRUE(bc_.Filter(early, pod, worker_).IsSuccess());
  // ... past it, the retry frees it.
  clock_.Advance(std::chrono::seconds(1));
  framework::CycleState retry;
  ASSERT_TRUE(bc_.PreFilter(retry, pod, {}).second.IsSuccess());
  EXPECT_EQ(bc_.Filter(retry, pod, worker_).Message(), "resourceclaim not available on the node");
  EXPECT_EQ(bc_.PostFilter(retry, pod, framework::NodeToStatus()).second.Message(),
            "deallocation of ResourceClaim completed");
  EXPECT_FALSE(client_.Stored(kClaimName).status.allocation);
}

TEST_F(BindingConditionsTest, ClaimReservedAgainWaitsWithoutANewTimestamp) {
  // Allocated (and timestamped) by an earlier pod, already attached.
  api::ResourceClaim c = AllocatedClaim();
  c.status.allocation->devices.results[0].binding_conditions = {"Attached"};
  const api::Time stamp = clock_.WallNow() - std::chrono::seconds(3);
  c.status.allocation->allocation_timestamp = stamp;
  c.status.device_statuses.push_back({kDriver, "worker", "instance-1", {}, {}});
  api::Condition attached;
  attached.type = "Attached";
  attached.status = "True";
  c.status.device_statuses[0].conditions.push_back(attached);
  AddClaim(c);
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, bc_, state, pod, worker_));
  EXPECT_EQ(clock_.Waits(), 0);
  EXPECT_EQ(client_.Stored(kClaimName).status.allocation->allocation_timestamp, stamp);
}

TEST_F(BindingConditionsTest, StoppingEndsTheWait) {
  RecordingDraMetrics metrics;
  AddClaimAndWaitingDevice();
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kReserve, bc_, state, pod, worker_));
  // Scheduler::Stop cancels while PreBind waits.
  clock_.on_wait = [&](int) {
    bc_.CancelBindingWaits();
    return true;
  };
  Status s = bc_.PreBind(state, pod, "worker");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "context canceled");
  EXPECT_EQ(clock_.Waits(), 1);
  EXPECT_EQ(metrics.allocations, std::vector<std::string>{"my-profile/some-driver/error"});
}

TEST_F(BindingConditionsTest, SimulationAssumesTheConditionsMet) {
  bc_.AssumeBindingConditionsMet();
  AddClaimAndWaitingDevice();
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, bc_, state, pod, worker_));
  EXPECT_EQ(clock_.Waits(), 0);
  EXPECT_EQ(client_.Stored(kClaimName).status.allocation->devices.results.at(0).binding_conditions,
            std::vector<std::string>{"Attached"});

  // A binding that failed before the simulation still counts.
  DriverReports("AttachFailed", "True");
  bc_.Unreserve(state, pod, "worker");
  framework::CycleState retry;
  ASSERT_TRUE(bc_.PreFilter(retry, pod, {}).second.IsSuccess());
  EXPECT_EQ(bc_.Filter(retry, pod, worker_).Message(), "resourceclaim not available on the node");
}

TEST_F(BindingConditionsTest, GateOffNeverTakesSuchDevicesNorWaits) {
  DynamicResources off(listers_, tracker_, &client_, BindingConditionGates(false), clock_);
  AddClaimAndWaitingDevice();
  const api::Pod pod = PodWithClaimName();
  framework::CycleState state;
  ASSERT_TRUE(off.PreFilter(state, pod, {}).second.IsSuccess());
  EXPECT_EQ(off.Filter(state, pod, worker_).Message(), "cannot allocate all claims");

  // An allocation with conditions (written while the gates were on) binds
  // at once, and gets no timestamp.
  api::ResourceClaim allocated = AllocatedClaim();
  allocated.metadata.name = "other-claim";
  allocated.metadata.uid = "other-uid";
  allocated.status.allocation->devices.results[0].binding_conditions = {"Attached"};
  AddClaim(allocated);
  framework::CycleState again;
  const api::Pod other = PodWithClaimName("other-claim");
  ASSERT_TRUE(RunsThrough(Stage::kPreBind, off, again, other, worker_));
  EXPECT_EQ(clock_.Waits(), 0);
  EXPECT_FALSE(client_.Stored("other-claim").status.allocation->allocation_timestamp);
}

TEST(DynamicResourcesArgsTest, BindingTimeoutOnlyWithTheGates) {
  const config::ArgsCodec& codec = DynamicResourcesArgs::Codec();
  {
    config::ScopedConfigGates gates({.dra_binding_conditions = true});
    config::PluginArgs a = codec.Default();
    EXPECT_EQ(a.Get<DynamicResourcesArgs>()->binding_timeout, std::chrono::seconds(600));
    DynamicResourcesArgs short_timeout;
    short_timeout.binding_timeout = std::chrono::milliseconds(500);
    config::ErrorList errs = ValidateDynamicResourcesArgs("args", short_timeout);
    ASSERT_EQ(errs.size(), 1u);
    EXPECT_EQ(errs[0].ToString(), "args.bindingTimeout: Invalid value: \"500ms\": must be at least 1 second");
    short_timeout.binding_timeout = std::chrono::seconds(1);
    EXPECT_TRUE(ValidateDynamicResourcesArgs("args", short_timeout).empty());
  }
  config::ScopedConfigGates gates({.dra_binding_conditions = false});
  EXPECT_FALSE(codec.Default().Get<DynamicResourcesArgs>()->binding_timeout);
  DynamicResourcesArgs a;
  a.binding_timeout = std::chrono::seconds(5);
  config::ErrorList errs = ValidateDynamicResourcesArgs("args", a);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].ToString(),
            "args.bindingTimeout: Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate "
            "is disabled");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::dynamicresources
