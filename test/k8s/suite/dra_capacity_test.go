package suite

import (
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"ksched.dev/test/k8s/harness"
)

// Consumable capacity (on from 1.36): node-a's one GPU allows multiple
// allocations and shares its 80Gi of memory among the claims that ask for
// part of it.

// memoryClaim asks for one GPU share with `memory` of it.
func memoryClaim(name, memory string) *resourcev1.ResourceClaim {
	req := harness.DeviceRequest("gpu", gpuClass, 1)
	req.Exactly.Capacity = &resourcev1.CapacityRequirements{Requests: map[resourcev1.QualifiedName]resource.Quantity{
		harness.GPUDriver + "/memory": resource.MustParse(memory)}}
	return harness.NewResourceClaim(name, req)
}

// checkShare fails the test unless the claim's one result is a share
// (a shareID) consuming `memory`.
func checkShare(e *harness.Env, c *resourcev1.ResourceClaim, memory string) {
	e.T.Helper()
	if c.Status.Allocation == nil || len(c.Status.Allocation.Devices.Results) != 1 {
		e.T.Errorf("claim %s: allocation %v, want one result", c.Name, c.Status.Allocation)
		return
	}
	r := c.Status.Allocation.Devices.Results[0]
	if r.ShareID == nil || *r.ShareID == "" {
		e.T.Errorf("claim %s: result without a shareID", c.Name)
	}
	got := r.ConsumedCapacity[harness.GPUDriver+"/memory"]
	if got.Cmp(resource.MustParse(memory)) != 0 {
		e.T.Errorf("claim %s: consumed memory %s, want %s", c.Name, got.String(), memory)
	}
}

// Two claims of 30Gi share the GPU; a third of 30Gi waits, since 20Gi is
// left; deleting the first pod frees its share for the third.
func TestDRASharedDeviceByCapacity(t *testing.T) {
	skipBefore(t, 36, "consumable capacity is off")
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a")
			gpu := harness.NewGPU("shared", "a100", "80Gi")
			multi := true
			gpu.AllowMultipleAllocations = &multi
			e.Create(harness.NewNodeSlice(harness.GPUDriver, "node-a", gpu))
			return twoBindThirdWaits(e, func(name string) *resourcev1.ResourceClaim {
				return memoryClaim(name, "30Gi")
			}, func(c *resourcev1.ResourceClaim) {
				checkAllocation(e, c, "node-a", gpuDevice("node-a", "shared"))
				checkShare(e, c, "30Gi")
			})
		},
	})
}
