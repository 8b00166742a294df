// Package plugincompare checks ksched's plugins one by one against
// kube-scheduler's: a seeded generator of small random clusters, the
// oracle (package kubeexplain, kube-scheduler's framework as a library) and
// `ksched simulate --explain -o json --tie-break lowest-name` on the same
// snapshot, compared pod by pod, node by node, plugin by plugin.
package plugincompare

import (
	"fmt"
	"math/rand"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"ksched.dev/test/k8s/kubeexplain"
)

const (
	zoneKey = "topology.kubernetes.io/zone"
	hostKey = "kubernetes.io/hostname"
	gpu     = "example.com/gpu"
)

// gen draws everything from one seeded source, so a seed is a case.
type gen struct {
	r *rand.Rand
}

func (g gen) pick(s ...string) string { return s[g.r.Intn(len(s))] }
func (g gen) chance(p float64) bool   { return g.r.Float64() < p }
func (g gen) between(lo, hi int) int  { return lo + g.r.Intn(hi-lo+1) }

var (
	namespaces = []string{"default", "team-a", "team-b"}
	apps       = []string{"web", "db", "cache"}
	images     = []string{"registry/web:1", "registry/db:2", "registry/cache:3", "registry/big:4", "registry/plain"}
	base       = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Options choose what a case may contain beyond the default inputs.
type Options struct {
	// DRA adds DeviceClasses, ResourceSlices and ResourceClaims, and claims
	// to some pods (gen_dra.go), after every other draw.
	DRA bool
}

// Generate makes the case of one seed: 3-12 nodes, some bound pods and
// 1-15 pending pods, over the default plugins' inputs.
func Generate(seed int64) *kubeexplain.Cluster { return GenerateWith(seed, Options{}) }

// GenerateWith is Generate with the optional inputs of opts.
func GenerateWith(seed int64, opts Options) *kubeexplain.Cluster {
	g := gen{r: rand.New(rand.NewSource(seed))}
	c := &kubeexplain.Cluster{}
	for i, ns := range namespaces {
		c.Namespaces = append(c.Namespaces, &v1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: ns, UID: types.UID("ns-" + ns), Labels: map[string]string{"team": fmt.Sprint(i % 2)}},
		})
	}
	nNodes := g.between(3, 12)
	zones := g.between(1, 3)
	for i := 0; i < nNodes; i++ {
		c.Nodes = append(c.Nodes, g.node(i, zones))
	}
	var names []string
	for _, n := range c.Nodes {
		names = append(names, n.Name)
	}
	t := 0
	for i, n := g.between(0, 2*nNodes), 0; n < i; n++ {
		p := g.pod(fmt.Sprintf("bound-%d", n), t, names)
		t++
		p.Spec.NodeName = c.Nodes[g.r.Intn(nNodes)].Name
		g.resized(p)
		c.Pods = append(c.Pods, p)
	}
	for i, n := g.between(1, 15), 0; n < i; n++ {
		c.Pods = append(c.Pods, g.pod(fmt.Sprintf("pod-%d", n), t, names))
		t++
	}
	g.volumes(c)
	g.workloads(c)
	if opts.DRA {
		g.dra(c)
	}
	return c
}

func (g gen) node(i, zones int) *v1.Node {
	// Names out of creation order, so name ties and node order both matter.
	name := fmt.Sprintf("node-%c%d", 'a'+rune(g.r.Intn(26)), i)
	alloc := v1.ResourceList{
		v1.ResourceCPU:              *resource.NewMilliQuantity(int64(g.between(2, 8))*1000, resource.DecimalSI),
		v1.ResourceMemory:           *resource.NewQuantity(int64(g.between(2, 16))<<30, resource.BinarySI),
		v1.ResourceEphemeralStorage: *resource.NewQuantity(int64(g.between(10, 100))<<30, resource.BinarySI),
		v1.ResourcePods:             *resource.NewQuantity(int64(g.between(3, 110)), resource.DecimalSI),
	}
	if g.chance(0.3) {
		alloc[gpu] = *resource.NewQuantity(int64(g.between(0, 4)), resource.DecimalSI)
	}
	if g.chance(0.2) {
		alloc["hugepages-2Mi"] = *resource.NewQuantity(int64(g.between(0, 512))<<21, resource.BinarySI)
	}
	if g.chance(0.05) { // a node reporting no ephemeral storage
		delete(alloc, v1.ResourceEphemeralStorage)
	}
	labels := map[string]string{hostKey: name, "gen": fmt.Sprint(g.between(1, 5))}
	if !g.chance(0.1) { // some nodes lack the zone label (spread/affinity skip them)
		labels[zoneKey] = fmt.Sprintf("zone-%d", g.r.Intn(zones))
	}
	if g.chance(0.5) {
		labels["disk"] = g.pick("ssd", "hdd")
	}
	n := &v1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-" + name), Labels: labels},
		Spec:       v1.NodeSpec{Unschedulable: g.chance(0.05)},
		Status: v1.NodeStatus{Capacity: alloc, Allocatable: alloc,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}},
	}
	for _, t := range []v1.Taint{
		{Key: "dedicated", Value: "infra", Effect: v1.TaintEffectNoSchedule},
		{Key: "spot", Effect: v1.TaintEffectPreferNoSchedule},
		{Key: "maint", Value: "yes", Effect: v1.TaintEffectNoExecute},
		{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectPreferNoSchedule},
	} {
		if g.chance(0.1) {
			n.Spec.Taints = append(n.Spec.Taints, t)
		}
	}
	for _, img := range images {
		if g.chance(0.4) {
			name := img
			if img == "registry/plain" { // ImageLocality normalises a tagless name to :latest
				name += ":latest"
			}
			n.Status.Images = append(n.Status.Images, v1.ContainerImage{
				Names: []string{name}, SizeBytes: int64(g.between(1, 1500)) << 20})
		}
	}
	return n
}

