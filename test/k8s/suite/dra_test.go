package suite

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"ksched.dev/test/k8s/harness"
)

// Dynamic Resource Allocation on the real control plane: the tests publish
// ResourceSlices as a driver would (driver harness.GPUDriver, a pool per
// node), and the real resource-claim controller of kube-controller-manager
// creates claims from templates and deallocates claims whose pods are gone.
// Devices are allocated by the scheduler (its DynamicResources plugin) and
// written to the claims' status in PreBind.

// gpuClass is the DeviceClass of the GPU driver's devices.
const gpuClass = "gpu"

// deleteProtection is the finalizer the scheduler puts on a claim it
// allocates; the controller removes it once it deallocates the claim.
const deleteProtection = "resource.kubernetes.io/delete-protection"

// draPod is a pod of the shared profile using the named claim (template
// false) or a claim from the named template (template true) as "gpu".
func draPod(name, claimOrTemplate string, template bool) *corev1.Pod {
	return harness.WithClaim(harness.NewPod(name, "100m", "64Mi"), "gpu", claimOrTemplate, template)
}

// gpuClaim is a claim for `count` GPUs of the class (0: allocationMode All)
// matching every selector, as request "gpu".
func gpuClaim(name string, count int64, selectors ...string) *resourcev1.ResourceClaim {
	return harness.NewResourceClaim(name, harness.DeviceRequest("gpu", gpuClass, count, selectors...))
}

// a100Slice is the node's pool of `count` GPUs gpu-0, gpu-1, ... (model
// a100, 80Gi).
func a100Slice(node string, count int) *resourcev1.ResourceSlice {
	gpus := make([]resourcev1.Device, count)
	for i := range gpus {
		gpus[i] = harness.NewGPU(fmt.Sprintf("gpu-%d", i), "a100", "80Gi")
	}
	return harness.NewNodeSlice(harness.GPUDriver, node, gpus...)
}

// createNodesAndClass creates the named nodes (4 CPUs, 8Gi each) and the
// GPU DeviceClass.
func createNodesAndClass(e *harness.Env, nodes ...string) {
	e.T.Helper()
	for _, n := range nodes {
		e.Create(harness.NewNode(n, "4", "8Gi", nil))
	}
	e.Create(harness.NewDeviceClass(gpuClass, harness.GPUDriver))
}

// gpuDevice names a GPU as checkAllocation wants it.
func gpuDevice(node, device string) string {
	return "gpu=" + harness.GPUDriver + "/" + node + "/" + device
}

// checkAllocation fails the test unless the claim holds exactly `devices`
// ("request=driver/pool/device") on `node`.
func checkAllocation(e *harness.Env, c *resourcev1.ResourceClaim, node string, devices ...string) {
	e.T.Helper()
	if got := harness.AllocatedDevices(c); !reflect.DeepEqual(got, devices) {
		e.T.Errorf("claim %s: allocated %v, want %v", c.Name, got, devices)
	}
	if got := harness.AllocatedNode(c); got != node {
		e.T.Errorf("claim %s: allocation's node selector selects %q, want node %q", c.Name, got, node)
	}
	found := false
	for _, f := range c.Finalizers {
		found = found || f == deleteProtection
	}
	if !found {
		e.T.Errorf("claim %s: finalizers %v lack %s", c.Name, c.Finalizers, deleteProtection)
	}
}

// withPhase prefixes an outcome's keys, so a scenario can compare several
// moments of one run.
func withPhase(out, o harness.Outcome, phase string) {
	for k, v := range o {
		out[phase+":"+k] = v
	}
}

