package plugincompare

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"ksched.dev/test/k8s/kubeexplain"
)

// Dynamic Resource Allocation inputs, drawn after every other draw of a
// case (so a seed's other objects are the same with and without them):
// DeviceClasses, ResourceSlices (a GPU and a NIC pool per node, an FPGA
// pool reaching a zone, an accelerator pool reaching every node), claims of
// bound pods
// already allocated, and pending pods with claims (their own, from a
// template, or shared) whose requests use selectors, counts, All,
// firstAvailable and matchAttribute. Some devices are tainted, by their
// slice or by a DeviceTaintRule, and some requests tolerate taints. Some
// devices are partitions sharing counters (gen_dra_partitions.go), some
// are shared by capacity (gen_dra_capacity.go), some are attached only
// after scheduling (binding conditions, gen_dra_binding.go).

const (
	gpuDriver  = "gpu.example.com"
	nicDriver  = "nic.example.com"
	fpgaDriver = "fpga.example.com"
	// The pool reaching every node has a driver (and class) of its own: no
	// request can reach two pools, since kube's allocator searches pools in
	// Go map order and would pick among them differently from run to run.
	accelDriver = "accel.example.com"
)

var (
	gpuModels = []string{"a100", "h100", "t4"}
	// Request selectors over the GPU driver's attributes and capacity. Every
	// GPU has every attribute, so none fails at run time on a device its
	// class lets through.
	gpuSelectors = []string{
		`device.attributes["gpu.example.com"].model == "h100"`,
		`device.attributes["gpu.example.com"].model in ["a100", "h100"]`,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`,
		`device.attributes["gpu.example.com"].index < 2`,
		`device.attributes["gpu.example.com"].ecc`,
		`device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.5.0"))`,
		`device.attributes["gpu.example.com"].model.startsWith("t")`,
	}
	// Attributes a matchAttribute constraint may name.
	gpuMatchAttributes = []string{"gpu.example.com/numa", "gpu.example.com/model"}
)

// draGen keeps what the DRA draws need across objects: every node's GPUs,
// the devices already allocated, and claims pods may share.
type draGen struct {
	gen
	c       *kubeexplain.Cluster
	gpus    map[string][]string             // node -> its GPU devices
	parts   map[string][]string             // node -> "pool/device" of the partitions it reaches by name
	taken   map[string]bool                 // "pool/device" of the GPU and partition drivers
	shares  map[string][]resourceapi.Device // node -> its shared-capacity devices
	shared  []*resourceapi.ResourceClaim
	claimNo int
}

// dra adds the DRA objects to c.
func (g gen) dra(c *kubeexplain.Cluster) {
	d := &draGen{gen: g, c: c, gpus: map[string][]string{}, parts: map[string][]string{}, taken: map[string]bool{},
		shares: map[string][]resourceapi.Device{}}
	d.classes()
	for _, n := range c.Nodes {
		d.nodeSlices(n)
		d.partitionSlices(n)
	}
	d.multiNodePartitions(c.Nodes)
	d.networkSlices()
	d.taintRules()
	for _, p := range c.Pods {
		if p.Spec.NodeName != "" && g.chance(0.3) {
			d.allocatedClaim(p)
		}
		if p.Spec.NodeName != "" && g.chance(0.3) {
			d.allocatedPartition(p)
		}
	}
	for _, p := range c.Pods {
		if p.Spec.NodeName == "" && g.chance(0.45) {
			for i, n := 0, g.between(1, 2); i < n; i++ {
				d.podClaim(p, i)
			}
		}
	}
	d.capacity()
	d.extendedResources()
	d.bindingConditions()
}

func selector(expr string) resourceapi.DeviceSelector {
	return resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: expr}}
}

