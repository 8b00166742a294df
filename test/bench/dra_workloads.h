// ksched's built-in DRA workloads: the fixtures hold none of kube's DRA
// scheduler_perf configs, so SchedulingWithResourceClaimTemplate is built
// here, with the objects test/k8s/draperf creates on the real control
// plane (kube's test case of that name):
//   - createNodes: `nodes` of scheduler_perf's base node, named
//     scheduler-perf-dra-<i> (generateName + the runner's counter), labelled
//     node-with-dra=true;
//   - createAny: DeviceClass test-class, selecting driver
//     test-driver.cdi.k8s.io by CEL;
//   - createAny: per node i a ResourceSlice resourceslice-<i> on that node,
//     a pool of its own, 10 devices with the attributes and capacities of
//     kube's resourceslice-basic-devices;
//   - createAny + allocResourceClaims: `init_claims` claims init-<i> in
//     namespace "init" (one device of test-class each), allocated
//     round-robin over the nodes;
//   - createAny: ResourceClaimTemplate test-claim-template in namespace
//     "test";
//   - createPods (measured): `pods` pods (100m, 500Mi) in "test", each with
//     one claim from the template. In kube the resourceclaim controller
//     makes each pod's claim; here the runner does before the pods exist
//     (Op::claims_from_templates) and the pod names it by
//     resourceClaimName, so the measured phase is the scheduler's alone.
// The sizes are kube's and draperf's (nodes, init claims, measured pods):
// fast (1, 0, 10), 2000pods_200nodes (200, 1000, 1000: every device taken
// at the end), 5000pods_500nodes (500, 2500, 2500). They run in process
// only: the other clusters do not create DRA objects.
//
// Value functions; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "test/bench/workload.h"

namespace ksched::bench {

inline constexpr char kDraTestCase[] = "SchedulingWithResourceClaimTemplate";

// The workload above at any size, named kDraTestCase + "/" + name.
Workload DraWorkload(const std::string& name, int64_t nodes, int64_t init_claims, int64_t pods);

// Every built-in size.
std::vector<Workload> DraWorkloads();

}  // namespace ksched::bench
