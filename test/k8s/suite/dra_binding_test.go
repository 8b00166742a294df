package suite

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"ksched.dev/test/k8s/harness"
)

// Binding conditions (on from 1.36): node-a's GPU must be attached before
// a pod using it may bind. The scheduler allocates it and then waits in
// PreBind; the test plays the driver's controller, reporting the device's
// conditions in the claim's status.devices.

const (
	attachedCondition     = "Attached"
	attachFailedCondition = "AttachFailed"
)

// attachableGPU is an a100 GPU that binds only once "Attached" is True and
// gives up once "AttachFailed" is.
func attachableGPU(name string) resourcev1.Device {
	d := harness.NewGPU(name, "a100", "80Gi")
	d.BindingConditions = []string{attachedCondition}
	d.BindingFailureConditions = []string{attachFailedCondition}
	return d
}

// reportDeviceCondition sets condition `cond` True on node-a's allocated
// `device` in the claim's status, as the driver's controller would.
func reportDeviceCondition(e *harness.Env, claim, device, cond string) {
	e.T.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c, err := e.ResourceClaim(claim)
		if err != nil {
			return err
		}
		c.Status.Devices = []resourcev1.AllocatedDeviceStatus{{
			Driver: harness.GPUDriver, Pool: "node-a", Device: device,
			Conditions: []metav1.Condition{{Type: cond, Status: metav1.ConditionTrue, Reason: cond,
				Message: "reported by the test", LastTransitionTime: metav1.Now()}},
		}}
		_, err = e.CS.ResourceV1().ResourceClaims(harness.Namespace).UpdateStatus(e.Ctx, c, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		e.T.Fatalf("reporting %s on claim %s: %v", cond, claim, err)
	}
}

// checkWaiting fails the test unless the claim's allocation carries the
// device's conditions and a timestamp, and the pod is not bound yet but
// nominated to node-a (NominatedNodeNameForExpectation: PreBind has work).
func checkWaiting(e *harness.Env, c *resourcev1.ResourceClaim, pod string) {
	e.T.Helper()
	checkAllocation(e, c, "node-a", gpuDevice("node-a", "gpu-0"))
	r := c.Status.Allocation.Devices.Results
	if len(r) != 1 || !reflect.DeepEqual(r[0].BindingConditions, []string{attachedCondition}) ||
		!reflect.DeepEqual(r[0].BindingFailureConditions, []string{attachFailedCondition}) {
		e.T.Errorf("claim %s: results %+v lack the device's binding conditions", c.Name, r)
	}
	if c.Status.Allocation.AllocationTimestamp == nil {
		e.T.Errorf("claim %s: no allocationTimestamp", c.Name)
	}
	e.WaitFor("pod "+pod+" nominated to node-a", 30*time.Second, func(context.Context) (bool, error) {
		p, err := e.Pod(pod)
		return err == nil && p.Status.NominatedNodeName == "node-a", err
	})
	p, err := e.Pod(pod)
	if err != nil {
		e.T.Fatal(err)
	}
	if p.Spec.NodeName != "" {
		e.T.Errorf("pod %s bound to %s before its device was attached", pod, p.Spec.NodeName)
	}
}

// The device is attached a while after the allocation: the pod binds then.
func TestDRABindingConditionHoldsLate(t *testing.T) {
	skipBefore(t, 36, "binding conditions are off")
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a")
			e.Create(harness.NewNodeSlice(harness.GPUDriver, "node-a", attachableGPU("gpu-0")))
			e.Create(gpuClaim("late", 1))
			e.Create(draPod("late", "late", false))
			c := e.WaitClaimReserved(60*time.Second, "late", "late")
			time.Sleep(2 * time.Second)
			checkWaiting(e, c, "late")
			reportDeviceCondition(e, "late", "gpu-0", attachedCondition)
			e.WaitBound(60*time.Second, "late")
			o := e.Outcome(2 * time.Second)
			e.AddClaims(o, map[string]string{"late": "late"})
			return o
		},
	})
}

