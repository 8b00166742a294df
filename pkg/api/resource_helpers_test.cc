#include "pkg/api/resource_helpers.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

Quantity Q(std::string_view s) { return Quantity::MustParse(s); }

Container C(std::string name, ResourceList requests, ResourceList limits = {}) {
  Container c;
  c.name = std::move(name);
  c.resources.requests = std::move(requests);
  c.resources.limits = std::move(limits);
  return c;
}

Container Sidecar(std::string name, ResourceList requests, ResourceList limits = {}) {
  Container c = C(std::move(name), std::move(requests), std::move(limits));
  c.restart_policy = "Always";
  return c;
}

Pod P(std::vector<Container> containers, std::vector<Container> init = {}, ResourceList overhead = {}) {
  Pod p;
  p.metadata.name = "p";
  p.spec.containers = std::move(containers);
  p.spec.init_containers = std::move(init);
  p.spec.overhead = std::move(overhead);
  return p;
}

// Renders a ResourceList as "cpu=1,memory=1Gi" for readable comparisons.
std::string Str(const ResourceList& list) {
  std::string out;
  for (const auto& [name, q] : list) out += (out.empty() ? "" : ",") + name + "=" + q.ToString();
  return out;
}

struct RequestCase {
  const char* name;
  Pod pod;
  PodResourcesOptions opts;
  std::string want;
};

TEST(ResourceRequestsTest, Table) {
  const PodResourcesOptions none;
  PodResourcesOptions no_overhead;
  no_overhead.exclude_overhead = true;
  PodResourcesOptions nonzero;
  nonzero.non_missing_container_requests = NonZeroDefaultRequests();

  const RequestCase cases[] = {
      {"no containers", P({}), none, ""},
      {"missing requests add nothing", P({C("a", {}), C("b", {})}), none, ""},
      {"sum of containers",
       P({C("a", {{"cpu", Q("1")}, {"memory", Q("1Gi")}}), C("b", {{"cpu", Q("500m")}, {"memory", Q("512Mi")}})}),
       none, "cpu=1500m,memory=1536Mi"},
      {"resource in one container only", P({C("a", {{"cpu", Q("1")}}), C("b", {{"memory", Q("1Gi")}})}), none,
       "cpu=1,memory=1Gi"},
      {"init container larger than containers",
       P({C("a", {{"cpu", Q("1")}, {"memory", Q("2Gi")}})}, {C("init", {{"cpu", Q("4")}, {"memory", Q("1Gi")}})}),
       none, "cpu=4,memory=2Gi"},
      {"init containers take the max, not the sum",
       P({C("a", {{"cpu", Q("1")}}), C("b", {{"cpu", Q("1")}})},
         {C("i1", {{"cpu", Q("2")}}), C("i2", {{"cpu", Q("5")}}), C("i3", {{"cpu", Q("3")}})}),
       none, "cpu=5"},
      {"init container with a resource the containers lack",
       P({C("a", {{"cpu", Q("1")}})}, {C("init", {{"example.com/dongle", Q("2")}})}), none,
       "cpu=1,example.com/dongle=2"},
      {"sidecar before an init container raises its peak",
       P({C("a", {{"cpu", Q("1")}})}, {Sidecar("sc", {{"cpu", Q("1")}}), C("init", {{"cpu", Q("2")}})}), none,
       "cpu=3"},
      {"sidecar after an init container does not",
       P({C("a", {{"cpu", Q("1")}})}, {C("init", {{"cpu", Q("2")}}), Sidecar("sc", {{"cpu", Q("1")}})}), none,
       "cpu=2"},
      {"sidecars add to the steady state",
       P({C("a", {{"cpu", Q("1")}, {"memory", Q("1Gi")}})}, {Sidecar("sc", {{"cpu", Q("500m")}, {"memory", Q("1Gi")}})}),
       none, "cpu=1500m,memory=2Gi"},
      {"several sidecars around an init container",
       P({C("a", {{"cpu", Q("1")}})}, {Sidecar("s1", {{"cpu", Q("1")}}), Sidecar("s2", {{"cpu", Q("2")}}),
                                       C("init", {{"cpu", Q("5")}}), Sidecar("s3", {{"cpu", Q("3")}})}),
       none, "cpu=8"},
      {"sidecars larger than the init peak",
       P({C("a", {{"cpu", Q("4")}})}, {C("init", {{"cpu", Q("3")}}), Sidecar("s1", {{"cpu", Q("2")}})}), none,
       "cpu=6"},
      {"overhead is added",
       P({C("a", {{"cpu", Q("1")}})}, {}, {{"cpu", Q("250m")}, {"memory", Q("120Mi")}}), none,
       "cpu=1250m,memory=120Mi"},
      {"overhead is added after the init max",
       P({C("a", {{"cpu", Q("1")}})}, {C("init", {{"cpu", Q("2")}})}, {{"cpu", Q("100m")}}), none, "cpu=2100m"},
      {"overhead can be excluded", P({C("a", {{"cpu", Q("1")}})}, {}, {{"cpu", Q("250m")}}), no_overhead, "cpu=1"},
      // The memory default is DecimalSI in kube too, so sums print in bytes.
      {"non-zero defaults fill missing requests", P({C("a", {}), C("b", {})}), nonzero, "cpu=200m,memory=419430400"},
      {"explicit zero stays zero",
       P({C("a", {{"cpu", Q("0")}})}), nonzero, "cpu=0,memory=209715200"},
      {"non-zero defaults only where missing",
       P({C("a", {{"cpu", Q("2")}}), C("b", {{"memory", Q("1Gi")}})}), nonzero, "cpu=2100m,memory=1283457024"},
      {"non-zero defaults apply to init containers",
       P({C("a", {{"cpu", Q("50m")}, {"memory", Q("10Mi")}})}, {C("init", {})}), nonzero, "cpu=100m,memory=209715200"},
      {"extended resources", P({C("a", {{"nvidia.com/gpu", Q("1")}})}, {C("init", {{"nvidia.com/gpu", Q("2")}})}),
       none, "nvidia.com/gpu=2"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Str(PodRequests(c.pod, c.opts)), c.want) << c.name;
  }
}

