package harness

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GPUDriver is the DRA driver whose devices scenarios publish. No driver
// runs: ResourceSlices are created by the test, as a driver's kubelet
// plugin would publish them.
const GPUDriver = "gpu.example.com"

// NewDeviceClass is a cluster-scoped DeviceClass selecting the driver's
// devices with a CEL expression.
func NewDeviceClass(name, driver string) *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", driver)},
		}}},
	}
}

// NewGPU is a device with a string attribute "model" and a capacity
// "memory" in the GPUDriver's domain ("" leaves either out).
func NewGPU(name, model, memory string) resourcev1.Device {
	d := resourcev1.Device{Name: name}
	if model != "" {
		d.Attributes = map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
			GPUDriver + "/model": {StringValue: &model},
		}
	}
	if memory != "" {
		d.Capacity = map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{
			GPUDriver + "/memory": {Value: resource.MustParse(memory)},
		}
	}
	return d
}

// NewNodeSlice is the one ResourceSlice of the driver's pool for a node: the
// pool is named after the node, generation 1, complete in one slice.
func NewNodeSlice(driver, node string, devices ...resourcev1.Device) *resourcev1.ResourceSlice {
	n := node
	if devices == nil {
		devices = []resourcev1.Device{}
	}
	return &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-" + strings.ReplaceAll(driver, ".", "-")},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   driver,
			Pool:     resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
			NodeName: &n,
			Devices:  devices,
		},
	}
}

// DeviceRequest is one request "name" of `count` devices (0: all matching
// devices, allocationMode All) of the class, with CEL selectors.
func DeviceRequest(name, class string, count int64, selectors ...string) resourcev1.DeviceRequest {
	exact := &resourcev1.ExactDeviceRequest{DeviceClassName: class}
	if count == 0 {
		exact.AllocationMode = resourcev1.DeviceAllocationModeAll
	} else {
		exact.AllocationMode = resourcev1.DeviceAllocationModeExactCount
		exact.Count = count
	}
	for _, s := range selectors {
		exact.Selectors = append(exact.Selectors, resourcev1.DeviceSelector{CEL: &resourcev1.CELDeviceSelector{Expression: s}})
	}
	return resourcev1.DeviceRequest{Name: name, Exactly: exact}
}

// NewResourceClaim is a claim of the scenario namespace with the requests.
func NewResourceClaim(name string, requests ...resourcev1.DeviceRequest) *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace},
		Spec:       resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: requests}},
	}
}

// NewResourceClaimTemplate is a template of the scenario namespace whose
// claims have the requests.
func NewResourceClaimTemplate(name string, requests ...resourcev1.DeviceRequest) *resourcev1.ResourceClaimTemplate {
	return &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace},
		Spec: resourcev1.ResourceClaimTemplateSpec{
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: requests}},
		},
	}
}

// WithClaim adds a pod resource claim "ref" naming an existing claim
// (template false) or a template (template true), used by the container.
func WithClaim(pod *corev1.Pod, ref, name string, template bool) *corev1.Pod {
	pc := corev1.PodResourceClaim{Name: ref}
	if template {
		pc.ResourceClaimTemplateName = &name
	} else {
		pc.ResourceClaimName = &name
	}
	pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, pc)
	c := &pod.Spec.Containers[0]
	c.Resources.Claims = append(c.Resources.Claims, corev1.ResourceClaim{Name: ref})
	return pod
}

// ResourceClaim reads a claim of the scenario namespace.
func (e *Env) ResourceClaim(name string) (*resourcev1.ResourceClaim, error) {
	return e.CS.ResourceV1().ResourceClaims(Namespace).Get(e.Ctx, name, metav1.GetOptions{})
}

// GeneratedClaimName is the name of the claim the resource-claim controller
// created for the pod's claim `ref` from a template ("" until the pod's
// status records it).
func (e *Env) GeneratedClaimName(pod, ref string) (string, error) {
	p, err := e.Pod(pod)
	if err != nil {
		return "", err
	}
	for _, s := range p.Status.ResourceClaimStatuses {
		if s.Name == ref && s.ResourceClaimName != nil {
			return *s.ResourceClaimName, nil
		}
	}
	return "", nil
}

