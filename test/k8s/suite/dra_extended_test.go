package suite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ksched.dev/test/k8s/harness"
)

// Extended resources backed by DRA (DRAExtendedResource, on from 1.36): a
// DeviceClass names an extended resource, a pod asks for it as for a
// device plugin's, and the scheduler serves it from ResourceSlices with a
// ResourceClaim it creates for the pod.

const extendedGPU = "example.com/gpu"

// extendedGPUPod asks for one example.com/gpu (and nothing else DRA).
func extendedGPUPod(name string) *corev1.Pod {
	p := harness.NewPod(name, "100m", "64Mi")
	c := &p.Spec.Containers[0]
	one := resource.MustParse("1")
	c.Resources.Requests[extendedGPU] = one
	c.Resources.Limits = corev1.ResourceList{extendedGPU: one}
	return p
}

// extendedClaimOf waits until the pod's status names its extended resource
// claim, checks the claim as kube-scheduler creates it, and returns it.
func extendedClaimOf(e *harness.Env, pod string) *resourcev1.ResourceClaim {
	e.T.Helper()
	var claim *resourcev1.ResourceClaim
	e.WaitFor("pod "+pod+" status.extendedResourceClaimStatus", 30*time.Second, func(context.Context) (bool, error) {
		p, err := e.Pod(pod)
		if err != nil || p.Status.ExtendedResourceClaimStatus == nil {
			return false, err
		}
		st := p.Status.ExtendedResourceClaimStatus
		want := []corev1.ContainerExtendedResourceRequest{{ContainerName: "c", ResourceName: extendedGPU,
			RequestName: "container-0-request-1"}}
		if fmt.Sprint(st.RequestMappings) != fmt.Sprint(want) {
			return false, fmt.Errorf("requestMappings %v, want %v", st.RequestMappings, want)
		}
		c, err := e.ResourceClaim(st.ResourceClaimName)
		if err != nil || c.Status.Allocation == nil || len(c.Status.ReservedFor) != 1 {
			return false, err
		}
		claim = c
		return true, nil
	})
	if !strings.HasPrefix(claim.Name, pod+"-extended-resources-") || claim.GenerateName != pod+"-extended-resources-" {
		e.T.Errorf("claim %s: generateName %q, want %s-extended-resources-", claim.Name, claim.GenerateName, pod)
	}
	if claim.Annotations[resourcev1.ExtendedResourceClaimAnnotation] != "true" {
		e.T.Errorf("claim %s: annotations %v lack %s=true", claim.Name, claim.Annotations,
			resourcev1.ExtendedResourceClaimAnnotation)
	}
	if refs := claim.OwnerReferences; len(refs) != 1 || refs[0].Kind != "Pod" || refs[0].Name != pod ||
		refs[0].Controller == nil || !*refs[0].Controller {
		e.T.Errorf("claim %s: ownerReferences %+v, want the pod %s as controller", claim.Name, refs, pod)
	}
	if r := claim.Spec.Devices.Requests; len(r) != 1 || r[0].Name != "container-0-request-1" || r[0].Exactly == nil ||
		r[0].Exactly.DeviceClassName != gpuClass || r[0].Exactly.Count != 1 {
		e.T.Errorf("claim %s: requests %+v, want container-0-request-1 for 1 device of class %s", claim.Name, r, gpuClass)
	}
	if got := claim.Status.ReservedFor[0].Name; got != pod {
		e.T.Errorf("claim %s: reserved for %s, want %s", claim.Name, got, pod)
	}
	return claim
}

// node-a publishes two GPUs through DRA and advertises no example.com/gpu
// in its allocatable; the GPU class names example.com/gpu. Two pods asking
// for one each are bound to node-a, each with the claim the scheduler
// created for it; a third waits.
func TestDRAExtendedResourceFromResourceSlice(t *testing.T) {
	skipBefore(t, 36, "extended resources backed by DRA are off")
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-a", "4", "8Gi", nil))
			class := harness.NewDeviceClass(gpuClass, harness.GPUDriver)
			name := extendedGPU
			class.Spec.ExtendedResourceName = &name
			e.Create(class)
			e.Create(a100Slice("node-a", 2))
			// The class must be in the scheduler's informer before the pods.
			time.Sleep(time.Second)
			e.Create(extendedGPUPod("first"), extendedGPUPod("second"))
			e.WaitBound(60*time.Second, "first", "second")
			devices := map[string]bool{}
			claims := map[string]string{}
			for _, pod := range []string{"first", "second"} {
				c := extendedClaimOf(e, pod)
				claims[pod] = c.Name
				got := harness.AllocatedDevices(c)
				if len(got) != 1 || harness.AllocatedNode(c) != "node-a" {
					e.T.Errorf("claim %s: allocated %v on %q, want one device of node-a", c.Name, got, harness.AllocatedNode(c))
				}
				for _, d := range got {
					devices[d] = true
				}
				found := false
				for _, f := range c.Finalizers {
					found = found || f == deleteProtection
				}
				if !found {
					e.T.Errorf("claim %s: finalizers %v lack %s", c.Name, c.Finalizers, deleteProtection)
				}
			}
			if len(devices) != 2 {
				e.T.Errorf("the two claims share a device: %v", devices)
			}
			e.Create(extendedGPUPod("third"))
			e.WaitFailedScheduling(30*time.Second, "third")
			o := e.Outcome(2 * time.Second)
			// The claims' names are generated: key them by pod. Which pod got
			// which GPU is the order the pods were scheduled in, not compared.
			for pod, c := range claims {
				got, err := e.ResourceClaim(c)
				if err != nil {
					e.T.Fatal(err)
				}
				co := harness.ClaimOutcome(got)
				co.ConditionMessage = fmt.Sprint(len(harness.AllocatedDevices(got)), " device(s)")
				o["claim:"+harness.Namespace+"/"+pod] = co
			}
			third, err := e.CS.ResourceV1().ResourceClaims(harness.Namespace).List(e.Ctx, metav1.ListOptions{})
			if err != nil {
				e.T.Fatal(err)
			}
			if n := len(third.Items); n != 2 {
				e.T.Errorf("%d claims in the namespace, want 2 (none for the waiting pod)", n)
			}
			return o
		},
	})
}