TEST(ResourceRequestsTest, NonZeroDefaults) {
  EXPECT_EQ(kDefaultMilliCPURequest, 100);
  EXPECT_EQ(kDefaultMemoryRequest, 209715200);
  const ResourceList defaults = NonZeroDefaultRequests();
  EXPECT_EQ(defaults.at("cpu").MilliValue(), 100);
  EXPECT_EQ(defaults.at("memory").Value(), 200 * 1024 * 1024);
  const Container c = C("a", {{"cpu", Q("0")}});
  const ResourceList filled = ContainerRequestsWithDefaults(c, defaults);
  EXPECT_EQ(filled.at("cpu").MilliValue(), 0);
  EXPECT_EQ(filled.at("memory").Value(), kDefaultMemoryRequest);
}

TEST(ResourceLimitsTest, Table) {
  const Pod plain = P({C("a", {}, {{"cpu", Q("1")}, {"memory", Q("1Gi")}}), C("b", {}, {{"cpu", Q("1")}})});
  EXPECT_EQ(Str(PodLimits(plain)), "cpu=2,memory=1Gi");

  const Pod with_init = P({C("a", {}, {{"cpu", Q("1")}})}, {C("init", {}, {{"cpu", Q("3")}})});
  EXPECT_EQ(Str(PodLimits(with_init)), "cpu=3");

  const Pod with_sidecar =
      P({C("a", {}, {{"cpu", Q("1")}})}, {Sidecar("sc", {}, {{"cpu", Q("1")}}), C("init", {}, {{"cpu", Q("1500m")}})});
  EXPECT_EQ(Str(PodLimits(with_sidecar)), "cpu=2500m");

  // Overhead raises existing limits only.
  const Pod overhead = P({C("a", {}, {{"cpu", Q("1")}})}, {}, {{"cpu", Q("1")}, {"memory", Q("1Gi")}});
  EXPECT_EQ(Str(PodLimits(overhead)), "cpu=2");
  PodResourcesOptions no_overhead;
  no_overhead.exclude_overhead = true;
  EXPECT_EQ(Str(PodLimits(overhead, no_overhead)), "cpu=1");

  // Requests do not leak into limits, nor non-zero defaults.
  PodResourcesOptions nonzero;
  nonzero.non_missing_container_requests = NonZeroDefaultRequests();
  EXPECT_EQ(Str(PodLimits(P({C("a", {{"cpu", Q("1")}})}), nonzero)), "");
}