// WaitClaimReserved waits until the claim is allocated and reserved for
// exactly the named pods.
func (e *Env) WaitClaimReserved(timeout time.Duration, claim string, pods ...string) *resourcev1.ResourceClaim {
	e.T.Helper()
	var got *resourcev1.ResourceClaim
	e.WaitFor(fmt.Sprintf("claim %s allocated and reserved for %v", claim, pods), timeout, func(context.Context) (bool, error) {
		c, err := e.ResourceClaim(claim)
		if err != nil {
			return false, err
		}
		got = c
		return c.Status.Allocation != nil && strings.Join(reservedNames(c), ",") == strings.Join(sorted(pods), ","), nil
	})
	return got
}

// WaitClaimDeallocated waits until the claim has neither an allocation nor
// a reservation (what the resource-claim controller does once its last
// consumer is gone).
func (e *Env) WaitClaimDeallocated(timeout time.Duration, claim string) {
	e.T.Helper()
	e.WaitFor("claim "+claim+" deallocated", timeout, func(context.Context) (bool, error) {
		c, err := e.ResourceClaim(claim)
		if err != nil {
			return false, err
		}
		return c.Status.Allocation == nil && len(c.Status.ReservedFor) == 0, nil
	})
}

// DeletePodNow deletes a pod with grace period 0: with no kubelet, nothing
// else would end it.
func (e *Env) DeletePodNow(name string) {
	e.T.Helper()
	zero := int64(0)
	err := e.CS.CoreV1().Pods(Namespace).Delete(e.Ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if err != nil && !apierrors.IsNotFound(err) {
		e.T.Fatalf("deleting pod %s: %v", name, err)
	}
}

// AllocatedDevices lists the claim's allocation results as
// "request=driver/pool/device", sorted.
func AllocatedDevices(c *resourcev1.ResourceClaim) []string {
	if c.Status.Allocation == nil {
		return nil
	}
	var out []string
	for _, r := range c.Status.Allocation.Devices.Results {
		out = append(out, fmt.Sprintf("%s=%s/%s/%s", r.Request, r.Driver, r.Pool, r.Device))
	}
	sort.Strings(out)
	return out
}

// AllocatedNode is the node the claim's allocation is restricted to when
// its node selector is the single-node form the allocator writes for a
// node-local pool (matchFields metadata.name In [node]); otherwise the
// selector printed.
func AllocatedNode(c *resourcev1.ResourceClaim) string {
	if c.Status.Allocation == nil || c.Status.Allocation.NodeSelector == nil {
		return ""
	}
	terms := c.Status.Allocation.NodeSelector.NodeSelectorTerms
	if len(terms) == 1 && len(terms[0].MatchExpressions) == 0 && len(terms[0].MatchFields) == 1 {
		f := terms[0].MatchFields[0]
		if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
			return f.Values[0]
		}
	}
	return c.Status.Allocation.NodeSelector.String()
}

// ClaimOutcome is the claim's state in the fields the schedulers are
// compared by, under the key "claim:<namespace>/<key>": Node is the node
// its allocation selects, ConditionMessage the devices allocated and
// OtherEvents the pods it is reserved for. Exists is false for a claim that
// is gone.
func ClaimOutcome(c *resourcev1.ResourceClaim) PodOutcome {
	if c == nil {
		return PodOutcome{}
	}
	return PodOutcome{
		Exists:           true,
		Node:             AllocatedNode(c),
		ConditionMessage: strings.Join(AllocatedDevices(c), " "),
		OtherEvents:      reservedNames(c),
	}
}

// AddClaims reads the named claims into the outcome: key is what the
// outcome calls the claim (stable across runs; a generated claim's name is
// not), value its current name ("" for none).
func (e *Env) AddClaims(o Outcome, claims map[string]string) {
	e.T.Helper()
	for key, name := range claims {
		var c *resourcev1.ResourceClaim
		if name != "" {
			got, err := e.ResourceClaim(name)
			if err != nil && !apierrors.IsNotFound(err) {
				e.T.Fatal(err)
			}
			if err == nil {
				c = got
			}
		}
		o["claim:"+Namespace+"/"+key] = ClaimOutcome(c)
	}
}

func reservedNames(c *resourcev1.ResourceClaim) []string {
	var out []string
	for _, r := range c.Status.ReservedFor {
		out = append(out, r.Resource+"/"+r.Name)
	}
	sort.Strings(out)
	return out
}

func sorted(pods []string) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, "pods/"+p)
	}
	sort.Strings(out)
	return out
}
