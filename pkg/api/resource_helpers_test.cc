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

}  // namespace
}  // namespace ksched::api