// twoBindThirdWaits runs a shape several DRA scenarios share on node-a:
// claims "first" and "second" (each made by newClaim, with a pod of the same
// name) are allocated and bound, one after the other; "third" then waits
// until the first pod is deleted and its claim deallocated, and is bound
// after. check is called on each claim once it is reserved. The outcome
// holds both phases.
//
// The second pod is created only once the first is bound: created together,
// either may be scheduled first (a pod whose claim the scheduler's informer
// has not seen yet waits in PreEnqueue), and which device each claim gets
// would then differ from run to run.
func twoBindThirdWaits(e *harness.Env, newClaim func(name string) *resourcev1.ResourceClaim,
	check func(c *resourcev1.ResourceClaim)) harness.Outcome {
	claims := map[string]string{}
	for _, name := range []string{"first", "second"} {
		e.Create(newClaim(name))
		e.Create(draPod(name, name, false))
		claims[name] = name
		e.WaitBound(60*time.Second, name)
		check(e.WaitClaimReserved(30*time.Second, name, name))
	}

	e.Create(newClaim("third"))
	e.Create(draPod("third", "third", false))
	claims["third"] = "third"
	e.WaitFailedScheduling(30*time.Second, "third")
	waiting := e.Outcome(time.Second)
	e.AddClaims(waiting, claims)

	e.DeletePodNow("first")
	e.WaitClaimDeallocated(60*time.Second, "first")
	e.WaitBound(60*time.Second, "third")
	check(e.WaitClaimReserved(30*time.Second, "third", "third"))
	after := e.Outcome(2*time.Second, "first")
	e.AddClaims(after, claims)
	out := harness.Outcome{}
	withPhase(out, waiting, "waiting")
	withPhase(out, after, "after")
	return out
}

// One GPU on node-b only (node-a publishes another driver's device): the
// pod's claim is allocated that GPU, its allocation selects node-b, it is
// reserved for the pod, and the pod is bound there.
func TestDRAClaimOnOnlyNodeWithDevice(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a", "node-b")
			e.Create(harness.NewNodeSlice("nic.example.com", "node-a", harness.NewGPU("nic-0", "", "")))
			e.Create(a100Slice("node-b", 1))
			e.Create(gpuClaim("gpu", 1))
			e.Create(draPod("app", "gpu", false))
			e.WaitBound(60*time.Second, "app")
			c := e.WaitClaimReserved(30*time.Second, "gpu", "app")
			checkAllocation(e, c, "node-b", gpuDevice("node-b", "gpu-0"))
			o := e.Outcome(2 * time.Second)
			if p := o["test/app"]; p.Node != "node-b" {
				e.T.Errorf("app: want node-b (the only node with a GPU), got %+v", p)
			}
			e.AddClaims(o, map[string]string{"gpu": "gpu"})
			return o
		},
	})
}

// Two claims for node-a's one GPU: the second pod waits (Unschedulable) while
// the first holds it; once the first pod is deleted the controller
// deallocates its claim and the second pod gets the GPU.
func TestDRASecondClaimWaitsForDevice(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a", "node-b")
			e.Create(a100Slice("node-a", 1))
			e.Create(gpuClaim("first", 1))
			e.Create(draPod("first", "first", false))
			e.WaitBound(60*time.Second, "first")
			e.WaitClaimReserved(30*time.Second, "first", "first")

			e.Create(gpuClaim("second", 1))
			e.Create(draPod("second", "second", false))
			e.WaitFailedScheduling(30*time.Second, "second")
			waiting := e.Outcome(time.Second)
			e.AddClaims(waiting, map[string]string{"first": "first", "second": "second"})
			if c := waiting["claim:test/second"]; c.Node != "" || c.ConditionMessage != "" {
				e.T.Errorf("claim second got an allocation while node-a's only GPU was taken: %+v", c)
			}

			e.DeletePodNow("first")
			e.WaitClaimDeallocated(60*time.Second, "first")
			e.WaitBound(60*time.Second, "second")
			c := e.WaitClaimReserved(30*time.Second, "second", "second")
			checkAllocation(e, c, "node-a", gpuDevice("node-a", "gpu-0"))
			after := e.Outcome(2*time.Second, "first")
			e.AddClaims(after, map[string]string{"first": "first", "second": "second"})
			if p := after["test/second"]; p.Node != "node-a" {
				e.T.Errorf("second: want node-a once the GPU was free, got %+v", p)
			}
			out := harness.Outcome{}
			withPhase(out, waiting, "waiting")
			withPhase(out, after, "after")
			return out
		},
	})
}