TEST(ResourceListTest, AddAndMax) {
  ResourceList list = {{"cpu", Q("1")}};
  AddResourceList(&list, {{"cpu", Q("500m")}, {"memory", Q("1Gi")}});
  EXPECT_EQ(Str(list), "cpu=1500m,memory=1Gi");
  MaxResourceList(&list, {{"cpu", Q("1")}, {"memory", Q("2Gi")}, {"pods", Q("3")}});
  EXPECT_EQ(Str(list), "cpu=1500m,memory=2Gi,pods=3");
  // A zero entry takes the other quantity's format when added to.
  ResourceList zero = {{"memory", Quantity()}};
  AddResourceList(&zero, {{"memory", Q("1Gi")}});
  EXPECT_EQ(Str(zero), "memory=1Gi");
}

// ---------------------------------------------------------------- pod-level resources

Pod WithPodLevel(Pod p, ResourceList requests, ResourceList limits = {}) {
  p.spec.resources.emplace();
  p.spec.resources->requests = std::move(requests);
  p.spec.resources->limits = std::move(limits);
  return p;
}

// kube's TestPodLevelResourceRequests cases.
TEST(PodLevelResourcesTest, Requests) {
  PodResourcesOptions skip;
  skip.skip_pod_level_resources = true;
  const PodResourcesOptions none;
  const RequestCase cases[] = {
      {"nil", P({}), none, ""},
      {"pod-level memory, skipped", WithPodLevel(P({}), {{"memory", Q("2Mi")}}), skip, ""},
      {"pod-level memory", WithPodLevel(P({}), {{"memory", Q("2Mi")}}), none, "memory=2Mi"},
      {"pod-level memory and container cpu", WithPodLevel(P({C("a", {{"cpu", Q("2m")}})}), {{"memory", Q("2Mi")}}),
       none, "cpu=2m,memory=2Mi"},
      {"unsupported at both levels: the containers'",
       WithPodLevel(P({C("a", {{"storage", Q("3Mi")}})}), {{"storage", Q("2Mi")}}), none, "storage=3Mi"},
      {"unsupported at pod level only: nothing", WithPodLevel(P({}), {{"storage", Q("2Mi")}}), none, ""},
      {"pod level replaces containers, init containers and sidecars",
       WithPodLevel(P({C("a", {{"memory", Q("3Mi")}, {"cpu", Q("2m")}})},
                      {Sidecar("sc", {{"memory", Q("5Mi")}, {"cpu", Q("4m")}}),
                       C("init", {{"memory", Q("6Mi")}, {"cpu", Q("8m")}})}),
                    {{"memory", Q("15Mi")}, {"cpu", Q("18m")}}),
       none, "cpu=18m,memory=15Mi"},
      {"hugepages of both levels",
       WithPodLevel(P({C("a", {{"memory", Q("4Mi")}, {"hugepages-1Gi", Q("1Gi")}})}),
                    {{"cpu", Q("1")}, {"hugepages-2Mi", Q("10Mi")}}),
       none, "cpu=1,hugepages-1Gi=1Gi,hugepages-2Mi=10Mi,memory=4Mi"},
      {"overhead adds on top", WithPodLevel(P({C("a", {{"cpu", Q("1")}})}, {}, {{"cpu", Q("250m")}}), {{"cpu", Q("2")}}),
       none, "cpu=2250m"},
  };
  for (const RequestCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Str(PodRequests(c.pod, c.opts)), c.want);
  }
}

