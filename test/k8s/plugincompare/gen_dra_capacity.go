package plugincompare

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Consumable capacity: devices that allow multiple allocations, with
// memory (and sometimes bandwidth) capacity under a request policy (none,
// a default, a valid range with a step, valid values), in a pool per node
// ("<node>-share"); claims of bound pods already holding shares of them
// (sometimes more than is left, sometimes a whole device without a
// shareID); pending pods' claims whose requests ask for capacity (rounded
// up by the policy, over the range's max, of a capacity no device has),
// take All shared devices, choose among subrequests with capacity, or
// spread over distinct NUMA nodes (distinctAttribute). Drawn after every
// other DRA draw, so earlier seeds' other objects stay as they were. At
// 1.35, where the gate is off, kube ignores the capacity fields and every
// device is exclusive; ksched must too.

const shareDriver = "share.example.com"

// shareCapacity is a capacity of a shared device: its value and a policy.
func (d *draGen) shareCapacity(values []string, unit string) resourceapi.DeviceCapacity {
	q := func(n int) *resource.Quantity { v := resource.MustParse(fmt.Sprintf("%d%s", n, unit)); return &v }
	value := d.pick(values...)
	c := resourceapi.DeviceCapacity{Value: resource.MustParse(value)}
	switch d.pick1(0, 1, 2, 3) {
	case 1:
		c.RequestPolicy = &resourceapi.CapacityRequestPolicy{Default: q(d.pick1(1, 2))}
	case 2:
		step := d.pick1(1, 2)
		r := &resourceapi.CapacityRequestPolicyRange{Min: q(1), Step: q(step)}
		if d.chance(0.5) {
			r.Max = q(1 + step*d.pick1(1, 2, 3))
		}
		c.RequestPolicy = &resourceapi.CapacityRequestPolicy{ValidRange: r}
		if d.chance(0.5) {
			c.RequestPolicy.Default = q(1)
		}
	case 3:
		c.RequestPolicy = &resourceapi.CapacityRequestPolicy{ValidValues: []resource.Quantity{*q(1), *q(2), *q(4), *q(8)}}
		if d.chance(0.5) {
			c.RequestPolicy.Default = q(2)
		}
	}
	return c
}

// shareSlices publishes node n's shared devices.
func (d *draGen) shareSlices(n *v1.Node) {
	if !d.chance(0.4) {
		return
	}
	node, pool := n.Name, n.Name+"-share"
	var devices []resourceapi.Device
	for i, k := 0, d.between(1, 3); i < k; i++ {
		numa, idx := int64(i%2), int64(i)
		dev := resourceapi.Device{
			Name: fmt.Sprintf("s%d", i),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				shareDriver + "/numa":  {IntValue: &numa},
				shareDriver + "/index": {IntValue: &idx},
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
				shareDriver + "/memory": d.shareCapacity([]string{"4Gi", "8Gi", "16Gi"}, "Gi"),
			},
			Taints: d.taints(),
		}
		if d.chance(0.5) {
			dev.Capacity[shareDriver+"/bandwidth"] = d.shareCapacity([]string{"4", "10"}, "")
		}
		if d.chance(0.85) {
			dev.AllowMultipleAllocations = ptr(true)
		} else {
			dev.Capacity = map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
				shareDriver + "/memory": {Value: resource.MustParse(d.pick("4Gi", "8Gi"))}}
		}
		devices = append(devices, dev)
		d.shares[node] = append(d.shares[node], dev)
	}
	s := d.slice(pool, shareDriver, pool, 1, devices)
	s.Spec.NodeName = &node
}

// capacityRequest asks for some of the shared devices' capacity (or
// nothing: the default, or all of it).
func (d *draGen) capacityRequest() *resourceapi.CapacityRequirements {
	if d.chance(0.25) {
		return nil
	}
	r := &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{
		shareDriver + "/memory": resource.MustParse(d.pick("1Gi", "1500Mi", "2Gi", "3Gi", "4Gi", "9Gi")),
	}}
	if d.chance(0.3) {
		r.Requests[shareDriver+"/bandwidth"] = resource.MustParse(d.pick("1", "3", "5"))
	}
	if d.chance(0.04) {
		r.Requests[shareDriver+"/watts"] = resource.MustParse("1") // no device has it
	}
	return r
}

