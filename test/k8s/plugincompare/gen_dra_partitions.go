package plugincompare

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Partitionable devices: GPUs published as counter sets (memory and
// compute units) in a slice of their own, and partitions (whole, halves,
// quarters) that consume them, in a node's pool ("<node>-part"; its device
// slice sometimes chooses nodes per device) and in a pool spanning nodes
// ("part-multi": one counter set on the first node, a device per node and
// one for every node, all drawing on it). Some pools lack their counter
// slice (incomplete), name a counter set or counter that does not exist
// (invalid), or have partitions already allocated beyond their counters.
// Pool names differ from every other driver's: kube 1.36 keys available
// counters by pool name alone, so two drivers' pools of one name would
// share them there.

const partDriver = "part.example.com"

// Request selectors over the partitions' attributes.
var partSelectors = []string{
	`device.attributes["part.example.com"].size == "half"`,
	`device.attributes["part.example.com"].size != "whole"`,
	`device.attributes["part.example.com"].gpu == 0`,
}

func counters(kv ...string) map[string]resourceapi.Counter {
	out := map[string]resourceapi.Counter{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = resourceapi.Counter{Value: resource.MustParse(kv[i+1])}
	}
	return out
}

// partition is a device of GPU `gpu` consuming memory (and units, unless "").
func (d *draGen) partition(name string, gpu int, size, memory, units string) resourceapi.Device {
	idx := int64(gpu)
	consumed := counters("memory", memory)
	if units != "" {
		consumed["units"] = resourceapi.Counter{Value: resource.MustParse(units)}
	}
	set := fmt.Sprintf("gpu-%d", gpu)
	switch {
	case d.chance(0.005):
		set = "gpu-9" // no such counter set: the pool is invalid
	case d.chance(0.005):
		consumed["watts"] = resourceapi.Counter{Value: resource.MustParse("100")} // no such counter
	}
	return resourceapi.Device{
		Name: name,
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			partDriver + "/size": {StringValue: &size},
			partDriver + "/gpu":  {IntValue: &idx},
		},
		ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: set, Counters: consumed}},
		Taints:           d.taints(),
	}
}

// partitionSlices publishes node n's partitionable GPUs.
func (d *draGen) partitionSlices(n *v1.Node) {
	if !d.chance(0.35) {
		return
	}
	node, pool := n.Name, n.Name+"-part"
	var sets []resourceapi.CounterSet
	var devices []resourceapi.Device
	for g, k := 0, d.between(1, 2); g < k; g++ {
		memory := d.pick1(40, 80)
		units := d.pick1(4, 8)
		sets = append(sets, resourceapi.CounterSet{Name: fmt.Sprintf("gpu-%d", g),
			Counters: counters("memory", fmt.Sprintf("%dGi", memory), "units", fmt.Sprint(units))})
		devices = append(devices,
			d.partition(fmt.Sprintf("g%d-whole", g), g, "whole", fmt.Sprintf("%dGi", memory), fmt.Sprint(units)),
			d.partition(fmt.Sprintf("g%d-half-0", g), g, "half", fmt.Sprintf("%dGi", memory/2), fmt.Sprint(units/2)),
			d.partition(fmt.Sprintf("g%d-half-1", g), g, "half", fmt.Sprintf("%dGi", memory/2), fmt.Sprint(units/2)))
		for q, m := 0, d.between(0, 3); q < m; q++ {
			devices = append(devices, d.partition(fmt.Sprintf("g%d-quarter-%d", g, q), g, "quarter",
				fmt.Sprintf("%dGi", memory/4), ""))
		}
	}
	if !d.chance(0.1) {
		s := d.slice(pool+"-counters", partDriver, pool, 2, nil)
		s.Spec.NodeName = &node
		s.Spec.SharedCounters = sets
	}
	s := d.slice(pool+"-devices", partDriver, pool, 2, devices)
	if d.chance(0.3) {
		s.Spec.PerDeviceNodeSelection = ptr(true)
		for i := range s.Spec.Devices {
			s.Spec.Devices[i].NodeName = ptr(node)
		}
	} else {
		s.Spec.NodeName = &node
	}
	for _, dev := range devices {
		d.parts[node] = append(d.parts[node], pool+"/"+dev.Name)
	}
}

// multiNodePartitions publishes a pool whose counter set (on the first
// node) is shared by devices of several nodes and one for every node.
func (d *draGen) multiNodePartitions(nodes []*v1.Node) {
	if len(nodes) < 2 || !d.chance(0.25) {
		return
	}
	const pool = "part-multi"
	first := nodes[0].Name
	counterSlice := d.slice(pool+"-counters", partDriver, pool, 2, nil)
	counterSlice.Spec.NodeName = &first
	counterSlice.Spec.SharedCounters = []resourceapi.CounterSet{{Name: "gpu-0",
		Counters: counters("memory", fmt.Sprintf("%dGi", d.pick1(40, 80)), "units", "8")}}
	var devices []resourceapi.Device
	for i, n := range nodes {
		if i == 3 {
			break
		}
		dev := d.partition(fmt.Sprintf("link-%d", i), 0, "half", d.pick("20Gi", "40Gi"), "")
		dev.NodeName = ptr(n.Name)
		devices = append(devices, dev)
		d.parts[n.Name] = append(d.parts[n.Name], pool+"/"+dev.Name)
	}
	shared := d.partition("link-all", 0, "quarter", "20Gi", "")
	shared.AllNodes = ptr(true)
	devices = append(devices, shared)
	s := d.slice(pool+"-devices", partDriver, pool, 2, devices)
	s.Spec.PerDeviceNodeSelection = ptr(true)
}

// allocatedPartition gives a bound pod a claim allocated one partition of
// its node, whatever the counters say (a race can leave that behind).
func (d *draGen) allocatedPartition(p *v1.Pod) {
	var free []string
	for _, id := range d.parts[p.Spec.NodeName] {
		if !d.taken[id] {
			free = append(free, id)
		}
	}
	if len(free) == 0 {
		return
	}
	id := d.pick(free...)
	d.taken[id] = true
	pool, dev, _ := strings.Cut(id, "/")
	d.allocated(p, "part", partDriver, pool, dev)
}