func (g gen) requests() v1.ResourceList {
	rl := v1.ResourceList{}
	if g.chance(0.8) {
		rl[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(g.between(1, 30))*100, resource.DecimalSI)
	}
	if g.chance(0.8) {
		rl[v1.ResourceMemory] = *resource.NewQuantity(int64(g.between(1, 40))<<27, resource.BinarySI)
	}
	if g.chance(0.2) {
		rl[v1.ResourceEphemeralStorage] = *resource.NewQuantity(int64(g.between(1, 30))<<30, resource.BinarySI)
	}
	if g.chance(0.05) {
		rl[gpu] = *resource.NewQuantity(int64(g.between(1, 2)), resource.DecimalSI)
	}
	if g.chance(0.05) {
		rl["hugepages-2Mi"] = *resource.NewQuantity(int64(g.between(1, 64))<<21, resource.BinarySI)
	}
	return rl
}

func (g gen) pod(name string, t int, nodeNames []string) *v1.Pod {
	ns := g.pick(namespaces...)
	labels := map[string]string{"app": g.pick(apps...)}
	if g.chance(0.5) {
		labels["rev"] = g.pick("1", "2")
	}
	prio := int32(g.r.Intn(3) * 100)
	p := &v1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(ns + "-" + name), Labels: labels,
			CreationTimestamp: metav1.NewTime(base.Add(time.Duration(t) * time.Second))},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Priority: &prio},
	}
	for i, n := 0, g.between(1, 2); i < n; i++ {
		ctr := v1.Container{Name: fmt.Sprint("c", i), Image: g.pick(images...),
			Resources: v1.ResourceRequirements{Requests: g.requests()}}
		if g.chance(0.15) {
			ctr.Ports = []v1.ContainerPort{{ContainerPort: 80, HostPort: int32(g.pick1(8080, 8081)),
				Protocol: v1.Protocol(g.pick(string(v1.ProtocolTCP), string(v1.ProtocolTCP), string(v1.ProtocolUDP))),
				HostIP:   g.pick("", "", "0.0.0.0", "10.0.0.1")}}
		}
		p.Spec.Containers = append(p.Spec.Containers, ctr)
	}
	if g.chance(0.15) {
		p.Spec.InitContainers = []v1.Container{{Name: "init", Image: g.pick(images...),
			Resources: v1.ResourceRequirements{Requests: g.requests()}}}
		if g.chance(0.5) { // a sidecar: its requests add to the containers'
			always := v1.ContainerRestartPolicyAlways
			p.Spec.InitContainers = append(p.Spec.InitContainers, v1.Container{Name: "sidecar", Image: g.pick(images...),
				RestartPolicy: &always, Resources: v1.ResourceRequirements{Requests: g.requests()}})
		}
	}
	g.podLevelResources(p)
	if g.chance(0.1) {
		p.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m"), v1.ResourceMemory: resource.MustParse("120Mi")}
	}
	if g.chance(0.15) {
		p.Spec.NodeSelector = map[string]string{"disk": g.pick("ssd", "hdd")}
	}
	g.nodeAffinity(p, nodeNames)
	g.tolerations(p)
	g.podAffinity(p)
	g.spread(p)
	return p
}

func (g gen) pick1(v ...int) int { return v[g.r.Intn(len(v))] }

func (g gen) nodeReq() v1.NodeSelectorRequirement {
	switch g.r.Intn(6) {
	case 0:
		return v1.NodeSelectorRequirement{Key: "disk", Operator: v1.NodeSelectorOpIn, Values: []string{g.pick("ssd", "hdd")}}
	case 1:
		return v1.NodeSelectorRequirement{Key: zoneKey, Operator: v1.NodeSelectorOpNotIn, Values: []string{"zone-0"}}
	case 2:
		return v1.NodeSelectorRequirement{Key: "disk", Operator: v1.NodeSelectorOpExists}
	case 3:
		return v1.NodeSelectorRequirement{Key: "disk", Operator: v1.NodeSelectorOpDoesNotExist}
	case 4:
		return v1.NodeSelectorRequirement{Key: "gen", Operator: v1.NodeSelectorOpGt, Values: []string{fmt.Sprint(g.between(1, 4))}}
	default:
		return v1.NodeSelectorRequirement{Key: "gen", Operator: v1.NodeSelectorOpLt, Values: []string{fmt.Sprint(g.between(2, 5))}}
	}
}

