package suite

import (
	"testing"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ksched.dev/test/k8s/harness"
)

// Device taints (on from 1.36, GA in 1.37) and DeviceTaintRules (on from
// 1.37). Before those minors the API server drops the fields and does not
// serve the rules, so the scenarios skip.

const brokenTaint = "example.com/broken"

// skipBefore skips the test on components older than 1.m.
func skipBefore(t *testing.T, m int, why string) {
	t.Helper()
	ok, err := harness.K8sMinorAtLeast(m)
	if err != nil {
		t.Fatalf("components' minor: %v", err)
	}
	if !ok {
		t.Skipf("%s before Kubernetes 1.%d", why, m)
	}
}

// taintedGPU is an a100 GPU with a NoSchedule taint `key`.
func taintedGPU(name, key string) resourcev1.Device {
	d := harness.NewGPU(name, "a100", "80Gi")
	d.Taints = []resourcev1.DeviceTaint{{Key: key, Effect: resourcev1.DeviceTaintEffectNoSchedule}}
	return d
}

// tolerantClaim is gpuClaim(name, 1) whose request tolerates taints `key`.
func tolerantClaim(name, key string) *resourcev1.ResourceClaim {
	c := gpuClaim(name, 1)
	c.Spec.Devices.Requests[0].Exactly.Tolerations = []resourcev1.DeviceToleration{
		{Key: key, Operator: resourcev1.DeviceTolerationOpExists}}
	return c
}

// node-a's only GPU is tainted by its driver: a plain claim gets node-b's,
// and a claim tolerating the taint gets node-a's, its allocation recording
// the toleration.
func TestDRATaintedDeviceNeedsToleration(t *testing.T) {
	skipBefore(t, 36, "device taints are off")
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a", "node-b")
			e.Create(harness.NewNodeSlice(harness.GPUDriver, "node-a", taintedGPU("gpu-0", brokenTaint)))
			e.Create(a100Slice("node-b", 1))
			e.Create(gpuClaim("plain", 1))
			e.Create(draPod("plain", "plain", false))
			e.WaitBound(60*time.Second, "plain")
			c := e.WaitClaimReserved(30*time.Second, "plain", "plain")
			checkAllocation(e, c, "node-b", gpuDevice("node-b", "gpu-0"))

			e.Create(tolerantClaim("tolerant", brokenTaint))
			e.Create(draPod("tolerant", "tolerant", false))
			e.WaitBound(60*time.Second, "tolerant")
			c = e.WaitClaimReserved(30*time.Second, "tolerant", "tolerant")
			checkAllocation(e, c, "node-a", gpuDevice("node-a", "gpu-0"))
			if r := c.Status.Allocation.Devices.Results; len(r) != 1 || len(r[0].Tolerations) != 1 || r[0].Tolerations[0].Key != brokenTaint {
				e.T.Errorf("claim tolerant: allocation results %+v do not record the request's toleration", r)
			}
			o := e.Outcome(2 * time.Second)
			e.AddClaims(o, map[string]string{"plain": "plain", "tolerant": "tolerant"})
			return o
		},
	})
}

// A DeviceTaintRule taints node-a's whole GPU pool: a claim gets node-b's
// GPU, a second waits; deleting the rule (a ResourceSlice update for the
// queue) lets the second take one of node-a's.
func TestDRADeviceTaintRuleTaintsAPool(t *testing.T) {
	skipBefore(t, 37, "DeviceTaintRules are off")
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a", "node-b")
			e.Create(a100Slice("node-a", 2))
			e.Create(a100Slice("node-b", 1))
			driver, pool := harness.GPUDriver, "node-a"
			rule := &resourcev1.DeviceTaintRule{
				ObjectMeta: metav1.ObjectMeta{Name: "node-a-maintenance"},
				Spec: resourcev1.DeviceTaintRuleSpec{
					DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: &driver, Pool: &pool},
					Taint:          resourcev1.DeviceTaint{Key: "example.com/maintenance", Effect: resourcev1.DeviceTaintEffectNoSchedule},
				},
			}
			// Not through e.Create: the harness also builds against releases without v1 rules.
			if _, err := e.CS.ResourceV1().DeviceTaintRules().Create(e.Ctx, rule, metav1.CreateOptions{}); err != nil {
				e.T.Fatalf("creating the DeviceTaintRule: %v", err)
			}
			e.Create(gpuClaim("first", 1))
			e.Create(draPod("first", "first", false))
			e.WaitBound(60*time.Second, "first")
			c := e.WaitClaimReserved(30*time.Second, "first", "first")
			checkAllocation(e, c, "node-b", gpuDevice("node-b", "gpu-0"))

			e.Create(gpuClaim("second", 1))
			e.Create(draPod("second", "second", false))
			e.WaitFailedScheduling(30*time.Second, "second")
			waiting := e.Outcome(time.Second)
			e.AddClaims(waiting, map[string]string{"first": "first", "second": "second"})

			if err := e.CS.ResourceV1().DeviceTaintRules().Delete(e.Ctx, "node-a-maintenance", metav1.DeleteOptions{}); err != nil {
				e.T.Fatalf("deleting the DeviceTaintRule: %v", err)
			}
			e.WaitBound(60*time.Second, "second")
			c = e.WaitClaimReserved(30*time.Second, "second", "second")
			if got := harness.AllocatedNode(c); got != "node-a" {
				e.T.Errorf("claim second: allocated on %q, want node-a once the rule is gone", got)
			}
			after := e.Outcome(2 * time.Second)
			e.AddClaims(after, map[string]string{"first": "first", "second": "second"})
			out := harness.Outcome{}
			withPhase(out, waiting, "waiting")
			withPhase(out, after, "after")
			return out
		},
	})
}