// A pod's claim from a ResourceClaimTemplate: the controller creates the
// claim (owned by the pod, named in the pod's status), the scheduler waits
// for it, allocates node-a's GPU and binds the pod there.
func TestDRATemplateClaim(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a", "node-b")
			e.Create(a100Slice("node-a", 1))
			e.Create(harness.NewResourceClaimTemplate("one-gpu", harness.DeviceRequest("gpu", gpuClass, 1)))
			e.Create(draPod("app", "one-gpu", true))
			e.WaitBound(60*time.Second, "app")
			name, err := e.GeneratedClaimName("app", "gpu")
			if err != nil || name == "" {
				e.T.Fatalf("app is bound but its status names no generated claim (err %v)", err)
			}
			c := e.WaitClaimReserved(30*time.Second, name, "app")
			checkAllocation(e, c, "node-a", gpuDevice("node-a", "gpu-0"))
			owned := false
			for _, ref := range c.OwnerReferences {
				owned = owned || (ref.Kind == "Pod" && ref.Name == "app" && ref.Controller != nil && *ref.Controller)
			}
			if !owned {
				e.T.Errorf("generated claim %s is not controlled by pod app: %+v", name, c.OwnerReferences)
			}
			o := e.Outcome(2 * time.Second)
			if p := o["test/app"]; p.Node != "node-a" {
				e.T.Errorf("app: want node-a (the only node with a GPU), got %+v", p)
			}
			e.AddClaims(o, map[string]string{"app/gpu": name})
			return o
		},
	})
}

// CEL selectors on a device attribute and a capacity pick the one node
// whose GPU matches both (node-a's is another model, node-c's has too
// little memory); a selector no device matches leaves its pod pending.
func TestDRASelectorOnAttribute(t *testing.T) {
	const (
		isH100 = `device.attributes["gpu.example.com"].model == "h100"`
		bigMem = `device.capacity["gpu.example.com"].memory.compareTo(quantity("64Gi")) >= 0`
		isB200 = `device.attributes["gpu.example.com"].model == "b200"`
	)
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a", "node-b", "node-c")
			for _, g := range []struct{ node, model, memory string }{
				{"node-a", "a100", "80Gi"}, {"node-b", "h100", "80Gi"}, {"node-c", "h100", "40Gi"},
			} {
				e.Create(harness.NewNodeSlice(harness.GPUDriver, g.node, harness.NewGPU("gpu-0", g.model, g.memory)))
			}
			e.Create(gpuClaim("h100", 1, isH100, bigMem))
			e.Create(gpuClaim("b200", 1, isB200))
			e.Create(draPod("app", "h100", false), draPod("nomatch", "b200", false))
			e.WaitBound(60*time.Second, "app")
			c := e.WaitClaimReserved(30*time.Second, "h100", "app")
			checkAllocation(e, c, "node-b", gpuDevice("node-b", "gpu-0"))
			e.WaitFailedScheduling(30*time.Second, "nomatch")
			o := e.Outcome(2 * time.Second)
			if p := o["test/app"]; p.Node != "node-b" {
				e.T.Errorf("app: want node-b (the only h100 with 64Gi or more), got %+v", p)
			}
			if p := o["test/nomatch"]; p.Node != "" {
				e.T.Errorf("nomatch: no device matches its selector, yet it was bound: %+v", p)
			}
			e.AddClaims(o, map[string]string{"h100": "h100", "b200": "b200"})
			return o
		},
	})
}

// allocationMode All takes every device of a pool, and only a pool none of
// whose matching devices is taken: with one of node-a's two GPUs held by
// pod one (pinned there by its node selector), the All claim gets node-b's
// three; a second All claim then finds no node.
func TestDRAAllocationModeAll(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a", "node-b")
			e.Create(a100Slice("node-a", 2), a100Slice("node-b", 3))
			e.Create(gpuClaim("one", 1))
			one := draPod("one", "one", false)
			one.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "node-a"}
			e.Create(one)
			e.WaitBound(60*time.Second, "one")
			e.WaitClaimReserved(30*time.Second, "one", "one")

			e.Create(gpuClaim("all", 0))
			e.Create(draPod("all", "all", false))
			e.WaitBound(60*time.Second, "all")
			c := e.WaitClaimReserved(30*time.Second, "all", "all")
			checkAllocation(e, c, "node-b", gpuDevice("node-b", "gpu-0"), gpuDevice("node-b", "gpu-1"),
				gpuDevice("node-b", "gpu-2"))

			e.Create(gpuClaim("all-2", 0))
			e.Create(draPod("all-2", "all-2", false))
			e.WaitFailedScheduling(30*time.Second, "all-2")
			o := e.Outcome(2 * time.Second)
			if p := o["test/all"]; p.Node != "node-b" {
				e.T.Errorf("all: want node-b (node-a's GPUs are not all free), got %+v", p)
			}
			e.AddClaims(o, map[string]string{"one": "one", "all": "all", "all-2": "all-2"})
			return o
		},
	})
}
