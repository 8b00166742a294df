package suite

import (
	"testing"
	"time"

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
			claims := map[string]string{}
			for _, name := range []string{"first", "second"} {
				e.Create(gpuClaim(name, 1))
				e.Create(draPod(name, name, false))
				claims[name] = name
			}
			e.WaitBound(60*time.Second, "first", "second")
			c := e.WaitClaimReserved(30*time.Second, "first", "first")
			checkAllocation(e, c, "node-a", gpuDevice("node-a", "half-0"))
			c = e.WaitClaimReserved(30*time.Second, "second", "second")
			checkAllocation(e, c, "node-a", gpuDevice("node-a", "half-1"))

			e.Create(gpuClaim("third", 1))
			e.Create(draPod("third", "third", false))
			claims["third"] = "third"
			e.WaitFailedScheduling(30*time.Second, "third")
			waiting := e.Outcome(time.Second)
			e.AddClaims(waiting, claims)

			e.DeletePodNow("first")
			e.WaitClaimDeallocated(60*time.Second, "first")
			e.WaitBound(60*time.Second, "third")
			c = e.WaitClaimReserved(30*time.Second, "third", "third")
			checkAllocation(e, c, "node-a", gpuDevice("node-a", "half-0"))
			after := e.Outcome(2*time.Second, "first")
			e.AddClaims(after, claims)
			out := harness.Outcome{}
			withPhase(out, waiting, "waiting")
			withPhase(out, after, "after")
			return out
		},
	})
}