func (d *draGen) shareRequest(name string) resourceapi.DeviceRequest {
	if d.chance(0.15) {
		req := resourceapi.DeviceRequest{Name: name}
		for j, m := 0, d.between(2, 3); j < m; j++ {
			req.FirstAvailable = append(req.FirstAvailable, resourceapi.DeviceSubRequest{
				Name: fmt.Sprintf("sub-%d", j), DeviceClassName: "share",
				AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: int64(d.pick1(1, 1, 2)),
				Capacity: d.capacityRequest()})
		}
		return req
	}
	e := resourceapi.ExactDeviceRequest{DeviceClassName: "share", Capacity: d.capacityRequest(),
		Tolerations: d.tolerations()}
	if d.chance(0.1) {
		e.AllocationMode = resourceapi.DeviceAllocationModeAll
	} else {
		e.AllocationMode = resourceapi.DeviceAllocationModeExactCount
		e.Count = int64(d.pick1(1, 1, 1, 2, 3))
	}
	if d.chance(0.2) {
		e.Selectors = []resourceapi.DeviceSelector{selector(`device.attributes["share.example.com"].index == 0`)}
	}
	return resourceapi.DeviceRequest{Name: name, Exactly: &e}
}

// shareClaim gives pending pod p a claim of shared devices.
func (d *draGen) shareClaim(p *v1.Pod) {
	claim := d.newClaim(p.Namespace, p.Name+"-share")
	var names []string
	for i, k := 0, d.pick1(1, 1, 2); i < k; i++ {
		names = append(names, fmt.Sprintf("req-%d", i))
		claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, d.shareRequest(names[i]))
	}
	if d.chance(0.2) {
		attr := resourceapi.FullyQualifiedName(shareDriver + "/numa")
		c := resourceapi.DeviceConstraint{DistinctAttribute: &attr}
		if d.chance(0.5) {
			c.Requests = names
		}
		claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, c)
	}
	d.c.ResourceClaims = append(d.c.ResourceClaims, claim)
	name := claim.Name
	addPodClaim(p, "share", &name, nil)
}

// allocatedShare gives bound pod p a claim holding a share of one of its
// node's shared devices (what it consumes may exceed what is left: a race
// can leave that behind), or rarely the whole device without a shareID.
func (d *draGen) allocatedShare(p *v1.Pod, n int) {
	devices := d.shares[p.Spec.NodeName]
	if len(devices) == 0 {
		return
	}
	dev := devices[d.r.Intn(len(devices))]
	claim := d.newClaim(p.Namespace, p.Name+"-share")
	claim.Finalizers = []string{"resource.kubernetes.io/delete-protection"}
	claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: "share", Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: "share", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}}
	result := resourceapi.DeviceRequestAllocationResult{Request: "share", Driver: shareDriver,
		Pool: p.Spec.NodeName + "-share", Device: dev.Name}
	if dev.AllowMultipleAllocations != nil && !d.chance(0.1) {
		result.ShareID = ptr(types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", n)))
		result.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{}
		for name := range dev.Capacity {
			if strings.HasSuffix(string(name), "/memory") {
				result.ConsumedCapacity[name] = resource.MustParse(d.pick("1Gi", "2Gi", "4Gi", "8Gi"))
			} else {
				result.ConsumedCapacity[name] = resource.MustParse(d.pick("1", "2", "4"))
			}
		}
	}
	claim.Status.Allocation = &resourceapi.AllocationResult{
		Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{result}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn,
				Values: []string{p.Spec.NodeName}}}}}},
	}
	claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: p.Name, UID: p.UID}}
	name := claim.Name
	addPodClaim(p, "share", &name, nil)
	d.c.ResourceClaims = append(d.c.ResourceClaims, claim)
}

// capacity adds the consumable-capacity objects.
func (d *draGen) capacity() {
	d.c.DeviceClasses = append(d.c.DeviceClasses, &resourceapi.DeviceClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"},
		ObjectMeta: metav1.ObjectMeta{Name: "share", UID: types.UID("deviceclass-share")},
		Spec:       resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{selector(`device.driver == "share.example.com"`)}},
	})
	for _, n := range d.c.Nodes {
		d.shareSlices(n)
	}
	for i, p := range d.c.Pods {
		if p.Spec.NodeName != "" && d.chance(0.4) {
			d.allocatedShare(p, i)
		}
	}
	for _, p := range d.c.Pods {
		if p.Spec.NodeName == "" && d.chance(0.35) {
			d.shareClaim(p)
		}
	}
}