// The attachment fails: the pod is not bound; the scheduler gives the
// reservation up, the retry deallocates the claim, and the one after
// allocates it afresh and waits again.
func TestDRABindingConditionFails(t *testing.T) {
	skipBefore(t, 36, "binding conditions are off")
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			createNodesAndClass(e, "node-a")
			e.Create(harness.NewNodeSlice(harness.GPUDriver, "node-a", attachableGPU("gpu-0")))
			e.Create(gpuClaim("doomed", 1))
			e.Create(draPod("doomed", "doomed", false))
			c := e.WaitClaimReserved(60*time.Second, "doomed", "doomed")
			checkWaiting(e, c, "doomed")
			reportDeviceCondition(e, "doomed", "gpu-0", attachFailedCondition)
			e.WaitFailedScheduling(60*time.Second, "doomed")
			e.WaitFor("claim doomed allocated afresh", 60*time.Second, func(context.Context) (bool, error) {
				c, err := e.ResourceClaim("doomed")
				if err != nil {
					return false, err
				}
				reserved := len(c.Status.ReservedFor) == 1 && c.Status.ReservedFor[0].Name == "doomed"
				return c.Status.Allocation != nil && len(c.Status.Devices) == 0 && reserved, nil
			})
			o := e.Outcome(2*time.Second, "doomed")
			if got := o[harness.Namespace+"/doomed"]; got.Node != "" ||
				!strings.Contains(strings.Join(got.FailedScheduling, "\n"), "device binding failed") {
				e.T.Errorf("pod doomed: %+v, want unbound with a \"device binding failed\" FailedScheduling event", got)
			}
			e.AddClaims(o, map[string]string{"doomed": "doomed"})
			return o
		},
	})
}

// From 1.36 a pod whose binding cycle waits in PreBind (here for its
// device's binding condition) is stopped there when preemption picks it as
// a victim: its wait ends at once, it is not bound, and its Preempted event
// says this happened in the scheduler's memory. What follows depends on
// timing in both schedulers, so it is not compared: the preemptor, activated
// at once, may try again after the victim left PreBind but before its
// failure was handled, find it still on the node and delete it through the
// API; kube-scheduler 1.37 does so here nearly always, and then leaves the
// preemptor unschedulable until the leftover flush (docs/conformance.md),
// where ksched binds it.
func TestPreemptionCancelsAPodWaitingInPreBind(t *testing.T) {
	skipBefore(t, 36, "binding conditions are off and pods in PreBind are not cancelled")
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewPriorityClass("low", 100), harness.NewPriorityClass("high", 1000))
			createNodesAndClass(e, "node-a")
			e.Create(harness.NewNodeSlice(harness.GPUDriver, "node-a", attachableGPU("gpu-0")))
			e.Create(gpuClaim("waiting", 1))
			w := harness.WithClaim(harness.NewPod("waiting", "3", "64Mi"), "gpu", "waiting", false)
			w.Spec.PriorityClassName = "low"
			e.Create(w)
			c := e.WaitClaimReserved(60*time.Second, "waiting", "waiting")
			checkWaiting(e, c, "waiting")

			urgent := harness.NewPod("urgent", "3", "64Mi")
			urgent.Spec.PriorityClassName = "high"
			e.Create(urgent)
			e.WaitFor("an in-memory Preempted event for pod waiting", 60*time.Second, func(ctx context.Context) (bool, error) {
				events, err := e.CS.CoreV1().Events(harness.Namespace).List(ctx, metav1.ListOptions{})
				if err != nil {
					return false, err
				}
				for _, ev := range events.Items {
					if ev.Reason == "Preempted" && ev.InvolvedObject.Name == "waiting" &&
						strings.HasSuffix(ev.Message, "(in kube-scheduler memory).") {
						return true, nil
					}
				}
				return false, nil
			})
			o := e.Outcome(3*time.Second, "waiting")
			if got := o[harness.Namespace+"/waiting"]; got.Node != "" {
				e.T.Errorf("pod waiting: %+v, want it unbound", got)
			}
			return harness.Outcome{}
		},
	})
}
