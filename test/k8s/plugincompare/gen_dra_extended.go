package plugincompare

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// fpgaResource is the extended resource the fpga DeviceClass serves by name
// (DRAExtendedResource; one of the Configs scores it).
const fpgaResource = "example.com/fpga"

// extendedResources draws extended resources backed by DRA, after every
// other DRA draw: the fpga class names fpgaResource, every class serves
// deviceclass.resource.kubernetes.io/<class>; some nodes offer fpgaResource
// through a device plugin as well (their allocatable, which then decides
// instead of the slices, including 0); half the nodes publish FPGAs of their
// own, some held by a bound pod's claim, so that scoring fpgaResource meets
// capacities and allocations that differ from node to node; some pending
// pods without claims request one or two of either kind.
func (d *draGen) extendedResources() {
	for _, dc := range d.c.DeviceClasses {
		if dc.Name == "fpga" {
			dc.Spec.ExtendedResourceName = ptr(fpgaResource)
		}
	}
	for _, n := range d.c.Nodes {
		if !d.chance(0.5) {
			continue
		}
		pool := "fpga-" + n.Name
		var devices []resourceapi.Device
		k := d.between(1, 4)
		for i := 0; i < k; i++ {
			devices = append(devices, resourceapi.Device{Name: fmt.Sprintf("lf-%d", i), Taints: d.taints()})
		}
		s := d.slice(pool, fpgaDriver, pool, 1, devices)
		s.Spec.NodeName = ptr(n.Name)
		held := 0
		for _, p := range d.c.Pods {
			if p.Spec.NodeName == n.Name && held < len(devices)-1 && d.chance(0.5) {
				d.allocated(p, "fpga", fpgaDriver, pool, devices[held].Name)
				held++
			}
		}
	}
	for _, n := range d.c.Nodes {
		if d.chance(0.2) {
			q := *resource.NewQuantity(int64(d.between(0, 2)), resource.DecimalSI)
			n.Status.Allocatable[fpgaResource] = q
			n.Status.Capacity[fpgaResource] = q
		}
	}
	for _, p := range d.c.Pods {
		if p.Spec.NodeName != "" || len(p.Spec.ResourceClaims) > 0 || !d.chance(0.3) {
			continue
		}
		name := v1.ResourceName(d.pick(fpgaResource, fpgaResource, "deviceclass.resource.kubernetes.io/accel",
			"deviceclass.resource.kubernetes.io/nic"))
		q := *resource.NewQuantity(int64(d.between(1, 2)), resource.DecimalSI)
		c := &p.Spec.Containers[0]
		if c.Resources.Requests == nil {
			c.Resources.Requests = v1.ResourceList{}
		}
		if c.Resources.Limits == nil {
			c.Resources.Limits = v1.ResourceList{}
		}
		c.Resources.Requests[name] = q
		c.Resources.Limits[name] = q
	}
}