func (g gen) nodeAffinity(p *v1.Pod, nodeNames []string) {
	na := &v1.NodeAffinity{}
	if g.chance(0.05) && len(nodeNames) > 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn,
				Values: []string{g.pick(nodeNames...), g.pick(nodeNames...), "no-such-node"}}}}}}
	} else if g.chance(0.2) {
		for i, n := 0, g.between(1, 2); i < n; i++ {
			if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
				na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{}
			}
			na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(
				na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms,
				v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{g.nodeReq()}})
		}
	}
	if g.chance(0.3) {
		for i, n := 0, g.between(1, 3); i < n; i++ {
			na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
				v1.PreferredSchedulingTerm{Weight: int32(g.between(1, 100)),
					Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{g.nodeReq()}}})
		}
	}
	if na.RequiredDuringSchedulingIgnoredDuringExecution != nil || na.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: na}
	}
}

func (g gen) tolerations(p *v1.Pod) {
	all := []v1.Toleration{
		{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "infra", Effect: v1.TaintEffectNoSchedule},
		{Key: "dedicated", Operator: v1.TolerationOpExists},
		{Key: "spot", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectPreferNoSchedule},
		{Key: "maint", Operator: v1.TolerationOpEqual, Value: "yes", Effect: v1.TaintEffectNoExecute},
		{Operator: v1.TolerationOpExists},
		{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "gpu"},
	}
	for _, t := range all {
		if g.chance(0.15) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, t)
		}
	}
}

func (g gen) term() v1.PodAffinityTerm {
	t := v1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": g.pick(apps...)}},
		TopologyKey:   g.pick(hostKey, zoneKey),
	}
	switch g.r.Intn(4) {
	case 0:
		t.Namespaces = []string{g.pick(namespaces...)}
	case 1:
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": g.pick("0", "1")}}
	case 2:
		t.NamespaceSelector = &metav1.LabelSelector{} // all namespaces
	}
	if g.chance(0.2) {
		t.MatchLabelKeys = []string{"rev"}
	}
	return t
}

func (g gen) podAffinity(p *v1.Pod) {
	if !g.chance(0.4) {
		return
	}
	pa, anti := &v1.PodAffinity{}, &v1.PodAntiAffinity{}
	if g.chance(0.3) {
		pa.RequiredDuringSchedulingIgnoredDuringExecution = []v1.PodAffinityTerm{g.term()}
	}
	if g.chance(0.4) {
		pa.PreferredDuringSchedulingIgnoredDuringExecution = []v1.WeightedPodAffinityTerm{{Weight: int32(g.between(1, 100)), PodAffinityTerm: g.term()}}
	}
	if g.chance(0.3) {
		anti.RequiredDuringSchedulingIgnoredDuringExecution = []v1.PodAffinityTerm{g.term()}
	}
	if g.chance(0.4) {
		anti.PreferredDuringSchedulingIgnoredDuringExecution = []v1.WeightedPodAffinityTerm{{Weight: int32(g.between(1, 100)), PodAffinityTerm: g.term()}}
	}
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &v1.Affinity{}
	}
	p.Spec.Affinity.PodAffinity, p.Spec.Affinity.PodAntiAffinity = pa, anti
}

func (g gen) spread(p *v1.Pod) {
	if !g.chance(0.35) {
		return
	}
	for i, n := 0, g.between(1, 2); i < n; i++ {
		c := v1.TopologySpreadConstraint{
			MaxSkew:           int32(g.between(1, 2)),
			TopologyKey:       g.pick(hostKey, zoneKey),
			WhenUnsatisfiable: v1.UnsatisfiableConstraintAction(g.pick(string(v1.DoNotSchedule), string(v1.ScheduleAnyway))),
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}},
		}
		if c.WhenUnsatisfiable == v1.DoNotSchedule && g.chance(0.3) {
			m := int32(g.between(1, 4))
			c.MinDomains = &m
		}
		if g.chance(0.3) {
			pol := v1.NodeInclusionPolicy(g.pick(string(v1.NodeInclusionPolicyHonor), string(v1.NodeInclusionPolicyIgnore)))
			c.NodeAffinityPolicy = &pol
		}
		if g.chance(0.3) {
			pol := v1.NodeInclusionPolicy(g.pick(string(v1.NodeInclusionPolicyHonor), string(v1.NodeInclusionPolicyIgnore)))
			c.NodeTaintsPolicy = &pol
		}
		if g.chance(0.2) {
			c.MatchLabelKeys = []string{"rev"}
		}
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c)
	}
}