TEST(PodLevelResourcesTest, Predicates) {
  EXPECT_TRUE(IsSupportedPodLevelResource("cpu"));
  EXPECT_TRUE(IsSupportedPodLevelResource("memory"));
  EXPECT_TRUE(IsSupportedPodLevelResource("hugepages-2Mi"));
  EXPECT_FALSE(IsSupportedPodLevelResource("ephemeral-storage"));
  EXPECT_FALSE(IsSupportedPodLevelResource("nvidia.com/gpu"));
  EXPECT_FALSE(IsPodLevelRequestsSet(P({})));
  EXPECT_FALSE(IsPodLevelRequestsSet(WithPodLevel(P({}), {})));
  EXPECT_FALSE(IsPodLevelRequestsSet(WithPodLevel(P({}), {{"storage", Q("1")}})));
  EXPECT_TRUE(IsPodLevelRequestsSet(WithPodLevel(P({}), {{"storage", Q("1")}, {"cpu", Q("1")}})));
  EXPECT_FALSE(IsPodLevelRequestsSet(WithPodLevel(P({}), {}, {{"cpu", Q("1")}})));
  EXPECT_TRUE(IsPodLevelResourcesSet(WithPodLevel(P({}), {}, {{"cpu", Q("1")}})));
  EXPECT_FALSE(IsPodLevelResourcesSet(WithPodLevel(P({}), {}, {{"storage", Q("1")}})));
}

TEST(PodLevelResourcesTest, Limits) {
  const Pod p = WithPodLevel(P({C("a", {}, {{"cpu", Q("1")}, {"memory", Q("1Gi")}})}, {}, {{"cpu", Q("100m")}}), {},
                             {{"cpu", Q("3")}});
  EXPECT_EQ(Str(PodLimits(p)), "cpu=3100m,memory=1Gi");
  PodResourcesOptions skip;
  skip.skip_pod_level_resources = true;
  EXPECT_EQ(Str(PodLimits(p, skip)), "cpu=1100m,memory=1Gi");
}

// ---------------------------------------------------------------- in-place resize

ContainerStatus Status(std::string name, ResourceList requests, ResourceList allocated = {}) {
  ContainerStatus cs;
  cs.name = std::move(name);
  cs.resources.emplace();
  cs.resources->requests = std::move(requests);
  cs.allocated_resources = std::move(allocated);
  return cs;
}

Pod Resized(Pod p, std::vector<ContainerStatus> statuses, std::vector<ContainerStatus> init_statuses = {},
            std::string pending_reason = "") {
  p.status.container_statuses = std::move(statuses);
  p.status.init_container_statuses = std::move(init_statuses);
  if (!pending_reason.empty()) {
    PodCondition c;
    c.type = "PodResizePending";
    c.status = "True";
    c.reason = std::move(pending_reason);
    p.status.conditions.push_back(c);
  }
  return p;
}

