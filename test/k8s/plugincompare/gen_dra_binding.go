package plugincompare

import (
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Binding conditions, drawn after every other DRA draw: in some cases
// devices are attached only once the scheduler has picked them, so they
// carry bindingConditions ("attached") and bindingFailureConditions
// ("attach-failed"); devices shared by capacity never do. A claim already
// allocated such a device reports, per device, the condition True, the
// failure True, or nothing since long before any binding timeout: a
// pending pod that shares a claim whose binding failed or timed out finds
// it unavailable on every node (1.36 on; 1.35 does not read them, and
// takes no device that has them), and so does a pending pod whose own claim
// an earlier attempt allocated such a GPU before its binding failed or
// timed out (or held: then the claim keeps the pod to that GPU's node). The oracle's driver attaches the devices
// of every allocation the oracle makes at once (kubeexplain), as ksched
// simulate takes them as met.

const (
	bindingCondition        = "attached"
	bindingFailureCondition = "attach-failed"
)

// longAgo is an allocation time beyond every binding timeout, in every run.
var longAgo = metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))

func (d *draGen) bindingConditions() {
	if !d.chance(0.3) {
		return
	}
	attached := map[string]bool{} // "driver/pool/device"
	for _, s := range d.c.ResourceSlices {
		for i := range s.Spec.Devices {
			dev := &s.Spec.Devices[i]
			if dev.AllowMultipleAllocations != nil && *dev.AllowMultipleAllocations || !d.chance(0.3) {
				continue
			}
			dev.BindingConditions = []string{bindingCondition}
			dev.BindingFailureConditions = []string{bindingFailureCondition}
			attached[s.Spec.Driver+"/"+s.Spec.Pool.Name+"/"+dev.Name] = true
		}
	}
	d.earlierAttempts(attached)
	for _, c := range d.c.ResourceClaims {
		a := c.Status.Allocation
		if a == nil {
			continue
		}
		for i := range a.Devices.Results {
			r := &a.Devices.Results[i]
			if !attached[r.Driver+"/"+r.Pool+"/"+r.Device] {
				continue
			}
			r.BindingConditions = []string{bindingCondition}
			r.BindingFailureConditions = []string{bindingFailureCondition}
			a.AllocationTimestamp = &longAgo
			state := d.pick(bindingCondition, bindingCondition, bindingFailureCondition, "")
			if state == "" {
				continue // waiting since longAgo: timed out
			}
			c.Status.Devices = append(c.Status.Devices, resourceapi.AllocatedDeviceStatus{
				Driver: r.Driver, Pool: r.Pool, Device: r.Device,
				Conditions: []metav1.Condition{{Type: state, Status: metav1.ConditionTrue, Reason: "Driver",
					LastTransitionTime: longAgo}}})
		}
	}
}

// earlierAttempts allocates some pending pods' own single-GPU claims one
// of the GPUs in `attached`, as an earlier attempt whose binding then did
// not complete would have left them: allocated, reserved for nobody.
func (d *draGen) earlierAttempts(attached map[string]bool) {
	var gpus []string // "pool/device"
	for key := range attached {
		if gpu, ok := strings.CutPrefix(key, gpuDriver+"/"); ok {
			gpus = append(gpus, gpu)
		}
	}
	if len(gpus) == 0 {
		return
	}
	sort.Strings(gpus)
	claims := map[string]*resourceapi.ResourceClaim{}
	for _, c := range d.c.ResourceClaims {
		claims[c.Namespace+"/"+c.Name] = c
	}
	for _, p := range d.c.Pods {
		if p.Spec.NodeName != "" {
			continue
		}
		for _, pc := range p.Spec.ResourceClaims {
			if pc.ResourceClaimName == nil || !d.chance(0.5) {
				continue
			}
			c := claims[p.Namespace+"/"+*pc.ResourceClaimName]
			if c == nil || c.Status.Allocation != nil || len(c.Spec.Devices.Requests) != 1 {
				continue
			}
			r := c.Spec.Devices.Requests[0]
			if r.Exactly == nil || r.Exactly.DeviceClassName != "gpu" ||
				r.Exactly.AllocationMode != resourceapi.DeviceAllocationModeExactCount || r.Exactly.Count != 1 {
				continue
			}
			pool, dev, _ := strings.Cut(d.pick(gpus...), "/")
			c.Status.Allocation = &resourceapi.AllocationResult{
				Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
					Request: r.Name, Driver: gpuDriver, Pool: pool, Device: dev}}},
				// GPU pools are named after their node.
				NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
					MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn,
						Values: []string{pool}}}}}},
			}
			c.Finalizers = []string{"resource.kubernetes.io/delete-protection"}
		}
	}
}
