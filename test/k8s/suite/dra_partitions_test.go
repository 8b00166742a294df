package suite

import (
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ksched.dev/test/k8s/harness"
)

// Partitionable devices (on from 1.36): node-a's GPU publishes its memory
// as a counter set in a slice of its own, and its partitions consume it.

// gpuMemory is the counter set "gpu-0" of 80Gi memory, in node-a's pool.
func gpuMemory(node string) *resourcev1.ResourceSlice {
	n := node
	return &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-counters"},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   harness.GPUDriver,
			Pool:     resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 2},
			NodeName: &n,
			SharedCounters: []resourcev1.CounterSet{{Name: "gpu-0",
				Counters: map[string]resourcev1.Counter{"memory": {Value: resource.MustParse("80Gi")}}}},
		},
	}
}

// partition is a device of the GPU class that consumes `memory` of gpu-0.
func partition(name, memory string) resourcev1.Device {
	d := harness.NewGPU(name, "a100", memory)
	d.ConsumesCounters = []resourcev1.DeviceCounterConsumption{{CounterSet: "gpu-0",
		Counters: map[string]resourcev1.Counter{"memory": {Value: resource.MustParse(memory)}}}}
	return d
}

// Two halves of node-a's GPU go to two claims; a third claim then waits,
// though the whole-GPU partition is not allocated, because the halves have
// used up the memory they share with it. Deleting the first pod frees a
// half for the third.
func TestDRAPartitionsExhaustASharedCounter(t *testing.T) {
	skipBefore(t, 36, "partitionable devices are off")
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a")
			e.Create(gpuMemory("node-a"))
			partitions := harness.NewNodeSlice(harness.GPUDriver, "node-a",
				partition("half-0", "40Gi"), partition("half-1", "40Gi"), partition("whole", "80Gi"))
			partitions.Name = "node-a-partitions"
			partitions.Spec.Pool.ResourceSliceCount = 2
			e.Create(partitions)
			// The third claim gets the half the first pod freed.
			want := map[string]string{"first": "half-0", "second": "half-1", "third": "half-0"}
			return twoBindThirdWaits(e, func(name string) *resourcev1.ResourceClaim {
				return gpuClaim(name, 1)
			}, func(c *resourcev1.ResourceClaim) {
				checkAllocation(e, c, "node-a", gpuDevice("node-a", want[c.Name]))
			})
		},
	})
}