// kube's TestPodRequests "resized" cases, plus the status options.
TEST(InPlaceResizeTest, Requests) {
  const PodResourcesOptions spec_only;
  const PodResourcesOptions status = SchedulingPodRequestOptions();
  const RequestCase cases[] = {
      {"infeasible: the status", Resized(P({C("c", {{"cpu", Q("4")}})}), {Status("c", {{"cpu", Q("2")}})}, {}, "Infeasible"),
       status, "cpu=2"},
      {"infeasible and in progress: status or allocated",
       Resized(P({C("c", {{"cpu", Q("6")}})}), {Status("c", {{"cpu", Q("2")}}, {{"cpu", Q("4")}})}, {}, "Infeasible"),
       status, "cpu=4"},
      {"deferred: the spec counts too",
       Resized(P({C("c", {{"cpu", Q("4")}})}), {Status("c", {{"cpu", Q("2")}})}, {}, "Deferred"), status, "cpu=4"},
      {"no resize status", Resized(P({C("c", {{"cpu", Q("4")}})}), {Status("c", {{"cpu", Q("2")}})}), status, "cpu=4"},
      {"per-resource 3-way maximum",
       Resized(P({C("c", {{"cpu", Q("30m")}, {"memory", Q("20M")}, {"ephemeral-storage", Q("10G")}})}),
               {Status("c", {{"cpu", Q("10m")}, {"memory", Q("30M")}, {"ephemeral-storage", Q("20G")}},
                       {{"cpu", Q("20m")}, {"memory", Q("10M")}, {"ephemeral-storage", Q("30G")}})}),
       status, "cpu=30m,ephemeral-storage=30G,memory=30M"},
      {"infeasible, status not used", Resized(P({C("c", {{"cpu", Q("4")}})}), {Status("c", {{"cpu", Q("2")}})}, {}, "Infeasible"),
       spec_only, "cpu=4"},
      {"scaled up, status not used", Resized(P({C("c", {{"cpu", Q("1")}})}), {Status("c", {{"cpu", Q("3")}})}), spec_only,
       "cpu=1"},
      {"scaled down: the status holds the old size until applied",
       Resized(P({C("c", {{"cpu", Q("1")}})}), {Status("c", {{"cpu", Q("3")}})}), status, "cpu=3"},
      {"a status without resources is ignored",
       [] {
         Pod p = Resized(P({C("c", {{"cpu", Q("1")}})}), {Status("c", {{"cpu", Q("3")}})});
         p.status.container_statuses[0].resources.reset();
         p.status.container_statuses[0].allocated_resources = {{"cpu", Q("5")}};
         return p;
       }(),
       status, "cpu=1"},
      {"sidecar infeasible",
       Resized(P({}, {Sidecar("sc", {{"cpu", Q("4")}})}), {}, {Status("sc", {{"cpu", Q("2")}})}, "Infeasible"), status,
       "cpu=2"},
      {"sidecar, no resize status", Resized(P({}, {Sidecar("sc", {{"cpu", Q("4")}})}), {}, {Status("sc", {{"cpu", Q("2")}})}),
       status, "cpu=4"},
      {"ordinary init containers are not resized",
       Resized(P({}, {C("init", {{"cpu", Q("4")}})}), {}, {Status("init", {{"cpu", Q("2")}})}, "Infeasible"), status,
       "cpu=4"},
      {"empty container requests, status requests",
       Resized(P({C("c", {})}), {Status("c", {{"cpu", Q("2")}, {"memory", Q("1Gi")}})}), status, "cpu=2,memory=1Gi"},
      {"pod-level requests win over a resize",
       WithPodLevel(Resized(P({C("c", {{"cpu", Q("1")}})}), {Status("c", {{"cpu", Q("3")}})}), {{"cpu", Q("2")}}), status,
       "cpu=2"},
  };
  for (const RequestCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Str(PodRequests(c.pod, c.opts)), c.want);
  }
  // The non-zero defaults apply to the resized requests.
  PodResourcesOptions nonzero = status;
  nonzero.non_missing_container_requests = NonZeroDefaultRequests();
  EXPECT_EQ(Str(PodRequests(Resized(P({C("c", {})}), {Status("c", {{"cpu", Q("2")}})}), nonzero)),
            "cpu=2,memory=209715200");
}