func (d *draGen) classes() {
	class := func(name string, exprs ...string) {
		dc := &resourceapi.DeviceClass{
			TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("deviceclass-" + name)},
		}
		for _, e := range exprs {
			dc.Spec.Selectors = append(dc.Spec.Selectors, selector(e))
		}
		d.c.DeviceClasses = append(d.c.DeviceClasses, dc)
	}
	class("gpu", `device.driver == "gpu.example.com"`)
	class("gpu-big", `device.driver == "gpu.example.com"`,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`)
	class("nic", `device.driver == "nic.example.com"`)
	class("fpga", `device.driver == "fpga.example.com"`)
	class("accel", `device.driver == "accel.example.com"`)
	class("part", `device.driver == "part.example.com"`)
}

func (d *draGen) slice(name, driver, pool string, sliceCount int64, devices []resourceapi.Device) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("slice-" + name)},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:  driver,
			Pool:    resourceapi.ResourcePool{Name: pool, Generation: 1, ResourceSliceCount: sliceCount},
			Devices: devices,
		},
	}
	d.c.ResourceSlices = append(d.c.ResourceSlices, s)
	return s
}

func (d *draGen) gpu(i int) resourceapi.Device {
	model := d.pick(gpuModels...)
	numa := int64(i % 2)
	idx := int64(i)
	ecc := d.chance(0.7)
	version := d.pick("1.4.2", "1.5.0", "1.6.1", "2.0.0")
	return resourceapi.Device{
		Name: fmt.Sprintf("gpu-%d", i),
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			gpuDriver + "/model":         {StringValue: &model},
			gpuDriver + "/numa":          {IntValue: &numa},
			gpuDriver + "/index":         {IntValue: &idx},
			gpuDriver + "/ecc":           {BoolValue: &ecc},
			gpuDriver + "/driverVersion": {VersionValue: &version},
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			gpuDriver + "/memory": {Value: resource.MustParse(d.pick("16Gi", "40Gi", "80Gi"))},
		},
		Taints: d.taints(),
	}
}

// Taint keys and values that tolerations and rules draw from too.
var (
	taintKeys   = []string{"example.com/broken", "example.com/maintenance"}
	taintValues = []string{"", "fan"}
)

func (d *draGen) taint() resourceapi.DeviceTaint {
	return resourceapi.DeviceTaint{Key: d.pick(taintKeys...), Value: d.pick(taintValues...),
		Effect: resourceapi.DeviceTaintEffect(d.pick("NoSchedule", "NoSchedule", "NoExecute", "None"))}
}

// taints: a device's own taints (most have none).
func (d *draGen) taints() []resourceapi.DeviceTaint {
	if !d.chance(0.15) {
		return nil
	}
	out := []resourceapi.DeviceTaint{d.taint()}
	if d.chance(0.2) {
		out = append(out, d.taint())
	}
	return out
}

// tolerations: a request's (most have none).
func (d *draGen) tolerations() []resourceapi.DeviceToleration {
	if !d.chance(0.25) {
		return nil
	}
	var out []resourceapi.DeviceToleration
	for i, k := 0, d.pick1(1, 1, 2); i < k; i++ {
		t := resourceapi.DeviceToleration{Key: d.pick(append([]string{""}, taintKeys...)...),
			Effect: resourceapi.DeviceTaintEffect(d.pick("", "NoSchedule", "NoExecute"))}
		if t.Key == "" || d.chance(0.5) {
			t.Operator = resourceapi.DeviceTolerationOpExists
		} else {
			t.Operator = resourceapi.DeviceTolerationOpEqual
			t.Value = d.pick(taintValues...)
		}
		out = append(out, t)
	}
	return out
}

// taintRules adds DeviceTaintRules that taint a node's GPU pool, one GPU
// of a pool, every device of a driver, or (no selector) nothing. Releases
// that do not read them (1.35 and 1.36 by default) ignore them, as ksched
// must too.
func (d *draGen) taintRules() {
	if !d.chance(0.3) {
		return
	}
	for i, k := 0, d.between(1, 2); i < k; i++ {
		rule := &kubeexplain.DeviceTaintRule{
			TypeMeta:   metav1.TypeMeta{APIVersion: kubeexplain.DeviceTaintRuleAPIVersion, Kind: "DeviceTaintRule"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("rule-%d", i), UID: types.UID(fmt.Sprintf("rule-%d", i))},
		}
		rule.Spec.Taint.Key, rule.Spec.Taint.Value = d.pick(taintKeys...), d.pick(taintValues...)
		rule.Spec.Taint.Effect = kubeexplain.DeviceTaintEffect(d.pick("NoSchedule", "NoExecute", "None"))
		var nodes []string
		for n := range d.gpus {
			nodes = append(nodes, n)
		}
		sort.Strings(nodes)
		switch {
		case len(nodes) > 0 && d.chance(0.4):
			rule.Spec.DeviceSelector = &kubeexplain.DeviceTaintSelector{Driver: ptr(gpuDriver), Pool: ptr(d.pick(nodes...))}
		case len(nodes) > 0 && d.chance(0.5):
			n := d.pick(nodes...)
			rule.Spec.DeviceSelector = &kubeexplain.DeviceTaintSelector{Pool: ptr(n), Device: ptr(d.pick(d.gpus[n]...))}
		case d.chance(0.7):
			rule.Spec.DeviceSelector = &kubeexplain.DeviceTaintSelector{Driver: ptr(d.pick(nicDriver, fpgaDriver, accelDriver))}
		}
		d.c.DeviceTaintRules = append(d.c.DeviceTaintRules, rule)
	}
}

// nodeSlices publishes the node's GPU pool (sometimes in two slices, rarely
// with one of them missing) and NIC pool.
func (d *draGen) nodeSlices(n *v1.Node) {
	node := n.Name
	if d.chance(0.6) {
		var devices []resourceapi.Device
		for i, k := 0, d.between(1, 4); i < k; i++ {
			devices = append(devices, d.gpu(i))
		}
		for _, dev := range devices {
			d.gpus[node] = append(d.gpus[node], dev.Name)
		}
		if len(devices) > 1 && d.chance(0.2) {
			// A pool of two slices. kube's allocator sees a pool's slices in
			// informer (Go map) order, so were devices in both, the one it
			// takes first would vary from run to run: a complete pool keeps
			// its devices in one slice beside an empty one; an incomplete
			// pool lacks the slice with its second half.
			half := len(devices) / 2
			if d.chance(0.7) {
				first := d.slice(node+"-gpu-0", gpuDriver, node, 2, devices)
				first.Spec.NodeName = &node
				second := d.slice(node+"-gpu-1", gpuDriver, node, 2, nil)
				second.Spec.NodeName = &node
			} else {
				first := d.slice(node+"-gpu-0", gpuDriver, node, 2, devices[:half])
				first.Spec.NodeName = &node
				d.gpus[node] = d.gpus[node][:half]
			}
		} else {
			s := d.slice(node+"-gpu", gpuDriver, node, 1, devices)
			s.Spec.NodeName = &node
		}
	}
	if d.chance(0.3) {
		var devices []resourceapi.Device
		for i, k := 0, d.between(1, 2); i < k; i++ {
			numa := int64(i)
			devices = append(devices, resourceapi.Device{Name: fmt.Sprintf("nic-%d", i),
				Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
					nicDriver + "/numa": {IntValue: &numa}},
				Taints: d.taints()})
		}
		s := d.slice(node+"-nic", nicDriver, node, 1, devices)
		s.Spec.NodeName = &node
	}
}

// networkSlices publishes pools not tied to one node: FPGAs reaching a
// zone's nodes (nodeSelector), an accelerator reaching every node.
func (d *draGen) networkSlices() {
	bare := func(prefix string, k int) []resourceapi.Device {
		var out []resourceapi.Device
		for i := 0; i < k; i++ {
			out = append(out, resourceapi.Device{Name: fmt.Sprintf("%s-%d", prefix, i), Taints: d.taints()})
		}
		return out
	}
	if d.chance(0.3) {
		s := d.slice("fpga-zone", fpgaDriver, "fpga-zone", 1, bare("zf", d.between(1, 2)))
		s.Spec.NodeSelector = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: zoneKey, Operator: v1.NodeSelectorOpIn,
				Values: []string{"zone-0"}}}}}}
	}
	if d.chance(0.2) {
		s := d.slice("accel-all", accelDriver, "accel-all", 1, bare("af", 1))
		s.Spec.AllNodes = ptr(true)
	}
}

func (d *draGen) newClaim(ns, name string) *resourceapi.ResourceClaim {
	d.claimNo++
	return &resourceapi.ResourceClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(fmt.Sprintf("claim-%d", d.claimNo)),
			ResourceVersion: "1"},
	}
}

func addPodClaim(p *v1.Pod, ref string, claim, template *string) {
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: ref,
		ResourceClaimName: claim, ResourceClaimTemplateName: template})
	c := &p.Spec.Containers[0]
	c.Resources.Claims = append(c.Resources.Claims, v1.ResourceClaim{Name: ref})
}

// allocatedClaim gives a bound pod a claim already allocated one free GPU of
// its node and reserved for it, as the scheduler and the API would have
// left it.
func (d *draGen) allocatedClaim(p *v1.Pod) {
	node := p.Spec.NodeName
	var free []string
	for _, dev := range d.gpus[node] {
		if !d.taken[node+"/"+dev] {
			free = append(free, dev)
		}
	}
	if len(free) == 0 {
		return
	}
	dev := d.pick(free...)
	d.taken[node+"/"+dev] = true
	claim := d.allocated(p, "gpu", gpuDriver, node, dev)
	if d.chance(0.3) {
		d.shared = append(d.shared, claim)
	}
}

// allocated gives bound pod p a claim "<pod>-<class>" of one device of the
// class, allocated driver/pool/dev on p's node and reserved for p.
func (d *draGen) allocated(p *v1.Pod, class, driver, pool, dev string) *resourceapi.ResourceClaim {
	claim := d.newClaim(p.Namespace, p.Name+"-"+class)
	claim.Finalizers = []string{"resource.kubernetes.io/delete-protection"}
	claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: class, Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}}
	claim.Status.Allocation = &resourceapi.AllocationResult{
		Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
			Request: class, Driver: driver, Pool: pool, Device: dev}}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn,
				Values: []string{p.Spec.NodeName}}}}}},
	}
	claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: p.Name, UID: p.UID}}
	name := claim.Name
	addPodClaim(p, class, &name, nil)
	d.c.ResourceClaims = append(d.c.ResourceClaims, claim)
	return claim
}

// exact is one ExactCount or All request of a class, with selectors.
func (d *draGen) exact(class string) resourceapi.ExactDeviceRequest {
	r := resourceapi.ExactDeviceRequest{DeviceClassName: class}
	if d.chance(0.1) {
		r.AllocationMode = resourceapi.DeviceAllocationModeAll
	} else {
		r.AllocationMode = resourceapi.DeviceAllocationModeExactCount
		r.Count = int64(d.pick1(1, 1, 1, 2, 3))
	}
	if class == "gpu" || class == "gpu-big" {
		for i, k := 0, d.pick1(0, 0, 1, 1, 2); i < k; i++ {
			r.Selectors = append(r.Selectors, selector(d.pick(gpuSelectors...)))
		}
	}
	if class == "part" && d.chance(0.4) {
		r.Selectors = append(r.Selectors, selector(d.pick(partSelectors...)))
	}
	r.Tolerations = d.tolerations()
	return r
}

func (d *draGen) class() string {
	switch {
	case d.chance(0.02):
		return "no-such-class"
	case d.chance(0.6):
		return d.pick("gpu", "gpu", "gpu-big")
	default:
		return d.pick("nic", "fpga", "accel", "part", "part")
	}
}

// claimSpec draws 1-2 requests (some with firstAvailable subrequests) and
// sometimes a matchAttribute constraint over the GPU requests.
func (d *draGen) claimSpec() resourceapi.ResourceClaimSpec {
	var spec resourceapi.ResourceClaimSpec
	var gpuRequests []string
	for i, k := 0, d.pick1(1, 1, 2); i < k; i++ {
		name := fmt.Sprintf("req-%d", i)
		req := resourceapi.DeviceRequest{Name: name}
		if d.chance(0.15) {
			for j, m := 0, d.between(2, 3); j < m; j++ {
				class := d.class()
				e := d.exact(class)
				req.FirstAvailable = append(req.FirstAvailable, resourceapi.DeviceSubRequest{
					Name: fmt.Sprintf("sub-%d", j), DeviceClassName: class, Selectors: e.Selectors,
					AllocationMode: e.AllocationMode, Count: e.Count, Tolerations: e.Tolerations})
			}
		} else {
			class := d.class()
			e := d.exact(class)
			req.Exactly = &e
			if class == "gpu" || class == "gpu-big" {
				gpuRequests = append(gpuRequests, name)
			}
		}
		spec.Devices.Requests = append(spec.Devices.Requests, req)
	}
	if len(gpuRequests) > 0 && d.chance(0.25) {
		attr := resourceapi.FullyQualifiedName(d.pick(gpuMatchAttributes...))
		c := resourceapi.DeviceConstraint{MatchAttribute: &attr}
		if d.chance(0.5) {
			c.Requests = gpuRequests
		}
		spec.Devices.Constraints = append(spec.Devices.Constraints, c)
	}
	return spec
}

// podClaim gives a pending pod its i-th claim: a shared one (of a bound pod
// or an earlier pending pod), one generated from a template (the claim the
// resource-claim controller would have made, recorded in the pod's
// status), or its own.
func (d *draGen) podClaim(p *v1.Pod, i int) {
	ref := fmt.Sprintf("dev-%d", i)
	var sameNs []*resourceapi.ResourceClaim
	for _, c := range d.shared {
		if c.Namespace == p.Namespace {
			sameNs = append(sameNs, c)
		}
	}
	switch {
	case len(sameNs) > 0 && d.chance(0.2):
		c := sameNs[d.r.Intn(len(sameNs))]
		for _, pc := range p.Spec.ResourceClaims {
			if pc.ResourceClaimName != nil && *pc.ResourceClaimName == c.Name {
				return // a pod names a claim once
			}
		}
		name := c.Name
		addPodClaim(p, ref, &name, nil)
	case d.chance(0.3):
		tpl := &resourceapi.ResourceClaimTemplate{
			TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaimTemplate"},
			ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-" + ref, Namespace: p.Namespace, UID: types.UID("tpl-" + p.Namespace + "-" + p.Name + "-" + ref)},
			Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: d.claimSpec()},
		}
		d.c.ResourceClaimTemplates = append(d.c.ResourceClaimTemplates, tpl)
		claim := d.newClaim(p.Namespace, p.Name+"-"+ref+"-gen")
		claim.Spec = *tpl.Spec.Spec.DeepCopy()
		claim.Annotations = map[string]string{"resource.kubernetes.io/pod-claim-name": ref}
		claim.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID,
			Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
		d.c.ResourceClaims = append(d.c.ResourceClaims, claim)
		tplName, claimName := tpl.Name, claim.Name
		addPodClaim(p, ref, nil, &tplName)
		p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses,
			v1.PodResourceClaimStatus{Name: ref, ResourceClaimName: &claimName})
	default:
		claim := d.newClaim(p.Namespace, fmt.Sprintf("%s-%s", p.Name, ref))
		claim.Spec = d.claimSpec()
		d.c.ResourceClaims = append(d.c.ResourceClaims, claim)
		name := claim.Name
		addPodClaim(p, ref, &name, nil)
		if d.chance(0.25) {
			d.shared = append(d.shared, claim)
		}
	}
}