// kube 1.35+: the largest of the whole-pod spec, allocated and actuated
// sums, every container counted.
TEST(InPlaceResizeTest, PerSourceRequests) {
  PodResourcesOptions per_source = SchedulingPodRequestOptions();
  per_source.per_source_resize = true;
  // plugincompare's case: under Infeasible, containers without a report
  // count nothing and the spec aggregate is dropped; an ordinary init
  // container's report counts (1.34 counts the sidecar's report and the rest by spec).
  Pod p = Resized(P({C("c0", {{"cpu", Q("100m")}, {"memory", Q("3840Mi")}}),
                     C("c1", {{"cpu", Q("700m")}, {"memory", Q("4224Mi")}})},
                    {C("init", {{"cpu", Q("300m")}, {"memory", Q("4Gi")}}),
                     Sidecar("sidecar", {{"cpu", Q("1")}, {"memory", Q("1152Mi")}})}),
                  {}, {Status("init", {{"memory", Q("4736Mi")}}, {{"cpu", Q("1600m")}, {"memory", Q("3840Mi")}}),
                       Status("sidecar", {{"cpu", Q("2")}, {"memory", Q("384Mi")}})},
                  "Infeasible");
  EXPECT_EQ(Str(PodRequests(p, per_source)), "cpu=2,memory=4736Mi");
  EXPECT_EQ(Str(PodRequests(p, SchedulingPodRequestOptions())), "cpu=2800m,memory=8448Mi");
  // Not infeasible: the spec's sum counts too, against the reports' sums
  // (not per container: c's 4 cpu and its 2 reported add to nothing).
  Pod deferred = Resized(P({C("a", {{"cpu", Q("4")}}), C("b", {{"cpu", Q("1")}})}),
                         {Status("a", {{"cpu", Q("2")}}), Status("b", {{"cpu", Q("3")}})}, {}, "Deferred");
  EXPECT_EQ(Str(PodRequests(deferred, per_source)), "cpu=5");
  EXPECT_EQ(Str(PodRequests(deferred, SchedulingPodRequestOptions())), "cpu=7");
  // Allocated stands in for a missing status request in the actuated sum.
  ContainerStatus allocated_only;
  allocated_only.name = "a";
  allocated_only.allocated_resources = {{"cpu", Q("6")}};
  EXPECT_EQ(Str(PodRequests(Resized(P({C("a", {{"cpu", Q("4")}})}), {allocated_only}), per_source)), "cpu=6");
  // The process-wide options follow SetSchedulingPodRequestOptions.
  SetSchedulingPodRequestOptions(per_source);
  EXPECT_TRUE(SchedulingPodRequestOptions().per_source_resize);
  EXPECT_TRUE(SchedulingNonZeroPodRequestOptions().per_source_resize);
  EXPECT_FALSE(SchedulingNonZeroPodRequestOptions().non_missing_container_requests.empty());
  SetSchedulingPodRequestOptions({});
  EXPECT_FALSE(SchedulingPodRequestOptions().per_source_resize);
  EXPECT_TRUE(SchedulingPodRequestOptions().use_status_resources);
}

TEST(InPlaceResizeTest, Limits) {
  Pod p = Resized(P({C("c", {}, {{"cpu", Q("4")}})}), {Status("c", {})});
  p.status.container_statuses[0].resources->limits = {{"cpu", Q("2")}};
  EXPECT_EQ(Str(PodLimits(p, SchedulingPodRequestOptions())), "cpu=4");
  EXPECT_EQ(Str(PodLimits(p)), "cpu=4");
  PodCondition infeasible;
  infeasible.type = "PodResizePending";
  infeasible.reason = "Infeasible";
  p.status.conditions.push_back(infeasible);
  EXPECT_TRUE(IsPodResizeInfeasible(p));
  EXPECT_EQ(Str(PodLimits(p, SchedulingPodRequestOptions())), "cpu=2");
}

// InPlacePodLevelResourcesVerticalScaling (1.36 on): a pod with
// spec.resources counts its pod-level status as a resize in progress.
Pod WithPodLevelStatus(Pod p, ResourceList actuated, ResourceList allocated, ResourceList actuated_limits = {}) {
  p.status.resources.emplace();
  p.status.resources->requests = std::move(actuated);
  p.status.resources->limits = std::move(actuated_limits);
  p.status.allocated_resources = std::move(allocated);
  return p;
}

PodResourcesOptions PodLevelStatus(bool v037) {
  PodResourcesOptions o = SchedulingPodRequestOptions();
  o.pod_level_status = true;
  o.per_source_resize = v037;
  return o;
}

TEST(InPlacePodLevelResizeTest, PodLevelRequestsAreTheLargestOfSpecAndStatus) {
  const Pod pod = WithPodLevelStatus(
      WithPodLevel(P({C("a", {{"cpu", Q("1")}})}), {{"cpu", Q("2")}, {"memory", Q("1Gi")}}, {{"cpu", Q("4")}}),
      {{"cpu", Q("3")}}, {{"cpu", Q("2500m")}, {"memory", Q("2Gi")}}, {{"cpu", Q("6")}});
  for (bool v037 : {false, true}) {
    SCOPED_TRACE(v037);
    EXPECT_EQ(Str(PodRequests(pod, PodLevelStatus(v037))), "cpu=3,memory=2Gi");
    EXPECT_EQ(Str(PodLimits(pod, PodLevelStatus(v037))), "cpu=6");
  }
  // Off (1.35), or without a status report: the spec.
  EXPECT_EQ(Str(PodRequests(pod, SchedulingPodRequestOptions())), "cpu=2,memory=1Gi");
  Pod unreported = pod;
  unreported.status.resources.reset();
  EXPECT_EQ(Str(PodRequests(unreported, PodLevelStatus(true))), "cpu=2,memory=1Gi");
  // A pending pod's Fit check uses no status.
  PodResourcesOptions pending = PodLevelStatus(true);
  pending.use_status_resources = false;
  EXPECT_EQ(Str(PodRequests(pod, pending)), "cpu=2,memory=1Gi");
}

// Under an Infeasible resize the spec is out; 1.36 keeps exactly the
// resources the spec names (zero where no report has one), 1.37 takes every
// supported resource the reports give.
TEST(InPlacePodLevelResizeTest, InfeasibleAndTheResourcesEachMinorReplaces) {
  Pod pod = WithPodLevelStatus(WithPodLevel(P({C("a", {{"cpu", Q("1")}, {"memory", Q("8Gi")}})}),
                                            {{"cpu", Q("4")}, {"hugepages-2Mi", Q("2Mi")}}),
                               {{"cpu", Q("2")}, {"memory", Q("1Gi")}}, {});
  pod.status.conditions.push_back(PodCondition{"PodResizePending", "True", "Infeasible", "", std::nullopt,
                                               std::nullopt, {}});
  EXPECT_EQ(Str(PodRequests(pod, PodLevelStatus(false))), "cpu=2,hugepages-2Mi=0,memory=8Gi");
  EXPECT_EQ(Str(PodRequests(pod, PodLevelStatus(true))), "cpu=2,memory=1Gi");
}

// 1.37: with the pod-level status reported, the kubelet's pod totals stand
// for the containers' allocated and actuated sums (kube's "aggregate
// container request/limit resolves directly from pod status" and its
// fallbacks).
TEST(InPlacePodLevelResizeTest, ContainerAggregatesFromThePodsStatusFrom137) {
  const ContainerStatus c1 = Status("c1", {{"cpu", Q("5")}}, {{"cpu", Q("6")}});
  const Pod pod = Resized(WithPodLevelStatus(P({C("c1", {{"cpu", Q("1")}})}), {{"cpu", Q("3")}}, {{"cpu", Q("4")}}),
                          {c1});
  EXPECT_EQ(Str(PodRequests(pod, PodLevelStatus(true))), "cpu=4");
  EXPECT_EQ(Str(PodRequests(pod, PodLevelStatus(false))), "cpu=6");  // 1.36: the containers' reports
  Pod no_allocated = pod;
  no_allocated.status.allocated_resources.clear();
  EXPECT_EQ(Str(PodRequests(no_allocated, PodLevelStatus(true))), "cpu=6");
  Pod no_status = pod;
  no_status.status.resources.reset();
  EXPECT_EQ(Str(PodRequests(no_status, PodLevelStatus(true))), "cpu=6");
}

}  // namespace
}  // namespace ksched::api
